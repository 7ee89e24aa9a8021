/* job_int.h - the job source's state, shared by job.c (ticks, rates, rows)
 * and jobproc.c (finding the processes and reading them). Private to them. */
#ifndef FS_SOURCE_JOB_INT_H
#define FS_SOURCE_JOB_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "source/cgroup.h"
#include "source/jobstates.h"
#include "source/procstat.h"
#include "source/rankenv.h"
#include "source/source.h"
#include "util/pfile.h"

/* A thread whose schedstat has not moved since its stat was read has not
 * been on a CPU since, so its state and blkio ticks are as they were; its
 * stat (the costly file) is then re-read only this often. The one change
 * missed meanwhile: woken but not yet run (R shows as the old S or D). */
#define JOB_STAT_REFRESH_NS 1000000000ull

/* BPF path: a process's stat and io (~25 us for a 20-thread process: the
 * kernel sums over its threads) are read this often; the rows between hold
 * the rates of the last such interval. cpu_pct and the thread states come
 * from the BPF map every tick. */
#define JOB_BPF_SLOW_NS 1000000000ull

/* A process's smaps_rollup is read at most once a second: the kernel walks
 * every page the process maps to write it (measured: 5-10 ms of CPU for a
 * PyTorch process of 300-400 MiB resident, 20-30 us per resident MiB),
 * where stat costs 3 us. The period follows the job's resident total: every
 * (its resident MiB) x NS_PER_MIB, within [REFRESH, MAX_REFRESH]. With
 * --pss (FS_PSS_EVERY) 1 ms a MiB, at most 10 s: near 3% of a core however
 * big the job. By default (FS_PSS_BOUNDED) 2 ms a MiB, at most 10 s: about
 * 1.5% of a core while every process's memory moves; and a process whose
 * minor and major faults and resident pages have not moved since its last
 * read (nothing of its own was mapped, copied or freed) is read again only
 * every 30 s: what changes it then is its sharers (a sibling's copy of a
 * page they shared), or a new child (then it is read at once). Rows
 * between two reads repeat the last one. */
#define JOB_PSS_REFRESH_NS 1000000000ull
#define JOB_PSS_MAX_REFRESH_NS 10000000000ull
#define JOB_PSS_NS_PER_RESIDENT_MIB 1000000ull
#define JOB_PSS_BOUNDED_MAX_REFRESH_NS 30000000000ull
#define JOB_PSS_BOUNDED_MOVING_MAX_NS 10000000000ull
#define JOB_PSS_BOUNDED_NS_PER_RESIDENT_MIB 2000000ull

/* One thread of a job process. Its descriptors are kept open (pread each
 * tick) while the budget allows, otherwise opened and closed per read. */
struct jthread {
	int tid;
	bool kept;                       /* holds descriptors counted in the budget */
	int stat_fd, sched_fd, child_fd; /* -1: not open */
	bool prev_sched, prev_blkio;     /* sched / blkio_ticks are from the last tick */
	struct fs_schedstat sched;
	uint64_t blkio_ticks;
	char state;                      /* from the last stat read; 0: none yet */
	bool in_meta;                    /* state D inside a metadata call, as last read */
	uint64_t starttime;              /* clock ticks since boot */
	uint64_t stat_ns;                /* when stat was last read */
};

/* What one tick read of a process (filled by job_proc_read). */
struct jtick {
	struct fs_pstat st;
	struct fs_pcounters cur;
	int nread;                                 /* thread entries read */
	int running, blocked_io, sleeping, other;
	int blocked_meta;                          /* of blocked_io, inside a metadata call */
	bool any_sched, any_blkio;                 /* some thread delta was summed */
	double wait_ns, blkio_ticks;               /* sums of per-thread deltas */
	bool born;                                 /* started after the previous tick */
	bool have_js;                              /* BPF path: js holds interval means */
	struct fs_js_columns js;
};

/* A process's environment as last read for the `ranks` table (jobranks.c):
 * the program image it was read for, and the rank values it gave. */
struct jenv {
	bool read;             /* read (or tried) for the image below */
	uint8_t reads;         /* reads so far; at most JOB_ENV_MAX_READS */
	char comm[64];         /* the image: stat's comm, env_start and env_end */
	uint64_t start, end;
	bool emitted;          /* a ranks row of this process holds `last` */
	struct fs_rankenv last;
};

/* BPF path: where a process's I/O counters come from. */
enum job_io_src {
	JOB_IO_UNSET = 0, /* not read yet */
	JOB_IO_PROC,      /* /proc/PID/io each tick (job_io_unchanged skips some) */
	JOB_IO_SEEDING,   /* /proc/PID/io read once; its threads are being seeded */
	JOB_IO_BPF,       /* the growth of its threads' counters (jobbpf.c), after the first read */
};

struct jproc {
	int pid;
	int task_fd, stat_fd, io_fd; /* -1: not open */
	struct jthread *th;          /* sorted by tid */
	int nth, cap;
	bool have_prev;              /* prev holds the counters read at prev_ns */
	uint64_t prev_ns;
	struct fs_pcounters prev;
	int cg_cpu, cg_mem;          /* fs_cgset indexes, -1: none */
	uint64_t cg_ns;              /* when /proc/PID/cgroup was last read */
	uint32_t tried, ok;          /* tick generation last tried / read fine */
	bool member;                 /* full-scan mode: its parent chain reaches the job */
	struct jtick now;
	struct jenv env;
	bool pss_read;               /* smaps_rollup read (or tried) at pss_ns */
	uint64_t pss_ns;
	struct fs_psmaps pss;        /* what that read gave */
	uint64_t pss_moves;          /* minflt + majflt + rss pages at that read */
	bool seen;                   /* BPF path: its threads seeded, its pid tracked */
	bool from_fork;              /* BPF path: followed from its fork, every thread of it too */
	bool have_slow;              /* BPF path: stat and io read at slow_ns into slow_prev */
	uint32_t execs;              /* job_bpf_proc.execs at that read */
	uint64_t slow_ns;
	struct fs_pstat slow_st;
	struct fs_pcounters slow_prev;
	struct fs_prates slow_rates; /* over the last two such reads (NaN: none yet) */
	int last_ppid;               /* its parent at its last row */
	bool have_reaped;            /* children of it left in this interval: */
	struct fs_pio reaped;        /* their last counters (fs_pio_unreap) */
	enum job_io_src io_src;      /* BPF path: where its I/O counters come from */
	struct fs_pio bpf_io;        /* JOB_IO_BPF: its counters, summed from its threads' */
};

/* A directory entry with a numeric name. */
struct jdent {
	int id;
	int ppid;     /* full scan: the parent, -1 unknown */
	uint64_t ino;
	bool mark;    /* full scan: belongs to the job */
};

struct job_state {
	struct fs_paths paths;
	int root;
	bool adopt;
	int self_pid;              /* <proc>/self, for adopted children; -1 unknown */
	bool use_children;         /* task/TID/children files exist */
	int proc_fd;               /* <proc> */
	long clk_tck;
	uint64_t page_bytes;

	struct jproc *procs;       /* the job's processes; procs[i] indexes change */
	int nprocs, capprocs;
	struct jproc self;         /* feedscope's threads, for their children */
	int *queue;                /* pids to visit this tick */
	int nqueue, capqueue;
	struct jthread *scratch;
	int capscratch;
	struct jdent *dents;       /* one directory listing */
	int ndents, capdents;
	struct jdent *scan;        /* last full /proc scan, sorted by pid */
	int nscan, capscan;
	char *dbuf;                /* getdents64 buffer */
	size_t dbuf_len;
	struct fs_buf buf;

	int kept_threads, max_kept_threads;
	uint32_t gen;
	const struct fs_source_ctx *ctx; /* during sample() */
	bool have_tick;
	uint64_t prev_tick_ns;
	bool have_scan;
	uint64_t scan_ns;

	struct fs_pfile uptime;
	uint32_t uptime_gen;       /* tick in which uptime_s was read */
	double uptime_s;           /* NaN: unreadable */
	struct fs_pfile delayacct;
	int delayacct_on;          /* -1 not yet read */
	uint64_t delayacct_ns;
	bool said_io, said_fds, said_env, said_pss, said_meta;
	bool meta_off;                   /* proc path: a syscall file could not be read: blocked_meta NULL */
	int pss;                   /* read smaps_rollup: FS_PSS_* (fs_job.pss) */
	char *envbuf;              /* FS_RANKENV_CAP bytes, wiped after each use */
	struct fs_cgset cg;
	int *pub;                  /* the pids published to other sources (fs_job.pids) */
	int cap_pub;
	struct fs_job *published;  /* where they were published */
	struct job_bpf *bpf;       /* the BPF path's state, NULL: the /proc path */
	bool have_walk;            /* BPF path: children files walked at walk_ns */
	bool bpf_whole;            /* BPF path, at the last walk: no thread dropped, no event missed */
	uint64_t walk_ns;
};

/* jobproc.c */

/* Prepare p for pid: open its directory's files. Returns false when the
 * process is gone (p is then left closed). */
bool job_proc_open(struct job_state *s, struct jproc *p, int pid);
/* Read p's cgroups again when JOB_CG_RECHECK_NS have passed since the
 * last read (a process moved into another cgroup: a launcher that joins
 * the job's cgroup and then execs, a runtime's shim): its rows go to the
 * new one from then on. */
#define JOB_CG_RECHECK_NS 1000000000ull
void job_proc_cgroup(struct job_state *s, struct jproc *p, uint64_t now_ns);

/* Close every descriptor of p and free its threads. */
void job_proc_close(struct job_state *s, struct jproc *p);

/* Read p's stat, io and every thread listed in its task directory into
 * p->now; with children files, queue the children of its threads. Returns
 * false when the process is gone (no thread could be read). */
bool job_proc_read(struct job_state *s, struct jproc *p);

/* Read p's smaps_rollup into p->pss (its figures absent when it cannot be
 * read; a reason other than the process having exited is said once, in
 * meta job.pss). */
void job_proc_read_pss(struct job_state *s, struct jproc *p);

/* Queue the children of this process's own threads (adopted orphans). */
void job_self_children(struct job_state *s);

/* Without children files: list <proc> and add every process whose parent
 * chain leads into the job to the table (reading only new pids' stat).
 * Returns false on a failed listing. */
bool job_full_scan(struct job_state *s);

/* The table entry for pid, or NULL. */
struct jproc *job_find(struct job_state *s, int pid);

/* A new table entry for pid (opened), or NULL when it is gone or out of memory. */
struct jproc *job_add(struct job_state *s, int pid);

/* Append pid to the visit queue (ignored on out of memory). */
void job_queue(struct job_state *s, int pid);

/* Read dirfd/<id>/<name> with open+read+close (<= 0: gone or empty). */
ssize_t job_read_rel(struct job_state *s, int dirfd, int id, const char *name);

/* Count a thread in state (a /proc letter) into k's state counts. */
void job_count_state(struct jtick *k, char state);

/* Read p's io into p->now.cur (have_io false when it cannot be read). */
void job_read_io(struct job_state *s, struct jproc *p);

/* List p's threads into p->th (known ones kept). False: gone or out of memory. */
bool job_list_threads(struct job_state *s, struct jproc *p);

/* Queue the children of p's thread t (its children file kept open). */
void job_thread_children(struct job_state *s, struct jproc *p, struct jthread *t);

/* jobbpfread.c */

/* BPF path: read p's stat and io (not its threads: their states come from
 * the BPF map); the first time, seed its threads' states from their stat and
 * track its pid; with walk, queue the children of its threads. Returns
 * false when the process is gone. */
bool job_proc_read_bpf(struct job_state *s, struct jproc *p, bool walk);

/* jobbpf.c: the BPF program and its maps. Never fatal: a failure leaves
 * the /proc path. */

/* One process's sums over the interval ending at the last read. */
struct job_bpf_proc {
	int tgid;                      /* 0: empty slot */
	int threads;                   /* alive at the read */
	int counts[FS_JS_NSTATES];     /* of which in each state at the read */
	uint32_t execs;                /* programs its threads have run (exec), summed */
	struct fs_js_totals sum;       /* its threads' time in each state, this interval */
	struct fs_pio io;              /* its threads' I/O counters' growth, this interval */
	bool ran;                      /* a thread of it was on a CPU or runnable in the interval, or is new */
	uint64_t born_ns;              /* its fork (CLOCK_MONOTONIC) where its main thread was followed from it
	                                * (then every thread it made since was too), else 0 */
};

struct job_bpf;

/* Load and attach the program and track root; count: --bpf-stats (count
 * the programs' run time for the run: jobbpfcost.c). NULL with the reason
 * in why. */
struct job_bpf *job_bpf_open(int root, bool count, char *why, size_t whylen);
void job_bpf_close(struct job_bpf *b);
/* Follow tgid's threads and its forks / stop following it. */
void job_bpf_track(struct job_bpf *b, int tgid);
void job_bpf_untrack(struct job_bpf *b, int tgid);
/* Why the threads' I/O counters are not read from the program (then each
 * process's /proc/PID/io is); NULL: they are. */
const char *job_bpf_io_why(const struct job_bpf *b);
/* Why blocked threads' system calls are not classed by the program (then
 * the proc column blocked_meta is NULL); NULL: they are. */
const char *job_bpf_meta_why(const struct job_bpf *b);
/* Follow a thread the kernel did not see fork, in the state its stat's
 * letter says since now_ns; exec_ns and delay_ns: its execution and wait
 * on a runqueue so far (schedstat; ~0 where not read); io: its I/O
 * counters now (task/TID/io, read before this call; NULL: not read), from
 * which its growth is counted. Returns whether the thread is followed
 * (seeded here or by the kernel at its fork); false: no slot was free. */
bool job_bpf_seed(struct job_bpf *b, int tgid, int tid, char state, uint64_t now_ns, uint64_t exec_ns,
		  uint64_t delay_ns, const struct fs_pio *io);
/* Read every tracked thread (from the mapped array) at now_ns and sum each
 * process's deltas since the last read. */
void job_bpf_read(struct job_bpf *b, uint64_t now_ns);
/* The processes of the last read (the array is the module's). */
int job_bpf_tgids(const struct job_bpf *b, const int **out);
/* tgid's sums in the last read, or NULL. */
const struct job_bpf_proc *job_bpf_find(const struct job_bpf *b, int tgid);
/* The interval the last read closed (0 after the first). */
uint64_t job_bpf_dt_ns(const struct job_bpf *b);
/* Threads never accounted because the map was full. */
uint64_t job_bpf_dropped(const struct job_bpf *b);
/* Switch-ins the programs did not see (found later: at the thread's
 * switch out or exit; its stretch split then). */
uint64_t job_bpf_unseen_in(const struct job_bpf *b);
/* jobbpfcost.c: the programs' cost as the kernel counts it. runs and
 * run_ns: the job source's programs' (counted only while the kernel's
 * statistics are on: --bpf-stats, or kernel.bpf_stats_enabled=1 set
 * outside); floor_*: an empty program's at the same switches (loaded with
 * --bpf-stats: its time a run is what the counting adds to each run);
 * missed: the events the kernel did not run them for (always counted: a
 * program of ours already running on that CPU). */
struct job_bpf_cost {
	uint64_t runs, run_ns, floor_runs, floor_ns, missed;
};
void job_bpf_cost(const struct job_bpf *b, struct job_bpf_cost *out);
/* Why --bpf-stats could not count the run time (the module's string);
 * NULL: it counts it, or was not given. */
const char *job_bpf_count_why(const struct job_bpf *b);
/* jobbpfsample.c: when the per-CPU check for switch-ins not seen started
 * (CLOCK_MONOTONIC; 0: it did not: none was seen, or *why says why it
 * could not; *why is the module's). */
uint64_t job_bpf_sample_since(const struct job_bpf *b, const char **why);
/* The cost in meta: job.bpf_prog (runs and time, or how to count them),
 * job.bpf_cpu_s (seconds in the kernel, less the counting's own, where
 * counted: the run's summary adds it to the recorder's CPU), job.bpf_missed. */
void job_bpf_cost_meta(const struct job_bpf *b, struct fs_sink *sink);

/* jobranks.c */

/* Write p's `ranks` row if its environment, read once per program image,
 * carries rank variables that differ from its last row. p must have been
 * read fine this tick; its parent must be in the job (else nothing is read
 * now). A permission error is said once in meta job.ranks. Never fails. */
void job_ranks_sample(struct job_state *s, const struct fs_source_ctx *ctx, struct jproc *p);

/* job.c */

/* Whether a task that started at `starttime` (clock ticks since boot) started
 * after the previous tick; reads <proc>/uptime at most once per tick. */
bool job_born_in_interval(struct job_state *s, uint64_t starttime);

#endif
