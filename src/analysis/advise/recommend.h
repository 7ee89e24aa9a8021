/* recommend.h - the speedup to expect and the knobs to change, for a
 * verdict's primary and secondary findings (recommend.c, speedup.c). */
#ifndef FS_RECOMMEND_H
#define FS_RECOMMEND_H

#include "analysis/judge/verdict.h"
#include "analysis/thresholds.h"

/* Add to v (judged: judge/verdict.h's fs_judge) its predicted speedup
 * (speedup.h; NaN where the model has no fix to offer, with the reason in
 * v->speedup_cap) and the recommendations of its primary cause, then of
 * its other findings. */
void fs_recommend(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v);

#endif
