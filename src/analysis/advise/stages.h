/* stages.h - cpu_preprocess's fix for the stage that holds the loaders'
 * time, where one is known (stages.c, docs/verdicts.md "The loaders'
 * stages"). Pure. */
#ifndef FS_ADVISE_STAGES_H
#define FS_ADVISE_STAGES_H

#include <stdbool.h>

#include "analysis/advise/whatif.h"

/* A recommendation's content, for recommend.c to add. */
struct fs_stage_fix {
	char relieves[64], knob[64], current[128], suggested[96], why[240];
	struct fs_change change; /* the stage's CPU taken away (or made cheaper) */
};

/* Whether a transform of this name draws at random (torchvision's
 * Random*, MONAI's Rand*, and the augmentations known to): what follows
 * the first of them cannot be cached. */
bool fs_stage_is_random(const char *name);

/* The fix for m's stages (m->stages, timed): the largest stage by its own
 * time, at stage_named_share of the workers' time or more: decode at a
 * reduced size (a getitem that is CPU work, with a resize among the
 * transforms), cache what precedes the first random transform (the stage
 * is before it), move a random transform to the accelerator, vectorise
 * the collate_fn. False: no stage timed, none large enough, or no fix
 * known for it. */
bool fs_stage_fix(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_stage_fix *fix);

#endif
