/* loop.h - the fixed-interval tick loop shared by run, attach and watch.
 *
 * Ticks come from a timerfd on CLOCK_MONOTONIC; signals are taken through a
 * signalfd, so nothing runs in a signal handler. The loop ends when the
 * launched child exits (run), the attached process exits (attach), the
 * duration or count is reached, or a stop signal arrives (attach, watch).
 */
#ifndef FS_LOOP_H
#define FS_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* More descriptors to wait on besides the timer (the marker channel):
 * fds() lists them, ready() is called when any has input or hung up. */
struct fs_loop_input {
	int (*fds)(void *arg, int *fds, int cap);
	void (*ready)(void *arg);
	void *arg;
};

struct fs_loop_opts {
	double interval_s;
	double duration_s;  /* stop after this long (0 = no limit) */
	uint64_t max_ticks; /* stop after this many ticks (0 = no limit) */
	pid_t child;        /* run: our child; its exit ends the loop; signals go to fs_jobctl */
	pid_t watched;      /* attach/watch --pid: ends the loop when it exits (not our child) */
	uint64_t start_ns;  /* monotonic time of t = 0 */
	const struct fs_loop_input *input; /* may be NULL */
};

struct fs_loop_result {
	bool child_exited;
	int child_status;   /* waitpid status of the child */
	bool watched_exited;
	int stop_signal;    /* the signal that stopped attach/watch, or 0 */
};

/* Called once per tick with t (seconds since start_ns) and how many ticks
 * were skipped because the previous one overran. */
typedef void (*fs_tick_fn)(void *arg, double t, uint64_t missed);

/* attach, watch: block SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD in the
 * calling thread; the first of the four to come ends the loop. (run blocks
 * its own set with fs_jobctl_block: record/jobctl.h.) Returns 0 or -1. */
int fs_loop_block_signals(void);

/* Run ticks until a stop condition. The first tick fires one interval after
 * the call (the caller takes the t = 0 sample itself); a last tick is taken
 * right when the child exits, so its final interval is not lost.
 * Returns 0, or -1 if the timer or signalfd could not be set up. */
int fs_loop_run(const struct fs_loop_opts *o, fs_tick_fn tick, void *arg, struct fs_loop_result *res);

#endif
