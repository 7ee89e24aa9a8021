/* threads.h (advise) - the oversubscription finding's predicted effect
 * (judge/threads.h), and its fix among cpu_preprocess's recommendations. */
#ifndef FS_ADVISE_THREADS_H
#define FS_ADVISE_THREADS_H

#include "analysis/judge/verdict.h"

/* When v->oversub holds: its predicted effect (v->oversub.predicted_speedup
 * and why) from the verdict's own prediction, and, for cpu_preprocess, its
 * fix as the first recommendation (it relieves the CPU without more cores).
 * Call after the verdict's speedup and recommendations are made. */
void fs_advise_oversub(struct fs_verdict *v);

#endif
