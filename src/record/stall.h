/* stall.h - a stall seen while it lasts (`feedscope run`; docs/verdicts.md,
 * "Stalls"): no step completes for a bound derived from the run's own step
 * times. While it lasts: one line on stderr, the `stalls` and
 * `stall_procs` rows in the run file (what each process of the job was
 * blocked on, and the Python stacks where the hook dumps them), and, when
 * progress resumes, the stall's end.
 *
 * The detector is a sink in front of the run file's (struct fs_sink): every
 * row and meta key goes through it to the run file unchanged, and it reads
 * on the way what it needs: steps (progress and step times), the job's
 * processes (proc rows), its reads (io_intervals), its device (gpu), and
 * the hook's registrations for stack dumps (meta hook.stacks.PID, kept out
 * of the run file; their count goes to meta stall.stacks). */
#ifndef FS_RECORD_STALL_H
#define FS_RECORD_STALL_H

#include <stdbool.h>
#include <stdint.h>

#include "store/row.h"
#include "util/paths.h"

/* The signal the hook registers faulthandler on (docs/verdicts.md): a
 * real-time signal a job is unlikely to use, whose default action would
 * kill: it is sent only to processes that registered a handler for it. */
#define FS_STALL_SIGNAL_OFFSET 3 /* SIGRTMAX - 3 */
/* How long the stacks are waited for after the signal (a thread in D runs
 * the handler only when its call returns). */
#define FS_STALL_DUMP_WAIT_S 3.0
/* The most processes described per stall, and bytes of a stack kept. */
#define FS_STALL_MAX_PROCS 256
#define FS_STALL_STACK_BYTES 8192

struct fs_stall;

struct fs_stall_opts {
	double hang_after_s;       /* --hang-after: the bound, fixed; 0: derived */
	const struct fs_paths *paths;
	uint64_t start_ns;         /* t = 0 (CLOCK_MONOTONIC) */
	const char *stacks_dir;    /* where the hook's dumps go, NULL: no hook */
	int stacks_signal;         /* the signal it registered on */
};

/* A detector writing into inner (which must outlive it). Returns NULL on
 * out-of-memory. */
struct fs_stall *fs_stall_new(const struct fs_stall_opts *o, struct fs_sink *inner);

/* t = 0 is start_ns (CLOCK_MONOTONIC): the steps' records are timed by
 * it. Call before the first tick. */
void fs_stall_start_at(struct fs_stall *d, uint64_t start_ns);

/* The sink to give the recorder and the marker channel. */
struct fs_sink *fs_stall_sink(struct fs_stall *d);

/* The bound in force (seconds): --hang-after when given, else with steps
 * max(multiple x median_step_s, floor), without hang_startup_s. Pure. */
double fs_stall_bound(double hang_after_s, bool have_steps, double median_step_s);

/* After tick t's sample: a stall starts (the line, the processes read, the
 * stacks asked for), its stacks are collected, or it ends. */
void fs_stall_tick(struct fs_stall *d, double t);

/* The run ends at t: an open stall ends there; meta stall.* written. */
void fs_stall_finish(struct fs_stall *d, double t);

void fs_stall_free(struct fs_stall *d);

/* "SIGNUM:DIR" for FEEDSCOPE_STACKS (the hook's end), into out[cap]. */
void fs_stall_stacks_env(int signum, const char *dir, char *out, size_t cap);

#endif
