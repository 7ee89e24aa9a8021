/* A C training loop using include/feedscope.h: 2 epochs x 5 steps, each
 * batch takes >= 20 ms to "load" and each step >= 10 ms to "compute", a
 * "checkpoint" phase after each epoch, and a forked child that sends one
 * step of its own. Prints what it did; the same output with or without
 * feedscope. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "feedscope.h"

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&t, &t) != 0)
		;
}

int main(void)
{
	int steps = 0;
	for (int epoch = 0; epoch < 2; epoch++) {
		fs_epoch_begin("c loop"); /* the blank becomes '_' */
		for (int i = 0; i < 5; i++) {
			fs_step_wait_begin();
			sleep_ms(20);
			fs_step_wait_end();
			sleep_ms(10);
			steps++;
		}
		fs_steps_flush();
		fs_phase_begin("checkpoint");
		sleep_ms(15);
		fs_phase_end();
	}
	pid_t child = fork();
	if (child == 0) {
		fs_epoch_begin("child");
		fs_step_wait_begin();
		sleep_ms(5);
		fs_step_wait_end();
		fs_steps_flush();
		_exit(0);
	}
	waitpid(child, NULL, 0);
	printf("c_loop: %d steps, markers %s\n", steps, fs_markers_enabled() ? "on" : "off");
	return 0;
}
