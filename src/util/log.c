#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

static bool quiet;

static void vsay(const char *fmt, va_list ap)
{
	char line[1024];
	vsnprintf(line, sizeof line, fmt, ap);
	fprintf(stderr, "feedscope: %s\n", line);
}

void fs_log_set_quiet(bool q)
{
	quiet = q;
}

void fs_warn(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void fs_warn_once(bool *once, const char *fmt, ...)
{
	if (*once)
		return;
	*once = true;
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

int fs_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	return 2;
}
