#include "check.h"

#include <stdarg.h>

int check_failures;
int check_count;
int check_skips;

void check_skip(const char *fmt, ...)
{
	va_list ap;
	check_skips++;
	fputs("SKIPPED: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

int check_exit(const char *name)
{
	if (check_failures) {
		fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
		return 1;
	}
	if (check_skips) {
		printf("%s: %d checks passed, %d part(s) skipped (exit 77)\n", name, check_count,
		       check_skips);
		return 77;
	}
	printf("%s: %d checks passed\n", name, check_count);
	return 0;
}
