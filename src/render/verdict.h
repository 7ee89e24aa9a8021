/* verdict.h (render) - the verdict as text (one screen) and as JSON (the
 * stable shape documented in docs/verdicts.md). Pure: write to out only. */
#ifndef FS_RENDER_VERDICT_H
#define FS_RENDER_VERDICT_H

#include <stdio.h>

#include "analysis/metrics.h"
#include "analysis/verdict.h"

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);
void fs_verdict_render_json(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);

#endif
