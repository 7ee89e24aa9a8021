/* verdict.h (render) - the verdict as text (one screen) and as JSON (the
 * stable shape documented in docs/verdicts.md). Pure: write to out only. */
#ifndef FS_RENDER_VERDICT_H
#define FS_RENDER_VERDICT_H

#include <stdio.h>

#include "analysis/compare/merge.h"
#include "analysis/load/metrics.h"
#include "analysis/judge/verdict.h"
#include "analysis/load/stalls.h"

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);
void fs_verdict_render_json(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);

/* The verdict of g (g->m, g->v) with the ranks across its files (merge.h).
 * One run file with a single training process: the same bytes as above;
 * with several, the straggler named and what the others lost waiting on
 * it (text: a line under the per-process table; JSON: `straggler`,
 * `ranks`). Several run files: the nodes, the clocks, the skew of step
 * ends and every rank first (JSON: also `nodes`, `clock`, `skew`). */
void fs_merged_render_text(FILE *out, const struct fs_merged *g);
void fs_merged_render_json(FILE *out, const struct fs_merged *g);

/* The same with the run's stalls (analysis/load/stalls.h) as `stalls`
 * (render/stalls.h); stalls NULL: no such key. */
void fs_merged_render_json_stalls(FILE *out, const struct fs_merged *g, const struct fs_stalls *stalls);

#endif
