/* tune.h (render) - the result of `feedscope tune`: a table of the trials,
 * why the search stopped, the best setting as a line of Python, and its
 * measured speedup beside the baseline verdict's prediction; as text or as
 * JSON (docs/tune.md gives the shape). Pure: writes to out only. */
#ifndef FS_RENDER_TUNE_H
#define FS_RENDER_TUNE_H

#include <stdio.h>

#include "analysis/tune/plan.h"
#include "analysis/tune/tune.h"

struct fs_tune_result {
	const struct fs_tune *T;
	enum fs_tune_stop stop;
	const char *stop_text;
	double time_s, budget_s;
	const struct fs_tune_plan *plan; /* how the trials were measured */
	const char *dir;           /* where the trials' run files and logs are */
	const char *note;          /* why the steps measured are not --steps ("" when they are) */
	int argc;                  /* the job's command */
	char **argv;
};

void fs_tune_render_text(FILE *out, const struct fs_tune_result *r);
void fs_tune_render_json(FILE *out, const struct fs_tune_result *r);

#endif
