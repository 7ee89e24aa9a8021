/* recorder.h - every source, sampled together on one tick, into one sink.
 *
 * Used by `run` and `attach` (sink = the run file) and by `watch` (sink =
 * the line printer). The recorder owns the sources; the caller owns the sink.
 */
#ifndef FS_RECORDER_H
#define FS_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "source/source.h"

struct fs_recorder;

struct fs_recorder_opts {
	bool no_gpu;       /* don't even open the gpu source */
	const char *only;  /* comma list of source names to use (NULL = all) */
	/* seconds between the machine-wide sources' samples (fs_source_ops
	 * .machine); 0 or less: every tick */
	double system_interval_s;
};

/* Open every source (saying once on stderr which are unavailable and why,
 * and recording "source.<name>" = ok | disabled | unavailable: why in meta).
 * job may be NULL. paths, sink and job must outlive the recorder.
 * Returns NULL only on out-of-memory. */
struct fs_recorder *fs_recorder_open(const struct fs_paths *paths, struct fs_sink *sink,
				     struct fs_job *job,
				     const struct fs_recorder_opts *opts, double t);

/* Sample every open source for the tick at time t (seconds since start)
 * (a machine-wide one when its system interval is up),
 * then write a `ticks` row (dt_s = t - previous tick, sample_us and cpu_us
 * = time spent, the previous tick_end's included: a run file inserts its
 * held rows and commits there; missed = ticks skipped because sampling
 * overran) and call tick_end. */
void fs_recorder_sample(struct fs_recorder *r, double t, uint64_t missed);

/* Number of ticks sampled, and total time spent sampling (ns). */
uint64_t fs_recorder_ticks(const struct fs_recorder *r);
uint64_t fs_recorder_busy_ns(const struct fs_recorder *r);

/* Names of sources that are unavailable or disabled, comma-separated, into out. */
void fs_recorder_missing(const struct fs_recorder *r, char *out, size_t cap);

/* Sample the machine-wide sources not sampled at the last tick once more,
 * and call every source's finish hook (end-of-run rows), at the last
 * tick's t. */
void fs_recorder_finish(struct fs_recorder *r);

void fs_recorder_close(struct fs_recorder *r);

#endif
