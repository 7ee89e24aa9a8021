/* series.h - the node's timelines one row a second, made while recording
 * (issue 14: long runs).
 *
 * The raw rows of a long run are let go outside the kept windows
 * (retain.h) and the per-minute tables (rollup.h) hold the whole run per
 * key; series_1s holds the whole run per second, for the node as a whole:
 * what the report's timelines draw, so a window of minutes in the middle
 * of a day-long run still shows each second. One row of series_1s for
 * each second k (k - 1 < t <= k; t <= 0 in second 0) that had a tick or a
 * step; its t is k.
 *
 * A measure is first combined over the tick's rows (the GPUs: their mean,
 * and the least and most used one; disks and interfaces: the busiest one,
 * since a device-mapper volume and its disk, or a bridge and its port,
 * carry the same bytes and a sum would count them twice; the thread
 * states: summed over the job's processes of each role), then over the
 * second's ticks: its mean weighted by each tick's length, the least and
 * the most (NAME, NAME_max, and NAME_min for the GPUs; the thread
 * states: the mean only). Byte quantities are rounded to whole bytes (an
 * integral value takes SQLite fewer bytes than a REAL).
 * The steps are folded by their own t: their count, summed wait and
 * compute, the longest wait. A second is written once the recorder's
 * clock is FS_ROLLUP_STEP_GRACE_S past it (a step's record comes after
 * its t); a step older than the oldest open second is counted in
 * fs_series_late and left out here (steps and steps_1m have it).
 *
 * Pure: rows in, rows out through a callback; no SQLite here. */
#ifndef FS_SERIES_H
#define FS_SERIES_H

#include <stdint.h>

#include "store/rollup.h"
#include "store/row.h"

#define FS_SERIES_TABLE "series_1s"
#define FS_SERIES_RING 64 /* seconds open at once (more than the grace) */

/* The measures with a mean and a max, and a min where a dip is the news
 * (the GPUs): (name, unit suffix, with a min). */
#define FS_SERIES_RANGED(X)                                                     \
	X(gpu_util, _pct, 1) X(cpu_busy, _pct, 0) X(cpu_iowait, _pct, 0)         \
	X(psi_cpu_some, _pct, 0) X(psi_io_some, _pct, 0) X(psi_io_full, _pct, 0) \
	X(psi_memory_some, _pct, 0) X(disk_read, _bytes_per_s, 0)                \
	X(disk_write, _bytes_per_s, 0) X(disk_util, _pct, 0)                     \
	X(net_rx, _bytes_per_s, 0) X(net_tx, _bytes_per_s, 0)                    \
	X(mem_available, _bytes, 0) X(mem_cached, _bytes, 0) X(mem_dirty, _bytes, 0)

/* The measures with a mean only: threads in each state, per role. */
#define FS_SERIES_MEANS(X)                                                      \
	X(main_running) X(main_blocked_io) X(main_sleeping) X(main_other)        \
	X(worker_running) X(worker_blocked_io) X(worker_sleeping) X(worker_other)

enum fs_series_measure {
#define FS_SERIES_M_RANGED(name, unit, min) FS_SM_##name,
#define FS_SERIES_M_MEAN(name) FS_SM_##name,
	FS_SERIES_RANGED(FS_SERIES_M_RANGED) FS_SERIES_MEANS(FS_SERIES_M_MEAN)
#undef FS_SERIES_M_RANGED
#undef FS_SERIES_M_MEAN
	FS_SM__COUNT
};

/* The columns: t (INTEGER PRIMARY KEY: the rowid), n (ticks), dt_s (their length), gpus (the most seen in
 * a tick), steps, wait_s, wait_max_s, compute_s, then each ranged
 * measure's mean, min (where it has one) and max, and each mean, in the
 * order above. */
#define FS_SERIES_MAX_COLS 72

/* The columns as a tier table's (rollup.h), the same on every call. */
int fs_series_columns(const struct fs_rollup_col **cols);

/* A finished row: values[i] for column i of fs_series_columns. */
typedef void (*fs_series_emit)(void *ctx, const struct fs_value *values, int n);

struct fs_series;

/* NULL when out of memory. */
struct fs_series *fs_series_new(fs_series_emit emit, void *ctx);

/* Fold a row the store inserted (rows of other tables are ignored). A
 * ticks row ends its tick. */
void fs_series_row(struct fs_series *s, const struct fs_row *r);

/* Emit every open second (the run ends). */
void fs_series_flush(struct fs_series *s);

/* Steps that came after their second had been written. */
uint64_t fs_series_late(const struct fs_series *s);

void fs_series_free(struct fs_series *s);

#endif
