/* threads.h (render) - the job's threads against its cores and the
 * oversubscription finding (judge/threads.h) as text and JSON (an entry of
 * findings[], the `threads` object; docs/verdicts.md section 12). Pure. */
#ifndef FS_RENDER_THREADS_H
#define FS_RENDER_THREADS_H

#include <stdio.h>

#include "analysis/judge/verdict.h"
#include "analysis/load/metrics.h"
#include "util/json.h"

/* The finding, as an entry of the open findings[] array (nothing when it
 * does not hold). */
void fs_threads_render_json_finding(struct fs_json *j, const struct fs_verdict *v);

/* The `threads` object (null when the run file has no thread_pools). */
void fs_threads_render_json(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v);

/* The text's threads lines (none without thread_pools). */
void fs_threads_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v);

#endif
