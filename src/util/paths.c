#include "util/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

char *fs_state_dir(char *out, size_t cap)
{
	const char *env = getenv("FEEDSCOPE_STATE_DIR");
	int n;
	if (env && *env)
		n = snprintf(out, cap, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(out, cap, "/var/lib/feedscope");
	else if ((env = getenv("XDG_STATE_HOME")) && env[0] == '/')
		n = snprintf(out, cap, "%s/feedscope", env);
	else if ((env = getenv("HOME")) && *env)
		n = snprintf(out, cap, "%s/.local/state/feedscope", env);
	else
		return NULL;
	return n > 0 && (size_t)n < cap ? out : NULL;
}

char *fs_runs_dir(char *out, size_t cap)
{
	char state[PATH_MAX];
	if (!fs_state_dir(state, sizeof state))
		return NULL;
	int n = snprintf(out, cap, "%s/runs", state);
	return n > 0 && (size_t)n < cap ? out : NULL;
}

/* mkdir of one directory: made, or there already as a directory. */
static int make_one(const char *d, mode_t mode)
{
	struct stat st;
	if (mkdir(d, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(d, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int fs_make_dirs(const char *dir, mode_t mode)
{
	char d[PATH_MAX];
	if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = d + 1; *p; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		int rc = make_one(d, mode);
		*p = '/';
		if (rc < 0)
			return -1;
	}
	return make_one(d, mode);
}
