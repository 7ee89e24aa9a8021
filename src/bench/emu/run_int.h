/* run_int.h - what run.c (epochs, accelerators, results) and run_read.c
 * (the reader threads) share. */
#ifndef FS_BENCH_RUN_INT_H
#define FS_BENCH_RUN_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/io/engine.h"
#include "bench/emu/run.h"

#define BLOCK_BYTES (4u << 20) /* largest single read request */
#define ALIGN 4096u
#define STACK_BYTES (256u << 10)

struct accel {
	pthread_cond_t not_empty;  /* with epoch.mu */
	unsigned cap, ready, reserved, head;
	uint64_t *ready_ns;     /* [cap]: when each queued batch was ready */
	uint32_t next_step;     /* the next batch a reader builds */
	/* the accelerator's own results */
	uint64_t compute_ns;    /* steps 2..S */
	uint32_t window_steps;  /* steps in the AU window (DLIO's throughput counts them) */
	uint64_t first_ns;      /* step 1 */
	uint64_t first_end_ns, last_end_ns;
	atomic_uint done;       /* steps finished (progress) */
	uint64_t exit_ns;       /* when the thread finished (the epoch's end: the last one) */
	unsigned index;
	struct epoch *e;
	pthread_t tid;
};

struct reader {
	struct epoch *e;
	pthread_t tid;
	struct fs_hist lat;
	uint64_t reads, read_bytes, sample_bytes, samples;
	uint64_t exit_ns;       /* when the thread finished */
};

struct epoch {
	const struct fs_run_opts *o;
	const struct fs_io_engine_ops *eng;
	struct fs_run_plan plan;
	const int *fds;          /* per dataset file; -1: open per sample */
	int dirfd;               /* o->dir (fs_bench_dir_open): files are opened below it */
	uint32_t epoch, steps;
	unsigned n, batch;
	size_t slot_bytes;       /* one read request's buffer */
	uint64_t t0, t1;         /* the readers' start, the last thread's end (its exit_ns) */
	atomic_int stop;
	bool interrupted;       /* stopped by fs_bench_interrupt (set by the watching thread) */
	pthread_mutex_t err_mu;
	pthread_mutex_t mu;      /* the queues: one lock per batch claimed, handed over, taken */
	pthread_cond_t not_full; /* a queue has room */
	/* the rank's I/O time, fio's runtime: while at least one reader is
	 * reading a batch (from its first request to its last completion; the
	 * claim and the hand-over are the pipeline's). Its own lock, which
	 * only readers take, so that it stays in their caches */
	pthread_mutex_t io_mu;
	unsigned reading;        /* readers reading a batch now */
	uint64_t io_from_ns;     /* since when reading > 0 */
	uint64_t io_ns;          /* the time with reading > 0 */
	unsigned rr;             /* where the next claim's scan starts */
	pthread_mutex_t go_mu;   /* readers start together, once every thread exists */
	pthread_cond_t go_cv;
	bool go;
	char why[256];           /* the first error */
	struct accel *acc;
	struct reader *rd;
	unsigned nrd;
};

/* Record the epoch's first error (fmt with two strings), stop every thread. */
void fs_run_fail(struct epoch *e, const char *fmt, const char *a, const char *b);

/* A reader thread (arg: struct reader *): claims batches, reads them, hands
 * them over, until every batch is claimed or the epoch stops. */
void *fs_run_reader_main(void *arg);

#endif
