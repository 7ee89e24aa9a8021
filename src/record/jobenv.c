#include "record/jobenv.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool python_name(const char *base)
{
	/* python, python3, python3.11, python3.11-dbg, python3-dbg */
	if (strncmp(base, "python", 6) != 0)
		return false;
	const char *p = base + 6 + strspn(base + 6, "0123456789.");
	return *p == '\0' || strcmp(p, "-dbg") == 0;
}

/* Where execvp would find argv0; false if nowhere. */
static bool resolve(const char *argv0, char *out, size_t cap)
{
	if (strchr(argv0, '/')) {
		snprintf(out, cap, "%s", argv0);
		return access(out, X_OK) == 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");
		snprintf(out, cap, "%.*s/%s", (int)len, len ? p : ".", argv0);
		if (access(out, X_OK) == 0)
			return true;
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

bool fs_jobenv_is_python(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	if (python_name(base ? base + 1 : argv0))
		return true;
	char file[PATH_MAX];
	if (!resolve(argv0, file, sizeof file))
		return false;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char head[256];
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return false;
	head[n] = '\0';
	head[strcspn(head, "\n")] = '\0';
	/* "#!/usr/bin/python3", "#!/usr/bin/env python3", "#!/opt/venv/bin/python -u" */
	for (char *w = strtok(head + 2, " \t"); w; w = strtok(NULL, " \t")) {
		const char *b = strrchr(w, '/');
		if (python_name(b ? b + 1 : w))
			return true;
	}
	return false;
}

static bool has_package(const char *dir)
{
	char f[PATH_MAX];
	snprintf(f, sizeof f, "%s/feedscope/__init__.py", dir);
	return access(f, R_OK) == 0;
}

/* The directory of this executable into out; false if unknown. */
static bool exe_dir(char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	snprintf(out, cap, "%s", exe);
	return true;
}

bool fs_jobenv_python_dir(char *out, size_t cap)
{
	const char *env = getenv("FEEDSCOPE_PYTHON_DIR");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return has_package(out);
	}
	char exe[PATH_MAX];
	if (!exe_dir(exe, sizeof exe))
		return false;
	/* build/feedscope, build/asan/feedscope, PREFIX/bin/feedscope */
	const char *candidates[] = {"%s/../python", "%s/../../python", "%s/../share/feedscope/python"};
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		char dir[PATH_MAX + 32];
		snprintf(dir, sizeof dir, candidates[i], exe);
		char *real = realpath(dir, NULL);
		if (real && has_package(real)) {
			snprintf(out, cap, "%s", real);
			free(real);
			return true;
		}
		free(real);
	}
	return false;
}

bool fs_jobenv_trace_lib(char *out, size_t cap)
{
	const char *env = getenv("FEEDSCOPE_TRACE_LIB");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return access(out, R_OK) == 0;
	}
	char dir[PATH_MAX];
	if (!exe_dir(dir, sizeof dir))
		return false;
	const char *candidates[] = {"%s/libfeedscope-trace.so", "%s/../lib/feedscope/libfeedscope-trace.so"};
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		char f[PATH_MAX + 64];
		snprintf(f, sizeof f, candidates[i], dir);
		char *real = realpath(f, NULL);
		if (real && access(real, R_OK) == 0) {
			snprintf(out, cap, "%s", real);
			free(real);
			return true;
		}
		free(real);
	}
	return false;
}

static void prepare_trace(struct fs_jobenv *e, const char *trace_dir, bool trace_ops)
{
	char lib[PATH_MAX];
	if (!trace_dir || !fs_jobenv_trace_lib(lib, sizeof lib))
		return;
	snprintf(e->trace_dir, sizeof e->trace_dir, "%s", trace_dir);
	e->trace_ops = trace_ops;
	const char *old = getenv("LD_PRELOAD");
	snprintf(e->preload, sizeof e->preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
}

void fs_jobenv_prepare(struct fs_jobenv *e, const char *argv0, enum fs_hook_mode mode,
		       const char *markers_address, const char *trace_dir, bool trace_ops)
{
	memset(e, 0, sizeof *e);
	prepare_trace(e, trace_dir, trace_ops);
	if (!markers_address)
		return; /* no channel: nothing to tell the job */
	snprintf(e->markers, sizeof e->markers, "%s", markers_address);
	char dir[PATH_MAX];
	if (!fs_jobenv_python_dir(dir, sizeof dir)) {
		snprintf(e->why, sizeof e->why,
			 "feedscope's Python package not found (set FEEDSCOPE_PYTHON_DIR)");
		return;
	}
	e->hook = mode == FS_HOOK_ON || (mode == FS_HOOK_AUTO && fs_jobenv_is_python(argv0));
	if (mode == FS_HOOK_AUTO && !e->hook)
		snprintf(e->why, sizeof e->why, "not a Python command (--pytorch forces the hook)");
	const char *old = getenv("PYTHONPATH");
	int n;
	if (e->hook)
		n = snprintf(e->pythonpath, sizeof e->pythonpath, "%s/feedscope_hook:%s", dir, dir);
	else
		n = snprintf(e->pythonpath, sizeof e->pythonpath, "%s", dir);
	if (old && *old)
		snprintf(e->pythonpath + n, sizeof e->pythonpath - (size_t)n, ":%s", old);
}

void fs_jobenv_apply(const struct fs_jobenv *e)
{
	if (e->trace_dir[0]) {
		setenv("FEEDSCOPE_TRACE_DIR", e->trace_dir, 1);
		setenv("LD_PRELOAD", e->preload, 1);
		if (e->trace_ops)
			setenv("FEEDSCOPE_TRACE_OPS", "1", 1);
	}
	unsetenv("FEEDSCOPE_STACKS"); /* an outer feedscope's: not ours to answer */
	if (!e->markers[0])
		return;
	setenv("FEEDSCOPE_MARKERS", e->markers, 1);
	if (e->pythonpath[0])
		setenv("PYTHONPATH", e->pythonpath, 1);
	if (e->hook)
		setenv("FEEDSCOPE_HOOK", "pytorch", 1);
	if (e->hook && e->stacks[0])
		setenv("FEEDSCOPE_STACKS", e->stacks, 1);
}
