/* run.h - the training part of `feedscope bench`: N emulated accelerators
 * fed by reader threads from a generated dataset, epoch by epoch, with the
 * accelerator utilization (AU) computed as DLIO and MLPerf Storage do.
 *
 * Shape of a run (docs/bench.md):
 *   - per epoch, the dataset's files are shuffled (file_shuffle, seed +
 *     epoch), split across MPI ranks (rank r takes the files i with
 *     i % ranks == r), and their samples ordered (sample_shuffle: a
 *     pseudo-random permutation, never materialised); accelerator a of a
 *     rank takes the samples at positions p with p % N == a;
 *   - N × read_threads reader threads, one pool, build whole batches
 *     (batch_size samples, each sample's byte range read with the chosen io
 *     engine in requests of at most 4 MiB), each for the accelerator with
 *     the fewest batches ready or in progress, and hand them over through
 *     that accelerator's bounded queue of prefetch × read_threads batches
 *     (one lock per batch, none per read);
 *   - each accelerator thread takes a batch and "computes" for
 *     computation_time (normal(mean, stdev), clamped at 0) with
 *     clock_nanosleep on absolute deadlines: a step starts at the later of
 *     the previous step's end and the moment its batch was ready.
 *   - AU of one accelerator in one epoch = compute time of steps 2..S ÷
 *     (end of step S − end of step 1) by default; DLIO's output.metric
 *     exclude_start_steps / exclude_end_steps move that window
 *     (fs_run_au_window); an epoch's AU is the mean over the
 *     accelerators of every rank, the run's AU the mean over epochs.
 *   - busy = compute time of all steps of all accelerators ÷ (accelerators ×
 *     the epoch's wall time): counts the pipeline's fill and accelerators
 *     that start late, which the AU leaves out.
 */
#ifndef FS_BENCH_RUN_H
#define FS_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "bench/format/dataset.h"
#include "bench/workload/workload.h"
#include "util/hist.h"

/* How to run: the workload plus the command line's overrides, all resolved. */
struct fs_run_opts {
	const struct fs_workload *w;  /* batch_size, read_threads, prefetch, epochs, shuffles, seed, compute */
	const struct fs_dataset *ds;  /* the manifest of dir */
	const char *dir;
	unsigned accelerators;        /* per rank, >= 1 */
	const char *engine;           /* psync, io_uring, mmap */
	bool direct;
	unsigned qd;                  /* requests in flight per reader thread (io_uring) */
	uint32_t steps;               /* steps per accelerator per epoch; 0: as many as the data gives */
	bool progress;                /* a progress line on stderr (rank 0) */
};

/* One epoch (or, in fs_run_result.total, the whole run), summed or averaged
 * over all ranks. */
struct fs_run_epoch {
	double au;                    /* 0..1; NaN when no accelerator took two steps */
	double busy;                  /* compute time of every step ÷ (accelerators × wall time): stricter */
	uint32_t steps;               /* per accelerator */
	uint64_t samples;             /* delivered to accelerators, all ranks */
	uint64_t reads;               /* read requests */
	uint64_t read_bytes;          /* bytes the reads returned (aligned for O_DIRECT) */
	uint64_t sample_bytes;        /* bytes of the samples themselves (the manifest's ranges) */
	double duration_s;            /* wall time (the longest rank's) */
	double samples_per_s;         /* summed over ranks */
	double read_bytes_per_s;      /* over the wall time (the pipeline's), summed over ranks */
	double io_s;                  /* the readers' I/O time: while at least one of a rank's readers
				       * was reading a batch (claimed, not yet handed over); the longest
				       * rank's. Waits for a queue slot and hand-overs are not in it */
	double io_reads_per_s;        /* reads ÷ io_s, summed over ranks: fio's iops */
	double io_bytes_per_s;        /* read_bytes ÷ io_s, summed over ranks: fio's bw_bytes */
	double nominal_bytes_per_s;   /* samples_per_s × record_length_bytes, as MLPerf reports */
	double window_samples_per_s;  /* DLIO's train_throughput: per accelerator, the AU window's steps ×
				       * batch ÷ the window's time, summed over accelerators and ranks
				       * (total: the mean over epochs); NaN when no window */
	double compute_s;             /* compute time counted in the AU, all accelerators */
	struct fs_hist lat;           /* per-read latency, ns */
};

struct fs_run_result {
	unsigned accelerators;        /* per rank */
	int ranks;
	uint32_t epochs;
	struct fs_run_epoch *epoch;   /* [epochs] */
	struct fs_run_epoch total;    /* au: mean of the epochs' AUs */
	double au_threshold;
	bool passed;                  /* total.au >= au_threshold */
	bool wrapped;                 /* steps asked for exceeded the data: samples were reused */
	bool interrupted;             /* stopped by fs_bench_interrupt: the figures cover what ran */
};

/* Set (to the signal's number) by the command's SIGINT/SIGTERM handler: the
 * running epoch stops within 100 ms, its partial figures are kept, the
 * remaining epochs are skipped and fs_bench_run returns 0 with
 * r->interrupted set. Not used under MPI (mpirun owns the signals). */
extern volatile sig_atomic_t fs_bench_interrupt;

/* Steps per accelerator per epoch that the dataset gives this run (the
 * rank with the fewest samples decides; --steps, when set, wins, reusing
 * samples if it exceeds them). 0 when a batch does not fit. */
uint32_t fs_run_steps(const struct fs_run_opts *o);

/* Run every epoch. Collective under MPI (every rank calls it). Returns 0
 * with r filled (free with fs_run_result_free), or -1 with a one-line
 * reason in why (a file that cannot be opened or read). */
int fs_bench_run(const struct fs_run_opts *o, struct fs_run_result *r, char *why, size_t whylen);

void fs_run_result_free(struct fs_run_result *r);

/* ---- internal to run*.c ---- */

/* The order in which one rank reads one epoch's samples. */
struct fs_run_plan {
	const struct fs_dataset *ds;
	uint32_t *files;        /* this rank's files (indexes into ds->files), in epoch order */
	uint64_t *prefix;       /* [nfiles + 1]: samples before each of files[] */
	uint32_t nfiles;
	uint64_t nsamples;      /* prefix[nfiles] */
	bool shuffle;           /* samples permuted */
	uint64_t key;           /* the permutation's key */
	unsigned half_bits;     /* the permutation's domain: 2^(2 × half_bits) >= nsamples */
};

/* Build rank's plan for epoch (file shuffle with seed + epoch, the split
 * across ranks, the sample permutation's key). Returns 0 or -1 (ENOMEM). */
int fs_run_plan_build(struct fs_run_plan *p, const struct fs_dataset *ds, const struct fs_workload *w,
		      uint32_t epoch, int rank, int ranks);
void fs_run_plan_free(struct fs_run_plan *p);

/* The sample at position pos (0 <= pos < nsamples) of the plan. */
void fs_run_plan_sample(const struct fs_run_plan *p, uint64_t pos, uint32_t *file, uint32_t *rec);

/* A bijection of [0, n) keyed by key (a Feistel network with cycle walking);
 * half_bits from fs_run_perm_bits(n). Exposed for tests. */
unsigned fs_run_perm_bits(uint64_t n);
uint64_t fs_run_perm(uint64_t x, uint64_t n, uint64_t key, unsigned half_bits);

/* The dataset's files opened for reading below dirfd (o->dir opened with
 * fs_bench_dir_open) with fs_bench_open_read: never through a symlink,
 * never a FIFO or device (O_DIRECT when o->direct); one fd per file (-1 for
 * files without samples); all -1 when there are more files than the
 * open-file limit allows (readers then open at each sample, the same way).
 * Returns the array (free with fs_run_close_all), or NULL with why. */
int *fs_run_open_all(const struct fs_run_opts *o, int dirfd, char *why, size_t whylen);
void fs_run_close_all(const struct fs_dataset *ds, int *fds);

/* DLIO's AU window of an epoch of steps steps: the steps first..last
 * (0-based) left after output.metric's exclude_start_steps and
 * exclude_end_steps. false when no step is left (the AU is undefined). */
bool fs_run_au_window(const struct fs_workload *w, uint32_t steps, uint32_t *first, uint32_t *last);

/* splitmix64: the seeded generator every shuffle and compute time uses. */
uint64_t fs_run_rand(uint64_t *state);

#endif
