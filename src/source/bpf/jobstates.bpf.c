/* jobstates.bpf.c - time each thread of the job spends running, waiting for
 * a CPU, sleeping, blocked (D) and otherwise, accounted at each switch of
 * its CPU instead of sampled: the job source (jobbpf.c) reads the `slots`
 * array once a tick, from memory it maps. Only threads of tracked processes
 * (`tgids`, filled from userspace with the job's root, followed here at
 * fork) are kept.
 *
 * Its cost is the job's (and the machine's: the switch program runs at
 * every context switch): one program at the switch, none at wakeups (the
 * switch in reads the wait on a runqueue from sched_info) nor at the
 * kernel's runtime updates (a reader settles a long stretch on a CPU from
 * task/TID/schedstat); a thread not followed costs a load from `tids`.
 * On the 64 x 20 tree (bench/job_tree.py) the programs at sched_switch,
 * sched_wakeup and sched_stat_runtime took 6.1% of a core; the switch
 * alone 1.3% (bench/bpf_progs.py, docs/architecture.md).
 *
 * CO-RE: built against the running kernel's BTF (vmlinux.h generated at
 * build time), relocated by libbpf where it loads. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "jobstates.h"

/* The kernel lets only GPL-compatible programs call the tracing helpers. */
char LICENSE[] SEC("license") = "GPL";

/* The followed threads' records, memory-mapped by userspace. A slot is
 * taken at fork (a recycled one from free_slots, else the next never used,
 * next_slot) and given back by userspace once it has read the thread dead. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, FS_JS_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct fs_js_thread);
} slots SEC(".maps");

/* Each tid's slot + 1 (0: not followed), indexed by tid: FS_JS_TIDS_PER
 * tids an element (userspace sizes it from pid_max at load, and writes
 * into it through a mapping). A context switch of a thread not followed,
 * most of the machine's, costs one load here, where a hash lookup took
 * tens of ns. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK); /* the last freed is reused first: slots stay low */
	__uint(max_entries, FS_JS_MAX_THREADS);
	__type(value, __u32);
} free_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_JS_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u32);
} tgids SEC(".maps");

/* The metadata system calls (metacalls.h), by number: 1 for such a call.
 * Filled by userspace before the program attaches. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FS_JS_MAX_SYSCALL);
	__type(key, __u32);
	__type(value, __u32);
} meta_sys SEC(".maps");

/* Set by userspace before the load: whether to read a blocked thread's
 * system call (bpf_task_pt_regs, kernel 5.15). Loaded with 0, the code
 * that would call the helper is dead and the verifier never sees it, so an
 * older kernel still loads the program. */
const volatile __u32 meta_on = 0;

__u32 next_slot = 0; /* slots below it have been used */
/* Threads of tracked processes that found no slot (never accounted), and
 * new processes that found no room in tgids. */
__u64 dropped = 0;

/* The clock of the runqueue a thread is on (rq->clock, which sched_info's
 * times are in; updated at each switch), through its fair-class runqueue
 * (the per-CPU `runqueues` is not a symbol the verifier can find where
 * kallsyms holds only functions); 0 where the kernel has no group
 * scheduling (CONFIG_FAIR_GROUP_SCHED). */
static __always_inline __u64 rq_clock_of(struct task_struct *task)
{
	if (!bpf_core_field_exists(task->se.cfs_rq))
		return 0;
	struct cfs_rq *cfs = task->se.cfs_rq;
	if (!cfs || !bpf_core_field_exists(cfs->rq))
		return 0;
	return cfs->rq->clock;
}

/* The records' times are in the runqueues' clock, rq->clock, which a
 * switch reads for free: bpf_ktime_get_ns cost 80-100 ns a call on this
 * project's VMs, a third of the switch program (bench/bpf_progs.py). Each
 * CPU keeps the offset of CLOCK_MONOTONIC from it (jobstates.h:
 * fs_js_cal), renewed at a switch every FS_JS_CAL_NS, which userspace
 * reads to compare its own clock with the records' (and the programs that
 * run outside a switch, where rq->clock may be a tick old, to convert
 * theirs). Where the kernel has no rq->clock to reach, the records are in
 * CLOCK_MONOTONIC and no offset is kept. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fs_js_cal);
} cal SEC(".maps");

/* At a switch: its time in the records' clock (0 where there is no
 * rq->clock: the caller reads CLOCK_MONOTONIC then), this CPU's offset
 * renewed when due. */
static __always_inline __u64 switch_clock(struct task_struct *prev)
{
	__u64 clock = rq_clock_of(prev);
	__u32 zero = 0;
	struct fs_js_cal *c = clock ? bpf_map_lookup_elem(&cal, &zero) : NULL;
	if (c && clock - c->clock_ns >= FS_JS_CAL_NS) {
		c->offset_ns = bpf_ktime_get_ns() - clock;
		c->clock_ns = clock;
	}
	return clock;
}

/* Now in the records' clock outside a switch (fork, exec, exit), from
 * CLOCK_MONOTONIC and this CPU's offset. */
static __always_inline __u64 event_clock(struct task_struct *task)
{
	__u32 zero = 0;
	struct fs_js_cal *c = bpf_map_lookup_elem(&cal, &zero);
	__u64 now = bpf_ktime_get_ns();
	if (c && c->clock_ns)
		return now - c->offset_ns;
	__u64 clock = rq_clock_of(task); /* no switch seen on this CPU yet: a tick old at most */
	return clock ? clock : now;
}

/* tid's entry in `tids`, NULL past its end. */
static __always_inline __u16 *tid_entry(__u32 tid)
{
	__u32 k = tid / FS_JS_TIDS_PER;
	__u64 *v = bpf_map_lookup_elem(&tids, &k);
	return v ? (__u16 *)v + (tid % FS_JS_TIDS_PER) : NULL;
}

static __always_inline struct fs_js_thread *find_slot(__u32 tid, __u32 *slot_out)
{
	__u16 *e = tid_entry(tid); /* 0 for a CPU's idle task */
	if (!e || *e == 0)
		return NULL;
	__u32 slot = *e - 1;
	*slot_out = slot;
	return bpf_map_lookup_elem(&slots, &slot);
}

static __always_inline struct fs_js_thread *find(__u32 tid)
{
	__u32 slot;
	return find_slot(tid, &slot);
}

/* Add d to the time in state s (nothing for DEAD and FREE). */
static __always_inline void add_ns(struct fs_js_thread *t, __u32 s, __u64 d)
{
	if (s < FS_JS_NSTATES)
		t->ns[s] += d;
}

/* Add d, a stretch off a CPU, to the state the thread left it in, and to
 * its I/O-wait and metadata-call times where it left in those. */
static __always_inline void add_off_cpu(struct fs_js_thread *t, __u64 d)
{
	add_ns(t, t->state, d);
	if (t->iowait)
		t->iowait_ns += d;
	if (t->meta)
		t->meta_ns += d;
}

/* A writer's mark around a record's update (jobstates.h: seq). */
static __always_inline void write_begin(struct fs_js_thread *t)
{
	__sync_fetch_and_add(&t->seq, 1);
}

static __always_inline void write_end(struct fs_js_thread *t)
{
	__sync_fetch_and_add(&t->seq, 1);
}

/* Switch-ins not seen: a followed thread found on a CPU (at its switch out
 * or its exit) while its record says it is not.
 * Not a lookup that failed: on a 2-CPU VM (kernel 6.18) the programs are
 * not run at all for the switches whose prev is a thread of one process
 * (the VM's init: not one of its switch-outs in 6 s was seen, 50 of its
 * switch-ins were, and none of the wakeups it made), so the switch that
 * puts one of ours on the CPU after it goes unseen, and recursion_misses
 * stays 0. Any event may be missed (recursion is another cause): the
 * stretch is then split by the kernel's own counts (seen_late). */
__u64 unseen_in = 0;

#define NO_EXEC (~0ULL)

/* Copy the thread's I/O counters (jobstates.h: io). Where the kernel has
 * no such field (CONFIG_TASK_XACCT, CONFIG_TASK_IO_ACCOUNTING off) the copy
 * is left out when the program loads, and userspace reads /proc/PID/io
 * (jobbpf.c asks the kernel's BTF the same question). */
static __always_inline void copy_io(struct fs_js_thread *t, struct task_struct *task)
{
	if (bpf_core_field_exists(task->ioac.rchar)) {
		t->io[FS_JS_IO_RCHAR] = task->ioac.rchar;
		t->io[FS_JS_IO_WCHAR] = task->ioac.wchar;
	}
	if (bpf_core_field_exists(task->ioac.read_bytes)) {
		t->io[FS_JS_IO_READ_BYTES] = task->ioac.read_bytes;
		t->io[FS_JS_IO_WRITE_BYTES] = task->ioac.write_bytes;
	}
}

/* Close the thread's current interval at now. A stretch on a CPU is split
 * by the kernel's own count of the thread's execution, exec (its
 * se.sum_exec_runtime now; NO_EXEC where it is not up to date): that much
 * is ONCPU, the rest (stolen by the hypervisor, taken by interrupts) RUNQ. */
static __always_inline void account(struct fs_js_thread *t, __u64 now, __u64 exec)
{
	if (t->state >= FS_JS_NSTATES || now <= t->since_ns)
		return;
	__u64 d = now - t->since_ns;
	if (t->state == FS_JS_ONCPU && exec != NO_EXEC) {
		__u64 ex = fs_js_grown(exec, t->exec_ns, d);
		t->ns[FS_JS_ONCPU] += ex;
		t->ns[FS_JS_RUNQ] += d - ex;
	} else {
		add_ns(t, t->state, d);
	}
	if (exec != NO_EXEC)
		t->exec_ns = exec;
	if (t->iowait)
		t->iowait_ns += d;
	if (t->meta)
		t->meta_ns += d;
	t->since_ns = now;
}

/* Whether the thread, which has just blocked, is inside a metadata system
 * call: its call's number (the registers saved at its entry into the
 * kernel; -1 outside a call, as in a page fault) looked up in meta_sys. */
static __always_inline __u32 in_meta_call(struct task_struct *task)
{
	if (!meta_on)
		return 0;
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return 0;
#if defined(__TARGET_ARCH_x86)
	long nr = BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	long nr = BPF_CORE_READ(regs, syscallno);
#else
	long nr = -1;
#endif
	if (nr < 0 || nr >= FS_JS_MAX_SYSCALL)
		return 0;
	__u32 k = (__u32)nr;
	__u32 *v = bpf_map_lookup_elem(&meta_sys, &k);
	return v && *v;
}

/* t is on a CPU now, but its record says otherwise: its switch in was not
 * seen. Split the stretch since since_ns by the kernel's own counts, exec
 * (se.sum_exec_runtime) and delay (sched_info.run_delay, both up to date
 * at a switch out and an exit of the thread itself): its execution since
 * exec_ns is ONCPU, its wait on a runqueue since delay_ns RUNQ, the rest
 * the state it was in. From now it is on a CPU. */
static __always_inline void seen_late(struct fs_js_thread *t, __u64 now, __u64 exec, __u64 delay)
{
	if (now > t->since_ns) {
		__u64 d = now - t->since_ns;
		__u64 ex = fs_js_grown(exec, t->exec_ns, d);
		__u64 w = fs_js_grown(delay, t->delay_ns, d - ex);
		__u64 rest = d - ex - w;
		t->ns[FS_JS_ONCPU] += ex;
		t->ns[FS_JS_RUNQ] += w;
		add_off_cpu(t, rest);
		t->since_ns = now;
	}
	t->exec_ns = exec;
	t->delay_ns = delay;
	t->state = FS_JS_ONCPU;
	t->iowait = 0;
	t->meta = 0;
	__sync_fetch_and_add(&unseen_in, 1);
}

/* The thread goes on a CPU at now (a switch in): close the stretch off it.
 * Its end was a wait on a runqueue, which the kernel counts in
 * sched_info: what it has added to run_delay since the thread's switch out
 * (delay_ns; a wait cut by a migration to another runqueue), and the wait
 * still open (since last_queued, in the runqueue's clock, which the switch
 * has just updated: now, where rq_clock says the records are in it). That much is RUNQ, the rest the state it left the CPU
 * in: no program at wakeups is needed. */
static __always_inline void switched_in(struct fs_js_thread *n, struct task_struct *next, __u64 now,
					bool rq_clock)
{
	if (n->state == FS_JS_ONCPU) { /* its switch out was not seen */
		account(n, now, NO_EXEC);
	} else if (n->state < FS_JS_NSTATES && now > n->since_ns) {
		__u64 d = now - n->since_ns, w = 0;
		__u64 delay = next->sched_info.run_delay, q = next->sched_info.last_queued;
		if (delay > n->delay_ns && n->delay_ns != ~0ULL)
			w = delay - n->delay_ns;
		if (q && rq_clock && now > q) /* the wait still open */
			w += now - q;
		if (w > d)
			w = d;
		__u64 rest = d - w;
		add_off_cpu(n, rest);
		n->ns[FS_JS_RUNQ] += w;
		n->since_ns = now;
	}
	n->state = FS_JS_ONCPU;
	n->exec_ns = next->se.sum_exec_runtime; /* it does not run off a CPU */
	n->iowait = 0;
	n->meta = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fs_js_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* Most switches are of threads not followed: find first, and read the
	 * clock and the state only for ours. Fields are read directly (tp_btf
	 * gives typed pointers; CO-RE relocates them), not through the
	 * probe-read helper. */
	__u64 clock = switch_clock(prev), now = 0;
	struct fs_js_thread *p = find(prev->pid);
	if (p && p->state != FS_JS_DEAD) {
		now = clock ? clock : bpf_ktime_get_ns();
		/* prev's execution and wait are up to date here (put_prev_task,
		 * its last arrival) */
		__u64 exec = prev->se.sum_exec_runtime, delay = prev->sched_info.run_delay;
		write_begin(p);
		if (p->state != FS_JS_ONCPU && p->state < FS_JS_NSTATES)
			seen_late(p, now, exec, delay);
		account(p, now, exec);
		p->delay_ns = delay;
		p->state = fs_js_classify(prev->__state, preempt);
		p->iowait = p->state != FS_JS_RUNQ && BPF_CORE_READ_BITFIELD(prev, in_iowait);
		p->meta = p->state == FS_JS_BLOCKED ? in_meta_call(prev) : 0;
		copy_io(p, prev);
		write_end(p);
	}
	struct fs_js_thread *n = find(next->pid);
	if (n && n->state != FS_JS_DEAD) {
		write_begin(n);
		switched_in(n, next, now ? now : clock ? clock : bpf_ktime_get_ns(), clock != 0);
		write_end(n);
	}
	return 0;
}

/* Every FS_JS_SAMPLE_NS on each CPU (a perf event userspace attaches it
 * to once a switch in has been found unseen, jobbpfsample.c): the CPU's
 * current thread, when it is followed and its record says it is off a CPU,
 * had its switch in unseen; put it on the CPU (seen_late), so that a
 * thread that then runs without leaving its CPU is not read asleep until
 * it does. Its execution is as of the last scheduler tick (a tick of it
 * may count as the state it was in). */
SEC("perf_event")
int fs_js_sample(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fs_js_thread *t = find(task->pid);
	if (!t || t->state >= FS_JS_NSTATES || t->state == FS_JS_ONCPU)
		return 0;
	write_begin(t);
	seen_late(t, event_clock(task), task->se.sum_exec_runtime, task->sched_info.run_delay);
	copy_io(t, task);
	write_end(t);
	return 0;
}

/* Nothing, at the same switches: loaded only while the programs' run time
 * is counted (--bpf-stats), its time a run is what the counting adds to
 * each (the kernel's clock reads around a program), which userspace takes
 * off the others' (jobbpf.c). */
SEC("tp_btf/sched_switch")
int BPF_PROG(fs_js_floor)
{
	return 0;
}

/* A new thread or process of a tracked process: tracked from its birth. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fs_js_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid;
	if (!bpf_map_lookup_elem(&tgids, &ptgid))
		return 0;
	__u32 tgid = child->tgid, tid = child->pid, one = 1;
	/* a new process not followed (the map is full): its forks would be
	 * lost, which userspace's walks then look for */
	if (tgid != ptgid && bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY) < 0)
		__sync_fetch_and_add(&dropped, 1);
	__u32 slot;
	if (bpf_map_pop_elem(&free_slots, &slot) != 0 &&
	    (slot = __sync_fetch_and_add(&next_slot, 1)) >= FS_JS_MAX_THREADS) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	struct fs_js_thread *t = bpf_map_lookup_elem(&slots, &slot);
	if (!t)
		return 0;
	__u64 now = event_clock(child);
	write_begin(t);
	t->tgid = tgid;
	t->tid = tid;
	t->iowait = 0;
	t->execs = 0;
	t->start_ns = t->since_ns = now;
	t->exec_ns = 0;
	t->delay_ns = 0; /* a new task's sched_info starts at 0 */
	t->iowait_ns = 0;
	t->meta = 0;
	t->meta_ns = 0;
	for (int i = 0; i < FS_JS_NSTATES; i++)
		t->ns[i] = 0;
	for (int i = 0; i < FS_JS_NIO; i++)
		t->io[i] = 0;
	copy_io(t, child); /* a new task's counters start at 0 */
	for (int i = 0; i < FS_JS_NIO; i++)
		t->io0[i] = t->io[i];
	t->state = FS_JS_RUNQ;
	write_end(t);
	__u16 *e = tid_entry(tid);
	if (e) {
		*e = slot + 1;
	} else { /* a tid above pid_max as it was at the load */
		t->state = FS_JS_FREE;
		bpf_map_push_elem(&free_slots, &slot, 0);
		__sync_fetch_and_add(&dropped, 1);
	}
	return 0;
}

/* A new program: userspace reads the process's stat at its next tick. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(fs_js_exec, struct task_struct *p)
{
	struct fs_js_thread *t = find(p->pid);
	if (t)
		__sync_fetch_and_add(&t->execs, 1);
	return 0;
}

/* The thread's totals become final; userspace reads them once more, then
 * deletes the entry. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(fs_js_exit, struct task_struct *p)
{
	__u32 tid = p->pid;
	struct fs_js_thread *t = find(tid);
	if (!t || t->state == FS_JS_DEAD)
		return 0;
	__u64 now = event_clock(p), exec = p->se.sum_exec_runtime;
	write_begin(t);
	if (t->state != FS_JS_ONCPU && t->state < FS_JS_NSTATES) /* it runs this */
		seen_late(t, now, exec, p->sched_info.run_delay);
	/* its execution as last counted (a tick ago at most: that part goes
	 * to RUNQ) */
	account(t, now, exec);
	copy_io(t, p); /* final: __exit_signal adds them to the process's own */
	t->state = FS_JS_DEAD;
	t->iowait = 0;
	t->meta = 0;
	write_end(t);
	__u16 *e = tid_entry(tid);
	if (e)
		*e = 0; /* the slot stays until userspace has read it */
	return 0;
}
