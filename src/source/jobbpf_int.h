/* jobbpf_int.h - what the job source's BPF path (jobbpf.c, jobbpfcost.c)
 * shares inside itself: the loaded program and what was last read of it.
 * Only where the program is built (FS_HAVE_BPF). */
#ifndef FS_SOURCE_JOBBPF_INT_H
#define FS_SOURCE_JOBBPF_INT_H

#include "source/job_int.h"

#include "jobstates.skel.h"

/* A slot as last read: whose it was and its totals then. */
struct jb_prev {
	uint32_t tid;
	uint64_t start_ns;
	struct fs_js_totals tot; /* what has been counted (fs_js_totals_mark) */
	uint64_t run_ns;         /* on a CPU + runnable as read last time, unmarked */
	__u64 io[FS_JS_NIO];     /* its I/O counters as read last time */
};

struct job_bpf {
	struct fs_jobstates *skel;
	int tgids_fd, free_fd;
	struct fs_js_thread *slots; /* the mapped array */
	size_t slots_len;
	uint16_t *tids;             /* the mapped `tids`: slot + 1 by tid */
	size_t tids_len;
	uint32_t ntids;             /* tids it holds (pid_max at the load, rounded up) */
	struct fs_js_cal *cal;      /* a read of `cal`: one a possible CPU */
	int ncpus, cal_fd;
	uint64_t offset_ns;         /* CLOCK_MONOTONIC - the records' clock, as last read */
	struct jb_prev *prev;       /* by slot */
	bool *seeded;               /* by slot: taken by job_bpf_seed, not by the kernel at a fork */
	struct job_bpf_proc *procs; /* this read's processes, by tgid (open addressing) */
	uint32_t capprocs;
	int *tgids;                 /* the same tgids, as a list */
	uint32_t *used;             /* and the slots they are in */
	int ntgids;
	bool have_prev;
	uint64_t prev_ns, dt_ns;
	char io_why[160];     /* why the threads' I/O counters are not used; "" when they are */
	char meta_why[240];   /* why blocked threads' calls are not classed; "" when they are */
	struct bpf_link **sample_links; /* fs_js_sample on each CPU's clock, once started */
	int nsample_links;
	uint64_t sample_since_ns;      /* when it started (CLOCK_MONOTONIC), 0 */
	char sample_why[200];          /* why it could not start; "" */
	bool count;           /* --bpf-stats: count the programs' run time, fs_js_floor loaded */
	int stats_fd;         /* BPF_ENABLE_STATS's, held while counting; -1 */
	char stats_why[200];  /* why --bpf-stats could not count; "" */
};

/* --bpf-stats, after the load: count the programs' run time until
 * job_bpf_count_close (the kernel's statistics, held by a descriptor: the
 * sysctl is not written, and they go back off when feedscope exits however
 * it exits); b->stats_why says why not. */
void job_bpf_count_open(struct job_bpf *b);
void job_bpf_count_close(struct job_bpf *b);

/* jobbpfsample.c: once a switch in has been found unseen (unseen_in),
 * attach fs_js_sample to a clock on each CPU (at most once; b->sample_why
 * says why it could not); and detach it. */
void job_bpf_sample_check(struct job_bpf *b, uint64_t now_ns);
void job_bpf_sample_close(struct job_bpf *b);


#endif
