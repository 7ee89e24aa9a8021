/* marker_cost - what the C marker API adds per training step: N steps of
 * fs_step_wait_begin + fs_step_wait_end (one record sent per step) timed
 * against the same loop without the calls. Run it under `feedscope run` for
 * the cost with the channel on, and alone for the no-op cost. Prints ns per
 * step; asserts nothing.
 *
 *   marker_cost [N [PACE_US]]   PACE_US > 0: sleep that long in each step
 *                               (a paced loop: is every record received?) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "feedscope.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	long pace_us = argc > 2 ? atol(argv[2]) : 0;
	if (pace_us > 0) {
		struct timespec pause = {0, pace_us * 1000};
		fs_epoch_begin("paced");
		for (long i = 0; i < n; i++) {
			fs_step_wait_begin();
			fs_step_wait_end();
			nanosleep(&pause, NULL);
		}
		fs_steps_flush();
		printf("C marker API: %ld paced steps sent (%ld us each)\n", n, pace_us);
		return 0;
	}
	volatile long sink = 0;
	double t0 = now();
	for (long i = 0; i < n; i++)
		sink += i;
	double bare = now() - t0;
	fs_epoch_begin("bench");
	t0 = now();
	for (long i = 0; i < n; i++) {
		fs_step_wait_begin();
		fs_step_wait_end();
		sink += i;
	}
	fs_steps_flush();
	double marked = now() - t0;
	printf("C marker API, %s: %.0f ns per step (%ld steps)\n",
	       fs_markers_enabled() ? "under feedscope (one record sent per step)" : "without feedscope (no-op)",
	       (marked - bare) / (double)n * 1e9, n);
	return 0;
}
