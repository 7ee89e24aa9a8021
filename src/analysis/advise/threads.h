/* threads.h (advise) - the oversubscription finding's predicted effect
 * (judge/threads.h), and its fix among cpu_preprocess's recommendations. */
#ifndef FS_ADVISE_THREADS_H
#define FS_ADVISE_THREADS_H

#include "analysis/judge/verdict.h"

/* When v->oversub holds: its predicted effect (v->oversub.predicted_speedup
 * and why): for cpu_preprocess the loop's input wait removed (the mean
 * step over the larger of the compute and the device's own time a step;
 * without steps the verdict's 1 / (1 - input): not capped by the CPU the
 * loaders use now, which the pools' spinning inflates), and its fix as the
 * first recommendation (it relieves the CPU without more cores). Call
 * after the verdict's speedup and recommendations are made. */
void fs_advise_oversub(const struct fs_metrics *m, struct fs_verdict *v);

#endif
