/* test_fake_busy - the tests' fake libnvidia-ml.so.1: gpuN.busy_file turns an
 * emulated accelerator's cumulative busy seconds into utilization (the
 * scenario suite's GPU, tests/scenarios). The library is dlopen()ed by path
 * from next to this binary (<build>/tests/nvml/{full,minimal}) and called
 * through NVML's own symbols, each flavour in a child process of its own.
 *
 * The fake measures wall time itself, so each expected value is a range:
 * the fake's interval between two calls lies between (start of the second
 * call - end of the first) and (end of the second - start of the first). */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

typedef struct {
	unsigned int gpu, memory;
} util_t;
typedef int (*init_fn)(void);
typedef int (*handle_fn)(unsigned int, void **);
typedef int (*util_fn)(void *, util_t *);

static char dir[PATH_MAX];
static util_fn get_util;
static void *dev;
static double t_prev0, t_prev1; /* the previous call's start and end */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Write NAME in the test directory atomically (a new file renamed over). */
static void put(const char *name, const char *text)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(1);
	}
}

/* One call; returns util, or -1 if the call failed. */
static int call(void)
{
	util_t u = {777, 777};
	t_prev0 = mono();
	int r = get_util(dev, &u);
	t_prev1 = mono();
	return r == 0 ? (int)u.gpu : -1;
}

/* A call made BUSY seconds of busy time after the previous one: the value
 * must lie within what the possible intervals give (+-1 for rounding). */
static void check_range(int line, double busy)
{
	double a0 = t_prev0, a1 = t_prev1;
	int got = call();
	double lo = 100 * busy / (t_prev1 - a0) - 1, hi = 100 * busy / (t_prev0 - a1) + 1;
	if (lo < 0)
		lo = 0;
	if (hi > 100)
		hi = 100;
	check_count++;
	if (!(got >= lo && got <= hi)) {
		check_failures++;
		fprintf(stderr, "test_fake_busy.c:%d: util %d, expected %.1f..%.1f\n", line, got, lo,
			hi);
	}
}

static int run_flavour(const char *lib, const char *flavour)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/script", dir);
	setenv("FAKE_NVML_SCRIPT", path, 1);
	snprintf(path, sizeof path, "%s/busy", dir);
	unlink(path); /* the previous flavour's */
	char script[PATH_MAX + 128];
	/* util= is there to show that busy_file wins over it */
	snprintf(script, sizeof script, "count=1\ngpu0.util=55\ngpu0.busy_file=%s\n", path);
	put("script", script);

	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "test_fake_busy: %s\n", dlerror());
		return 1;
	}
	init_fn init = (init_fn)dlsym(h, "nvmlInit");
	handle_fn handle = (handle_fn)dlsym(h, "nvmlDeviceGetHandleByIndex");
	get_util = (util_fn)dlsym(h, "nvmlDeviceGetUtilizationRates");
	CHECK(init && handle && get_util);
	if (!init || !handle || !get_util)
		return check_exit(flavour);
	CHECK_INT(init(), 0);
	CHECK_INT(handle(0, &dev), 0);

	CHECK_INT(call(), 0); /* the first call: 0 (and no file yet: 0 s busy) */
	put("busy", "0.100000\n");
	sleep_s(0.2);
	check_range(__LINE__, 0.1); /* ~50% */
	put("busy", "0.250000\n");
	sleep_s(0.15);
	check_range(__LINE__, 0.15); /* ~100%, never above */
	put("busy", "10.0\n");
	CHECK_INT(call(), 100); /* far more busy than wall time: clamped */
	put("busy", "");        /* a partial write: the previous value */
	CHECK_INT(call(), 100);
	put("busy", "10.0"); /* ... and the baseline was kept: 0 s busy since */
	sleep_s(0.05);
	CHECK_INT(call(), 0);
	put("busy", "1.0\n"); /* went down: a new job, measured from here */
	CHECK_INT(call(), 0);
	put("busy", "1.02\n");
	sleep_s(0.1);
	check_range(__LINE__, 0.02); /* ~20% */

	/* A script re-read keeps the reading while busy_file stays the same. */
	char renamed[PATH_MAX + 160];
	snprintf(renamed, sizeof renamed, "%sgpu0.name=Renamed\n", script);
	put("script", renamed);
	put("busy", "1.08\n");
	sleep_s(0.1);
	check_range(__LINE__, 0.06); /* ~60%, not a first call's 0 */

	/* Without busy_file, util= is served again. */
	put("script", "count=1\ngpu0.util=55\n");
	CHECK_INT(call(), 55);
	dlclose(h);
	return check_exit(flavour);
}

int main(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		return 1;
	}
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(dir, sizeof dir, "/tmp/feedscope-test-busy.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	static const char *const flavours[] = {"full", "minimal"};
	int failed = 0;
	for (int i = 0; i < 2; i++) {
		char lib[PATH_MAX + 64], name[64];
		snprintf(lib, sizeof lib, "%s/nvml/%s/libnvidia-ml.so.1", exe, flavours[i]);
		snprintf(name, sizeof name, "test_fake_busy/%s", flavours[i]);
		if (access(lib, R_OK) != 0) {
			fprintf(stderr, "test_fake_busy: %s is not built (make unit)\n", lib);
			failed++;
			continue;
		}
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			int rc = run_flavour(lib, name);
			fflush(NULL);
			_exit(rc);
		}
		int status = 0;
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed++;
	}
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		failed++;
	if (failed) {
		fprintf(stderr, "test_fake_busy: %d flavour(s) failed\n", failed);
		return 1;
	}
	printf("test_fake_busy: passed\n");
	return 0;
}
