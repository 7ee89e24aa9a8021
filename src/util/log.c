#include "util/log.h"

#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>

static bool quiet, usage_silent;

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

void fs_log_set_usage_silent(bool silent)
{
	usage_silent = silent;
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

void fs_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

int fs_usage_error(const char *fmt, ...)
{
	if (usage_silent)
		return 2;
	va_list ap;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	return 2;
}

int fs_bad_option(const char *cmd, int getopt_result, char **argv)
{
	char name[64];
	if (optopt)
		snprintf(name, sizeof name, "-%c", optopt);
	else
		snprintf(name, sizeof name, "%s", argv[optind - 1]);
	if (getopt_result == ':')
		return fs_usage_error("%s: option '%s' needs a value", cmd, name);
	return fs_usage_error("%s: unknown option '%s' (see feedscope %s --help)", cmd, name, cmd);
}
