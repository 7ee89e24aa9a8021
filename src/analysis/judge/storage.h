/* storage.h - the storage family of causes (storage.c): which kind of
 * storage limit the loaders met, with its evidence. Pure. */
#ifndef FS_STORAGE_H
#define FS_STORAGE_H

#include <stdbool.h>

#include "analysis/judge/evidence.h"
#include "analysis/load/metrics.h"
#include "analysis/thresholds.h"

/* Memory is short and the loaders keep re-reading from storage: the page
 * cache cannot hold the data (memory_pressure). */
bool fs_storage_rereading(const struct fs_metrics *m, const struct fs_thresholds *t);

/* The storage family: which kind (storage_bandwidth, storage_latency,
 * metadata, memory_pressure), its evidence appended to f. */
enum fs_verdict_id fs_storage_family(const struct fs_metrics *m, const struct fs_thresholds *t,
				     struct fs_finding *f);

#endif
