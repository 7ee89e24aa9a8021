/* diagnose.h - the whole diagnosis of one set of metrics: judged
 * (judge/verdict.h), then advised (recommend.h). What report, run, merge
 * and tune call. */
#ifndef FS_DIAGNOSE_H
#define FS_DIAGNOSE_H

#include "analysis/judge/verdict.h"
#include "analysis/thresholds.h"

/* Diagnose: fill v from m with thresholds t: the accounting, the findings,
 * the verdict, its predicted speedup and recommendations. Deterministic. */
void fs_diagnose(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v);

#endif
