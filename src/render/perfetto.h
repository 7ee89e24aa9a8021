/* perfetto.h - a run file as a Chrome trace-event JSON document (the
 * format Perfetto's UI and chrome://tracing open; `feedscope export
 * --format perfetto`).
 *
 * Timestamps are microseconds since the run's t = 0; the top-level
 * "baseTimeNanoseconds" is meta start_unix in ns, the contract of torch >= 2.4
 * traces (absolute time = baseTimeNanoseconds + ts * 1000), so both can be
 * merged on one clock. Tracks (README "feedscope export"):
 *   - one process per job pid (proc, steps, phases, ops), named "comm (role)"
 *     or "comm (role, rank N)";
 *     in it a thread per loader ("steps: NAME": X slices "wait" and
 *     "compute"), per phase name ("phase: NAME"), and each real tid that
 *     made an I/O call recorded with --trace-ops (X slices named by the op);
 *   - a "machine" process with counters: CPU %, PSI some %, disk MB/s per
 *     device, network MB/s per interface but lo, GPU busy % per GPU, each
 *     at most FS_PERFETTO_MAX_POINTS points (means over equal bins of time
 *     when the run has more samples).
 * Synthetic pids and tids (the machine, the steps and phase threads) start
 * at FS_PERFETTO_ID_BASE, above any Linux pid, so they never meet a real one. */
#ifndef FS_RENDER_PERFETTO_H
#define FS_RENDER_PERFETTO_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/load/metrics.h"

#define FS_PERFETTO_MAX_POINTS 10000
#define FS_PERFETTO_ID_BASE 4194304 /* PID_MAX_LIMIT: no Linux pid or tid reaches it */

/* Write the trace of the run file at path to out (rows within w; NULL: the
 * whole run). Returns 0, or -1 with "PATH: ..." in err when the run file
 * cannot be read (a write error is left in out's error flag). */
int fs_perfetto_write(FILE *out, const char *path, const struct fs_window *w, char *err, size_t errlen);

#endif
