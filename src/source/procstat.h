/* procstat.h - parsers for /proc/PID/stat, /proc/PID/io and schedstat, and
 * the pure functions that turn two readings into the job source's rates. */
#ifndef FS_SOURCE_PROCSTAT_H
#define FS_SOURCE_PROCSTAT_H

#include <stdbool.h>
#include <stdint.h>

/* The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) the job source uses. */
struct fs_pstat {
	int pid;
	char comm[64];         /* between the first '(' and the LAST ')' */
	char state;            /* R, S, D, I, T, t, Z, X, P, W, ... */
	int ppid;
	uint64_t minflt;       /* field 10: faults served without I/O (copy-on-write
	                        * copies, first touches of anonymous pages) */
	uint64_t majflt;       /* field 12 */
	uint64_t utime, stime; /* fields 14, 15: clock ticks */
	int64_t num_threads;   /* field 20 */
	uint64_t starttime;    /* field 22: clock ticks since boot */
	int64_t rss_pages;     /* field 24 */
	bool have_blkio;       /* field 42 present (kernel >= 2.6.18) */
	uint64_t blkio_ticks;  /* field 42: delayacct_blkio_ticks */
	uint64_t env_start, env_end; /* fields 50, 51: where the environment lies; 0 when
	                              * absent or hidden (no ptrace access to the process) */
};

/* Parse one stat line. comm is found by the last ')' so that a process named
 * "a) b (c" parses. Returns false when the line is cut before field 24 (rss)
 * or malformed; field 42 is optional (have_blkio). */
bool fs_pstat_parse(const char *text, struct fs_pstat *out);

/* The four byte counters of /proc/PID/io. */
struct fs_pio {
	uint64_t rchar, wchar, read_bytes, write_bytes;
};

/* Parse /proc/PID/io. Returns false unless all four keys are there. */
bool fs_pio_parse(const char *text, struct fs_pio *out);

/* Add x to sum, counter by counter. */
void fs_pio_add(struct fs_pio *sum, const struct fs_pio *x);

/* A parent's /proc/PID/io grows by all of a child's (its own and what it
 * reaped in turn) when the parent reaps it (wait_task_zombie adds them, as
 * it adds the child's CPU time to cutime). Take `reaped`, the last counters
 * read of children that left in the interval, back out of cur, counter by
 * counter, where the growth from prev holds it (a child reaped by another
 * process, or by the kernel under SIGCHLD ignored, added nothing: then the
 * growth is smaller and nothing is taken). */
void fs_pio_unreap(struct fs_pio *cur, const struct fs_pio *prev, const struct fs_pio *reaped);

/* What /proc/PID/smaps_rollup (kernel 4.14+) says of a process's memory:
 * its proportional set size (each resident page divided by the number of
 * processes mapping it; copy-on-read in a forked worker shows as its PSS
 * growing), and its resident pages that other processes map too. */
struct fs_psmaps {
	bool have_pss, have_shared, have_private, have_swap, have_shmem;
	int64_t pss_bytes;     /* Pss */
	int64_t shared_bytes;  /* Shared_Clean + Shared_Dirty */
	int64_t private_bytes; /* Private_Clean + Private_Dirty: its USS, what its exit frees */
	int64_t swap_bytes;    /* Swap: its pages swapped out */
	int64_t shmem_bytes;   /* Pss_Shmem (kernel 5.8+): its share of shared memory
	                        * (tmpfs, /dev/shm, memfd: DataLoader batches) */
};

/* Parse smaps_rollup's text. A value counts only as "Key: N kB" on a line
 * of its own: a line without its unit (a file cut short), a number too big
 * for int64_t bytes, a key seen twice, or no such line leaves that figure
 * absent (have_* false). Returns whether Pss was found. */
bool fs_psmaps_parse(const char *text, struct fs_psmaps *out);

/* /proc/PID/task/TID/schedstat: time on a CPU, time runnable but waiting
 * for one, and the number of times it got one. */
struct fs_schedstat {
	uint64_t run_ns, wait_ns, slices; /* slices 0 when the field is absent */
};

/* Parse "run_ns wait_ns slices". Returns false unless at least run_ns and
 * wait_ns are there. */
bool fs_schedstat_parse(const char *text, struct fs_schedstat *out);

/* A process's cumulative counters at one read. */
struct fs_pcounters {
	uint64_t cpu_ticks; /* utime + stime */
	uint64_t sys_ticks; /* stime */
	uint64_t minflt, majflt;
	bool have_io;
	struct fs_pio io;
};

/* Per-second rates over one interval; NaN where not computable. */
struct fs_prates {
	double cpu_pct; /* 100 = one CPU busy for the whole interval */
	double sys_pct; /* of it, in the kernel (stime) */
	double minflt_per_s, majflt_per_s;
	double rchar_per_s, wchar_per_s, read_bytes_per_s, write_bytes_per_s;
};

/* Rates from prev to curr over dt_s seconds with clk_tck ticks per second.
 * Counters that went backwards give 0 (fs_counter_delta). The I/O rates are
 * NaN unless both readings have I/O; everything is NaN when dt_s <= 0. */
void fs_prates_compute(const struct fs_pcounters *prev, const struct fs_pcounters *curr,
		       double dt_s, long clk_tck, struct fs_prates *out);

/* A thread-percent: sum (already summed deltas) in units of `per_s` per
 * second, over dt_s. 100 means one thread for the whole interval. NaN when
 * dt_s <= 0. */
double fs_thread_pct(double sum, double per_s, double dt_s);

#endif
