/* trace_cost LIB [ROUNDS] - what the I/O tracer (libfeedscope-trace.so)
 * adds to each intercepted call. Figures, never asserted (make bench).
 *
 * Traced and untraced in one run: a child process runs with
 * LD_PRELOAD=LIB FEEDSCOPE_TRACE_DIR=<tmp>, pinned to one CPU, and times
 * the same loop twice per round, once calling the C library's functions
 * (looked up in libc.so.6 itself: the tracer is bypassed) and once calling
 * the interposed ones (the tracer's wrappers, which count into a live
 * region), alternating which goes first, ROUNDS times (default 21). Same
 * process, file, buffer and page-cache pages on both sides, so the
 * difference is the tracer's. It prints min and median ns per iteration of
 * each side, ns added per intercepted call (medians) and the ratio. A
 * control child without LD_PRELOAD runs the same comparison, where both
 * sides are the C library: its difference is the method's noise.
 *   a  pread 4 KiB from the page cache (offsets cycling through 1 MiB)
 *   a2 the same with a second (idle) thread alive: the tracer then counts
 *      with locked atomic adds instead of plain ones
 *   b  pread 128 KiB from the page cache
 *   c  open + fstat + close of a 100-byte file (3 intercepted calls)
 *   s  stat of a missing path (a failed call)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct fns {
	ssize_t (*pread)(int, void *, size_t, off_t);
	int (*open)(const char *, int, ...);
	int (*fstat)(int, struct stat *);
	int (*close)(int);
	int (*stat)(const char *, struct stat *);
};

static char big[4096], small[4096], missing[4096];
static char buf[131072];
static int fd;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *idle(void *arg)
{
	pause();
	return arg;
}

/* ns per iteration of case `c` through the functions `f` */
static double loop(char c, const struct fns *f, long iters)
{
	struct stat st;
	double t0 = now_ns();
	switch (c) {
	case 'a':
		for (long i = 0; i < iters; i++)
			f->pread(fd, buf, 4096, (i & 255) * 4096);
		break;
	case 'b':
		for (long i = 0; i < iters; i++)
			f->pread(fd, buf, sizeof buf, (i & 7) * (off_t)sizeof buf);
		break;
	case 'c':
		for (long i = 0; i < iters; i++) {
			int k = f->open(small, O_RDONLY);
			f->fstat(k, &st);
			f->close(k);
		}
		break;
	default:
		for (long i = 0; i < iters; i++)
			f->stat(missing, &st);
	}
	return (now_ns() - t0) / (double)iters;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int child(const char *dir, int rounds)
{
	snprintf(big, sizeof big, "%s/big", dir);
	snprintf(small, sizeof small, "%s/small", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
	if (!libc)
		return 1;
	struct fns real = {dlsym(libc, "pread"), dlsym(libc, "open"), dlsym(libc, "fstat"), dlsym(libc, "close"),
			   dlsym(libc, "stat")};
	struct fns wrapped = {dlsym(RTLD_DEFAULT, "pread"), dlsym(RTLD_DEFAULT, "open"), dlsym(RTLD_DEFAULT, "fstat"),
			      dlsym(RTLD_DEFAULT, "close"), dlsym(RTLD_DEFAULT, "stat")};
	Dl_info info;
	int traced = dladdr((void *)wrapped.pread, &info) && info.dli_fname && strstr(info.dli_fname, "feedscope-trace");
	fd = open(big, O_RDONLY);
	if (fd < 0 || !real.pread || !wrapped.pread)
		return 1;
	for (off_t o = 0; o < (1 << 20); o += sizeof buf) /* page cache */
		if (pread(fd, buf, sizeof buf, o) < 0)
			return 1;
	static const struct {
		const char *id, *what;
		char c;
		long iters;
		int calls;
	} cases[] = {
		{"a", "pread 4 KiB, page cache", 'a', 100000, 1},
		{"a2", "pread 4 KiB, a second thread alive", 'a', 100000, 1},
		{"b", "pread 128 KiB, page cache", 'b', 20000, 1},
		{"c", "open+fstat+close, 100 B file", 'c', 20000, 3},
		{"s", "stat of a missing path", 's', 50000, 1},
	};
	printf("  %s\n", traced ? "traced: the interposed calls are libfeedscope-trace.so's"
			       : "control: no tracer, both sides are the C library (the method's noise)");
	printf("  %-38s %8s %8s %8s %8s %10s %7s\n", "case (ns per iteration)", "libc min", "median", "traced",
	       "median", "added/call", "ratio");
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		if (!strcmp(cases[k].id, "a2")) {
			pthread_t t;
			pthread_create(&t, NULL, idle, NULL);
		}
		double off[99], on[99];
		loop(cases[k].c, &real, cases[k].iters / 10); /* warm both paths */
		loop(cases[k].c, &wrapped, cases[k].iters / 10);
		for (int r = 0; r < rounds; r++) {
			if (r & 1) {
				on[r] = loop(cases[k].c, &wrapped, cases[k].iters);
				off[r] = loop(cases[k].c, &real, cases[k].iters);
			} else {
				off[r] = loop(cases[k].c, &real, cases[k].iters);
				on[r] = loop(cases[k].c, &wrapped, cases[k].iters);
			}
		}
		qsort(off, (size_t)rounds, sizeof off[0], cmp);
		qsort(on, (size_t)rounds, sizeof on[0], cmp);
		double m0 = off[rounds / 2], m1 = on[rounds / 2];
		printf("  %-3s %-34s %8.1f %8.1f %8.1f %8.1f %+10.1f %6.3fx\n", cases[k].id, cases[k].what, off[0], m0,
		       on[0], m1, (m1 - m0) / cases[k].calls, m1 / m0);
	}
	return 0;
}

static int run(const char *self, const char *dir, const char *lib, const char *tdir, int rounds)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (lib) {
			setenv("LD_PRELOAD", lib, 1);
			setenv("FEEDSCOPE_TRACE_DIR", tdir, 1);
		} else {
			unsetenv("LD_PRELOAD");
			unsetenv("FEEDSCOPE_TRACE_DIR");
		}
		char r[16];
		snprintf(r, sizeof r, "%d", rounds);
		fflush(stdout);
		execl(self, self, "--child", dir, r, (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void make_file(const char *path, size_t size)
{
	static char block[65536];
	memset(block, 'x', sizeof block);
	FILE *f = fopen(path, "w");
	for (size_t i = 0; i < size; i += sizeof block)
		fwrite(block, 1, size - i < sizeof block ? size - i : sizeof block, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(argv[2], atoi(argv[3]));
	if (argc < 2) {
		fprintf(stderr, "usage: trace_cost LIB [ROUNDS]\n");
		return 2;
	}
	char lib[4096];
	if (!realpath(argv[1], lib)) {
		perror(argv[1]);
		return 1;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 21;
	if (rounds < 1 || rounds > 99)
		rounds = 21;
	char self[4096], dir[] = "/tmp/trace_cost.XXXXXX", tdir[64], path[64], cmd[128];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0 || !mkdtemp(dir))
		return 1;
	self[n] = '\0';
	snprintf(tdir, sizeof tdir, "%s/regions", dir);
	mkdir(tdir, 0700);
	snprintf(path, sizeof path, "%s/big", dir);
	make_file(path, 1 << 20);
	snprintf(path, sizeof path, "%s/small", dir);
	make_file(path, 100);
	/* one CPU (the last: the first takes more interrupts) */
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &set);
	sched_setaffinity(0, sizeof set, &set);
	int rc = run(self, dir, lib, tdir, rounds);
	if (rc == 0)
		rc = run(self, dir, NULL, tdir, rounds);
	printf("  (%d rounds, one process per table, one CPU)\n", rounds);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		rc = -1;
	return rc == 0 ? 0 : 1;
}
