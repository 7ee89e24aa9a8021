/* bench_outputs.h - the parts of `feedscope bench` (cmd/bench.c) about
 * what it claims and writes beyond the text and JSON: the page-cache guard's
 * check and warning, and DLIO's summary.json file (docs/bench.md). */
#ifndef FS_CMD_BENCH_OUTPUTS_H
#define FS_CMD_BENCH_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/host/cache_guard.h"
#include "bench/emu/run_report.h"

/* MLPerf Storage's rule for a dataset of dataset_bytes read from dir: g
 * filled (bench/host/cache_guard.h), reduced over MPI ranks (one rank that may
 * cache flags the run; the smallest memory is kept), never set with direct
 * (O_DIRECT bypasses the page cache). Warns once unless quiet. Collective. */
void fs_bench_cache_guard(const char *dir, uint64_t dataset_bytes, bool direct, bool allow_cache, bool quiet,
			  struct fs_cache_guard *g);

/* --summary FILE, checked before the run: a regular file or none, in a
 * writable directory. 0, or -1 with why. */
int fs_bench_summary_check(const char *path, char *why, size_t whylen);

/* Write b's summary.json to path (path.tmp.PID, then renamed: a reader never
 * sees half a file). 0, or -1 with why (nothing left behind). */
int fs_bench_summary_save(const char *path, const struct fs_bench_report *b, char *why, size_t whylen);

#endif
