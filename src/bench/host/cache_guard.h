/* cache_guard.h - MLPerf Storage's page-cache rule for `feedscope bench`:
 * the dataset must be at least 5 times the client's memory, or reads of a
 * later epoch may come from the page cache and the AU measures memory, not
 * storage (docs/bench.md, "The page-cache guard").
 *
 * The client's memory is MemTotal of <proc>/meminfo, or the memory limit of
 * the cgroup this process is in (v2 memory.max, v1 memory.limit_in_bytes, the
 * lowest on the way up to the hierarchy's top) when that is lower: a
 * container's page cache is bounded by its limit. Paths go through
 * FEEDSCOPE_PROC_ROOT / FEEDSCOPE_SYS_ROOT (util/paths.h), so tests can
 * give a machine of any size. */
#ifndef FS_BENCH_CACHE_GUARD_H
#define FS_BENCH_CACHE_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include "util/paths.h"

#define FS_CACHE_GUARD_FACTOR 5 /* dataset >= 5 × memory (MLPerf Storage) */

struct fs_cache_guard {
	uint64_t mem_bytes;      /* the client's memory; 0 when unknown (no meminfo) */
	uint64_t mem_total_bytes; /* MemTotal */
	int64_t cgroup_limit_bytes; /* the lowest cgroup limit; -1 none */
	uint64_t dataset_bytes;
	bool potential_caching;  /* mem_bytes known and dataset_bytes < 5 × mem_bytes */
};

/* Fill g for a dataset of dataset_bytes on this machine (p: the roots).
 * Never fails: a machine whose memory cannot be read gets mem_bytes 0 and
 * potential_caching false (nothing to compare with). */
void fs_cache_guard_check(struct fs_cache_guard *g, const struct fs_paths *p, uint64_t dataset_bytes);

/* The parsers, for tests: MemTotal of meminfo text in bytes (0 when absent),
 * and the lowest limit (bytes, -1 none) of the cgroup of /proc/self/cgroup
 * text cg whose hierarchies mountinfo text mi describes. */
uint64_t fs_cache_guard_memtotal(const char *meminfo);
int64_t fs_cache_guard_cg_limit(const struct fs_paths *p, const char *mi, const char *cg);

#endif
