#include "util/paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void from_env(char *dst, size_t cap, const char *var, const char *dflt)
{
	const char *v = getenv(var);
	snprintf(dst, cap, "%s", (v && *v) ? v : dflt);
	size_t n = strlen(dst);
	while (n > 1 && dst[n - 1] == '/')
		dst[--n] = '\0';
}

void fs_paths_from_env(struct fs_paths *p)
{
	from_env(p->proc, sizeof p->proc, "FEEDSCOPE_PROC_ROOT", "/proc");
	from_env(p->sys, sizeof p->sys, "FEEDSCOPE_SYS_ROOT", "/sys");
	from_env(p->shm, sizeof p->shm, "FEEDSCOPE_SHM_PATH", "/dev/shm");
}

char *fs_proc_path(char *out, size_t cap, const struct fs_paths *p, const char *rel)
{
	snprintf(out, cap, "%s/%s", p->proc, rel);
	return out;
}

char *fs_sys_path(char *out, size_t cap, const struct fs_paths *p, const char *rel)
{
	snprintf(out, cap, "%s/%s", p->sys, rel);
	return out;
}

static const char *under(const char *abs, const char *top)
{
	size_t n = strlen(top);
	if (strncmp(abs, top, n) == 0 && (abs[n] == '/' || abs[n] == '\0'))
		return abs + n;
	return NULL;
}

char *fs_host_path(char *out, size_t cap, const struct fs_paths *p, const char *abs)
{
	const char *rest;
	if ((rest = under(abs, "/sys")))
		snprintf(out, cap, "%s%s", p->sys, rest);
	else if ((rest = under(abs, "/proc")))
		snprintf(out, cap, "%s%s", p->proc, rest);
	else
		snprintf(out, cap, "%s", abs);
	return out;
}
