/* load.h - a run file read into struct fs_metrics (metrics.h): the top of
 * the load room (src/analysis/load/README.md). */
#ifndef FS_LOAD_LOAD_H
#define FS_LOAD_LOAD_H

#include <stddef.h>

#include "analysis/load/metrics.h"

/* Read the metrics of the run file at path within window w (NULL: all).
 * Returns 0, or -1 with a reason in err (not a run file, cannot open, or a
 * query failed: a damaged page, I/O error; a table or column an older run
 * file lacks is "not recorded", not a failure). */
int fs_metrics_load(const char *path, const struct fs_window *w, struct fs_metrics *m,
		    char *err, size_t errlen);

#endif
