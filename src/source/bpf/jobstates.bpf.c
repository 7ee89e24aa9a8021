/* jobstates.bpf.c - time each thread of the job spends running, waiting for
 * a CPU, sleeping, blocked (D) and otherwise, accounted at each change of
 * state instead of sampled: the job source (jobbpf.c) reads the `slots`
 * array once a tick, from memory it maps. Only threads of tracked processes
 * (`tgids`, filled from userspace with the job's root, followed here at
 * fork) are kept.
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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FS_JS_MAX_THREADS);
	__type(key, __u32);   /* tid */
	__type(value, __u32); /* its slot */
} tids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK); /* the last freed is reused first: slots stay low */
	__uint(max_entries, FS_JS_MAX_THREADS);
	__type(value, __u32);
} free_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} tgids SEC(".maps");

__u32 next_slot = 0; /* slots below it have been used */
/* Threads of tracked processes that found no slot: never accounted. */
__u64 dropped = 0;

static __always_inline struct fs_js_thread *find(__u32 tid)
{
	if (tid == 0) /* a CPU's idle task: half of all switches on a machine with idle time */
		return NULL;
	__u32 *slot = bpf_map_lookup_elem(&tids, &tid);
	return slot ? bpf_map_lookup_elem(&slots, slot) : NULL;
}

/* Close the thread's current interval at now. */
static __always_inline void account(struct fs_js_thread *t, __u64 now)
{
	if (t->state >= FS_JS_NSTATES || now <= t->since_ns)
		return;
	__u64 d = now - t->since_ns;
	t->ns[t->state & 7] += d;
	if (t->iowait)
		t->iowait_ns += d;
	t->since_ns = now;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fs_js_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/* Most switches are of threads not followed: find first, and read the
	 * clock and the state only for ours. Fields are read directly (tp_btf
	 * gives typed pointers; CO-RE relocates them), not through the
	 * probe-read helper. */
	__u64 now = 0;
	struct fs_js_thread *p = find(prev->pid);
	if (p && p->state != FS_JS_DEAD) {
		now = bpf_ktime_get_ns();
		account(p, now);
		p->state = fs_js_classify(prev->__state, preempt);
		p->iowait = p->state != FS_JS_RUNQ && BPF_CORE_READ_BITFIELD(prev, in_iowait);
	}
	struct fs_js_thread *n = find(next->pid);
	if (n && n->state != FS_JS_DEAD) {
		account(n, now ? now : bpf_ktime_get_ns());
		n->state = FS_JS_ONCPU;
		n->iowait = 0;
	}
	return 0;
}

static __always_inline void woken(struct task_struct *task)
{
	struct fs_js_thread *t = find(task->pid);
	/* A wakeup of a thread still on its CPU (it set itself to sleep and
	 * was woken before it switched out: a timer, a futex) leaves it on the
	 * CPU: counting it runnable from here would move its time on the CPU
	 * to waiting for one until its next switch. */
	if (!t || t->state == FS_JS_DEAD || t->state == FS_JS_ONCPU)
		return;
	account(t, bpf_ktime_get_ns());
	t->state = FS_JS_RUNQ;
	t->iowait = 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(fs_js_wakeup, struct task_struct *p)
{
	woken(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(fs_js_wakeup_new, struct task_struct *p)
{
	woken(p);
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
	if (tgid != ptgid)
		bpf_map_update_elem(&tgids, &tgid, &one, BPF_ANY);
	__u32 slot;
	if (bpf_map_pop_elem(&free_slots, &slot) != 0 &&
	    (slot = __sync_fetch_and_add(&next_slot, 1)) >= FS_JS_MAX_THREADS) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	struct fs_js_thread *t = bpf_map_lookup_elem(&slots, &slot);
	if (!t)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	t->tgid = tgid;
	t->tid = tid;
	t->iowait = 0;
	t->execs = 0;
	t->start_ns = t->since_ns = now;
	t->iowait_ns = 0;
	for (int i = 0; i < FS_JS_SLOTS; i++)
		t->ns[i] = 0;
	t->state = FS_JS_RUNQ;
	if (bpf_map_update_elem(&tids, &tid, &slot, BPF_ANY) < 0) {
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
	account(t, bpf_ktime_get_ns());
	t->state = FS_JS_DEAD;
	t->iowait = 0;
	bpf_map_delete_elem(&tids, &tid); /* the slot stays until userspace has read it */
	return 0;
}
