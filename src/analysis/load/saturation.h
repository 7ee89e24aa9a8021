/* saturation.h - which limit of the storage the loaders' reads met
 * (saturation.c; docs/verdicts.md, "Which limit of the storage"). */
#ifndef FS_LOAD_SATURATION_H
#define FS_LOAD_SATURATION_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* The name of limit l: "bytes", "iops", "latency", "metadata", "none". */
const char *fs_limit_name(enum fs_limit l);

/* m->sat over q's window (saturation.c), once m->disk and the loaders are
 * known. */
void fs_m_load_saturation(struct fs_q *q, struct fs_metrics *m);

#endif
