/* jobstates.h - what the BPF program (jobstates.bpf.c) and the job source
 * (jobbpf.c) share: the per-thread record of time spent in each state.
 * Included by both sides; only fixed-width kernel types. */
#ifndef FS_SOURCE_BPF_JOBSTATES_H
#define FS_SOURCE_BPF_JOBSTATES_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The states a thread's time is split into. ONCPU + RUNQ is /proc's R,
 * SLEEP its S and I, BLOCKED its D, OTHER the rest (T, t, Z, P...). DEAD:
 * the thread has exited; its totals are final and nothing accrues. */
enum {
	FS_JS_ONCPU = 0,
	FS_JS_RUNQ = 1,    /* runnable, waiting for a CPU (schedstat's wait) */
	FS_JS_SLEEP = 2,
	FS_JS_BLOCKED = 3,
	FS_JS_OTHER = 4,
	FS_JS_NSTATES = 5, /* states time accrues in */
	FS_JS_DEAD = 5,
	FS_JS_FREE = 6,    /* a slot of no thread (recycled by userspace) */
};

/* A thread's I/O counters (task->ioac, what /proc/PID/io sums over a
 * process's threads): io[] in struct fs_js_thread. */
enum {
	FS_JS_IO_RCHAR = 0,
	FS_JS_IO_WCHAR = 1,
	FS_JS_IO_READ_BYTES = 2,
	FS_JS_IO_WRITE_BYTES = 3,
	FS_JS_NIO = 4,
};

/* Threads followed at most: the `slots` array (memory-mapped, read by
 * userspace without a system call), which the `tids` array points into by
 * tid (slot + 1 in a __u16). */
#define FS_JS_MAX_THREADS 8192
/* Tids an element of `tids` holds (__u16 each in a __u64). */
#define FS_JS_TIDS_PER 4
/* System call numbers the `meta_sys` map holds (metacalls.h: FS_METACALL_MAX). */
#define FS_JS_MAX_SYSCALL 1024
/* Processes followed at most (the `tgids` hash). */
#define FS_JS_MAX_PROCS 4096

/* A thread whose record has said it is on a CPU for this long has its open
 * stretch split at a read by its execution as task/TID/schedstat gives it
 * (jobbpf.c): a scheduler tick's worth. */
#define FS_JS_SETTLE_NS 4000000ULL

/* A CPU's offset of CLOCK_MONOTONIC from the runqueues' clock, rq->clock
 * (jobstates.bpf.c: `cal`), as read together at clock_ns, at a switch on
 * it, every FS_JS_CAL_NS. */
struct fs_js_cal {
	__u64 clock_ns;
	__u64 offset_ns; /* CLOCK_MONOTONIC - rq->clock, modulo 2^64 */
};
#define FS_JS_CAL_NS 50000000ULL

/* The period of the per-CPU check for switch-ins not seen (fs_js_sample),
 * where there are any. */
#define FS_JS_SAMPLE_NS 20000000ULL

/* An element of the `slots` array, found by tid through `tids`. ns[s] is
 * the time spent in s up to since_ns; the thread has been in `state` since
 * since_ns (start_ns and since_ns in the runqueues' clock, rq->clock:
 * CLOCK_MONOTONIC less the offset in `cal`; CLOCK_MONOTONIC itself where
 * the kernel has no rq->clock to reach). iowait_ns: the part of SLEEP and
 * BLOCKED spent in io_schedule (task->in_iowait: delay accounting's blkio
 * delay, without its runnable tail). start_ns tells a reused tid apart;
 * execs tells userspace that the process's stat (its comm, its
 * environment's place) is worth reading now.
 * ONCPU holds the time the kernel counts as the thread's execution
 * (se.sum_exec_runtime, exec_ns its value at since_ns): the rest of a
 * stretch on a CPU, the time the hypervisor took the virtual CPU (steal)
 * or interrupts held it, is RUNQ: runnable, not running. Both are settled
 * when the thread leaves the CPU and at its exit; a reader splits a longer
 * open stretch itself (FS_JS_SETTLE_NS). The wait on a runqueue before a
 * switch in is RUNQ, told at the switch in by the kernel's sched_info.
 * delay_ns: the kernel's count of the thread's time waiting on a runqueue
 * (sched_info.run_delay) at its last switch out (~0: not known, a seeded
 * thread). With exec_ns it splits a stretch whose switch in was not seen
 * (jobstates.bpf.c, seen_late).
 * io: the thread's I/O counters (task->ioac) as copied at its last switch
 * out and at its exit: the kernel adds to them only in the thread's own
 * context (its system calls, the pages it reads in or dirties), so a thread
 * off its CPU has them whole; a reader reads those of one on a CPU for
 * longer than FS_JS_SETTLE_NS from task/TID/io. io0: their value when it was first
 * followed (0 from a fork; what task/TID/io said when userspace seeded it),
 * so that io - io0 is what it did while followed.
 * meta_ns: the part of BLOCKED spent inside a metadata system call (open,
 * stat, readdir, close...: metacalls.h), the call's number read from the
 * thread's saved registers when it switched out blocked and looked up in
 * the `meta_sys` map (only when the program was loaded with meta_on).
 * seq: odd while the program writes the record (a reader copies it between
 * two equal even values). */
struct fs_js_thread {
	/* what a switch of the thread writes, in the first two cache lines */
	__u32 seq;
	__u32 state;
	__u32 iowait;  /* the current state is an I/O wait */
	__u32 meta;    /* the current state is BLOCKED inside a metadata call */
	__u64 since_ns;
	__u64 exec_ns;
	__u64 delay_ns;
	__u64 iowait_ns;
	__u64 meta_ns;
	__u64 ns[FS_JS_NSTATES];
	__u64 io[FS_JS_NIO];
	/* written at its fork */
	__u32 tgid;
	__u32 tid;
	__u32 execs;   /* programs it has run (exec) since it was followed */
	__u32 unused;
	__u64 start_ns;
	__u64 io0[FS_JS_NIO];
} __attribute__((aligned(64)));

/* How much a kernel counter of the thread's (se.sum_exec_runtime,
 * sched_info.run_delay) grew from then to now, at most cap (the stretch it
 * is a part of); 0 where it did not grow. The BPF programs and userspace's
 * reader split a stretch by it alike. */
static inline __u64 fs_js_grown(__u64 now, __u64 then, __u64 cap)
{
	__u64 g = now > then ? now - then : 0;
	return g < cap ? g : cap;
}

/* The state a thread that leaves a CPU goes to, from task->__state (and
 * whether it was preempted: then it stays runnable), as /proc's state
 * letter would read it (fs/proc/array.c, task_state_index). */
static inline __u32 fs_js_classify(__u32 task_state, int preempted)
{
	if (preempted || task_state == 0)
		return FS_JS_RUNQ;
	if ((task_state & 0x402) == 0x402) /* TASK_IDLE = UNINTERRUPTIBLE | NOLOAD: 'I' */
		return FS_JS_SLEEP;
	__u32 report = task_state & 0x7f;  /* TASK_REPORT; its highest bit is the letter */
	if (report & ~3u)
		return FS_JS_OTHER;            /* stopped, traced, dead, zombie, parked */
	if (report & 2)
		return FS_JS_BLOCKED;
	if (report & 1)
		return FS_JS_SLEEP;
	if (task_state & 0x1000)           /* TASK_RTLOCK_WAIT reads as 'D' */
		return FS_JS_BLOCKED;
	return FS_JS_OTHER;                /* TASK_DEAD and the like */
}

#endif
