/* memory.h (render) - the job's memory and its findings (judge/memory.h)
 * as text (a section of the report) and as JSON (entries of findings[],
 * and the `memory` object; docs/verdicts.md, "Memory"). Pure. */
#ifndef FS_RENDER_MEMORY_H
#define FS_RENDER_MEMORY_H

#include <stdio.h>

#include "analysis/judge/verdict.h"
#include "analysis/load/metrics.h"
#include "util/json.h"

/* The memory findings, as entries of the open findings[] array. */
void fs_memory_render_json_findings(struct fs_json *j, const struct fs_verdict *v);

/* The `memory` object. */
void fs_memory_render_json(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v);

/* The text section: nothing when no smaps_rollup reading was recorded
 * and no finding was made. */
void fs_memory_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);

#endif
