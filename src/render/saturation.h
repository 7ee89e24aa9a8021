/* saturation.h (render) - the storage's limits against their ceilings
 * (analysis m->sat) as lines of text and as the verdict's JSON
 * `saturation` member (docs/verdicts.md). */
#ifndef FS_RENDER_SATURATION_H
#define FS_RENDER_SATURATION_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/metrics.h"
#include "analysis/judge/verdict.h"
#include "util/json.h"

/* Whether the report shows the limits: they were weighed and the verdict
 * is one of the storage's (bandwidth, latency, metadata, memory). */
bool fs_sat_shown(const struct fs_metrics *m, const struct fs_verdict *v);

/* The headline: "iops during 93% of the loop's input wait (>= 80% of a
 * ceiling); runner-up: none, 7%". */
char *fs_sat_head(const struct fs_metrics *m, char *out, size_t cap);

/* One limit's line: its share, its ceiling and where that came from, or
 * that the ceiling is not known and the measurement that would tell. */
char *fs_sat_line(const struct fs_metrics *m, enum fs_limit l, char *out, size_t cap);

void fs_sat_json(struct fs_json *j, const struct fs_metrics *m);

#endif
