/* rollup.h - per-minute aggregates of the sampled tables, made while
 * recording (issue 14: long runs).
 *
 * Every row the store inserts into a tick-sampled table (ticks, cpu,
 * cpu_core, psi, mem, disk, net, tcp, nfs, proc, cgroup, gpu, gpu_proc,
 * io_intervals, io_classes) is also folded into the aggregate of its key
 * (the table's key columns: device, iface, pid, ...) for the minute it
 * falls in; at the first row of the next minute the minute's aggregates
 * are written to <table>_1m (docs/schema.md, "Per-minute tables"). The
 * steps are folded by (pid, loader, epoch) into steps_1m, minutes closed
 * when the recorder's clock has gone FS_ROLLUP_STEP_GRACE_S past them (a
 * step's record reaches the recorder after its own t). The phases are
 * folded the same way by (pid, name) into phases_1m, each in the minute of
 * its t_end: their count, total and longest length, first start and last
 * end (a DDP job's collectives, one per step, are let go past the raw
 * windows: retain.h).
 *
 * A value column becomes three: its mean over the minute's rows, weighted
 * by each row's tick length (so mean x dt_s is the rate's integral, as
 * sum(rate * dt) over the raw rows), NULL rows left out; its min; its max.
 * Per-interval quantities (ticks.missed, ticks.cpu_us, the tracer's
 * seconds, bytes and calls per interval) are summed instead. proc adds
 * blocked_any_pct and running_only_pct: the share of the minute's samples
 * in which some thread was in D, and in which none was in D but some ran
 * (the classes the loaders' time is attributed by).
 *
 * Pure: rows in, rows out through a callback; no SQLite here. */
#ifndef FS_ROLLUP_H
#define FS_ROLLUP_H

#include <stdbool.h>

#include "store/row.h"

#define FS_ROLLUP_PERIOD_S 60.0
#define FS_ROLLUP_STEP_GRACE_S 10.0

/* The minute t falls in: minute k holds 60k < t <= 60(k + 1), and t <= 0
 * is in minute 0. */
long fs_rollup_minute(double t);

/* Tier tables: an index per rolled-up table (FS_RT_*), each with its own
 * generated column list. */
enum fs_rollup_table {
	FS_RT_TICKS,
	FS_RT_CPU,
	FS_RT_CPU_CORE,
	FS_RT_PSI,
	FS_RT_MEM,
	FS_RT_DISK,
	FS_RT_NET,
	FS_RT_TCP,
	FS_RT_NFS,
	FS_RT_PROC,
	FS_RT_CGROUP,
	FS_RT_GPU,
	FS_RT_GPU_PROC,
	FS_RT_IO_INTERVALS,
	FS_RT_IO_CLASSES,
	FS_RT_STEPS,
	FS_RT_PHASES,
	FS_RT__COUNT
};

#define FS_ROLLUP_MAX_COLS 96

/* One generated column of a tier table. */
struct fs_rollup_col {
	char name[48];
	const char *type; /* REAL, INTEGER or TEXT */
};

/* A tier table's name (e.g. "proc_1m") and columns, the same on every
 * call (made once). */
const char *fs_rollup_table_name(enum fs_rollup_table rt);
int fs_rollup_columns(enum fs_rollup_table rt, const struct fs_rollup_col **cols);

/* A finished tier row: values[i] for column i of fs_rollup_columns (text
 * values borrowed until emit returns). */
typedef void (*fs_rollup_emit)(void *ctx, enum fs_rollup_table rt, const struct fs_value *values, int n);

struct fs_rollup;

/* NULL when out of memory. */
struct fs_rollup *fs_rollup_new(fs_rollup_emit emit, void *ctx);

/* Fold a row the store inserted (rows of tables not rolled up are
 * ignored). A ticks row ends its tick: its dt_s weighs the tick's rows. */
void fs_rollup_row(struct fs_rollup *ru, const struct fs_row *r);

/* Emit every open aggregate (the run ends: the last, partial minute). */
void fs_rollup_flush(struct fs_rollup *ru);

void fs_rollup_free(struct fs_rollup *ru);

#endif
