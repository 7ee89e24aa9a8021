/* switch_job - a switch-heavy job that counts its own work (bench/switch_cost.py).
 *
 *   switch_job PROCS THREADS SECONDS WORK SLEEP_US OUT
 *
 * PROCS processes (children of the first, which keeps time) of THREADS
 * threads each (the process's own included); every thread does cycles of a
 * fixed computation (WORK rounds of a multiply-add chain, not a time) and
 * a sleep of SLEEP_US: a switch out, a timer's wakeup and a switch in a
 * cycle, for SECONDS. All threads start together (a barrier in shared
 * memory), and the first process stops them SECONDS later. It writes to
 * OUT one line, the cycles done in that window:
 *   cycles N wall_s W cpu_s C
 * (C: the threads' own CPU time over their cycles, CLOCK_THREAD_CPUTIME_ID;
 * in-kernel work done in their context is in it, as the kernel charges it).
 * Exits 1 with a message on error. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	atomic_int ready; /* threads at the barrier */
	atomic_int go;      /* a futex: 1 once every thread is ready */
	atomic_int stop;
	atomic_ullong cycles; /* done in the window */
	atomic_ullong cpu_ns; /* the threads' CPU time over their cycles */
	atomic_ullong sink; /* keeps the computation */
};

static struct shared *sh;
static long nthreads_all, work, sleep_us;

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long futex(atomic_int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static void *thread(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg;
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		futex(&sh->go, FUTEX_WAIT, 0); /* shared: the processes map it */
	struct timespec nap = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
	uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), done = 0;
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		for (long k = 0; k < work; k++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		nanosleep(&nap, NULL);
		done++;
	}
	atomic_fetch_add(&sh->cycles, done);
	atomic_fetch_add(&sh->cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
	atomic_fetch_add(&sh->sink, x);
	return NULL;
}

/* Run the process's threads (its own one of them); exits on error. */
static void process(long nthreads, long base)
{
	pthread_t *t = calloc((size_t)nthreads, sizeof *t);
	if (!t) {
		fprintf(stderr, "switch_job: out of memory\n");
		exit(1);
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 1; i < nthreads; i++) {
		int err = pthread_create(&t[i], &attr, thread, (void *)(uintptr_t)(base + i + 1));
		if (err) {
			fprintf(stderr, "switch_job: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	thread((void *)(uintptr_t)(base + 1));
	for (long i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: switch_job PROCS THREADS SECONDS WORK SLEEP_US OUT\n");
		return 2;
	}
	long nprocs = atol(argv[1]), nthreads = atol(argv[2]);
	double seconds = atof(argv[3]);
	work = atol(argv[4]);
	sleep_us = atol(argv[5]);
	if (nprocs < 1 || nthreads < 1 || !(seconds > 0) || work < 0 || sleep_us < 0) {
		fprintf(stderr, "switch_job: bad arguments\n");
		return 2;
	}
	nthreads_all = nprocs * nthreads;
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		fprintf(stderr, "switch_job: mmap: %s\n", strerror(errno));
		return 1;
	}
	/* the processes are children: the first process only keeps time */
	for (long p = 0; p < nprocs; p++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "switch_job: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			process(nthreads, p * nthreads);
			_exit(0);
		}
	}
	/* the clock keeper ahead of the job's threads, which fill every CPU:
	 * its window ends when it says */
	if (setpriority(PRIO_PROCESS, 0, -10) != 0) {
		/* not root: the window may run long, the rate is over it all the same */
	}
	while (atomic_load(&sh->ready) < nthreads_all)
		usleep(1000);
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	atomic_store(&sh->go, 1);
	futex(&sh->go, FUTEX_WAKE, INT32_MAX);
	struct timespec window = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	while (nanosleep(&window, &window) != 0 && errno == EINTR)
		;
	atomic_store(&sh->stop, 1);
	double wall = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	int status, failed = 0;
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	if (failed) {
		fprintf(stderr, "switch_job: a process failed\n");
		return 1;
	}
	double cpu = (double)atomic_load(&sh->cpu_ns) / 1e9;
	FILE *f = fopen(argv[6], "w");
	if (!f ||
	    fprintf(f, "cycles %llu wall_s %.6f cpu_s %.6f\n", (unsigned long long)atomic_load(&sh->cycles), wall, cpu) < 0 ||
	    fclose(f) != 0) {
		fprintf(stderr, "switch_job: %s: %s\n", argv[6], strerror(errno));
		return 1;
	}
	return 0;
}
