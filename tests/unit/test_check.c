/* The unit tests' own helpers (tests/lib/check.c): check_exit's status is 0
 * when every check passed, 77 when a part was skipped (check_skip), and 1
 * when a check failed, skipped parts or not. Each case runs in a child so
 * that its counters are its own. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

enum { PASSING, SKIPPING, FAILING, FAILING_AND_SKIPPING };

/* The exit status of a child that runs case c and returns check_exit(). */
static int child_status(int c)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		check_failures = check_count = check_skips = 0;
		CHECK_INT(1 + 1, 2);
		if (c == SKIPPING || c == FAILING_AND_SKIPPING)
			check_skip("case %d: a part that cannot run here", c);
		if (c == FAILING || c == FAILING_AND_SKIPPING) {
			fprintf(stderr, "(the next failure is expected)\n");
			CHECK_STR("a", "b");
		}
		fflush(NULL);
		_exit(check_exit("child"));
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(void)
{
	CHECK_INT(child_status(PASSING), 0);
	CHECK_INT(child_status(SKIPPING), 77);
	CHECK_INT(child_status(FAILING), 1);
	CHECK_INT(child_status(FAILING_AND_SKIPPING), 1);
	return check_exit("test_check");
}
