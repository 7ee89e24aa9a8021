/* memory.h (advise) - the advice that follows from the job's memory
 * (judge/memory.h): when the workers' CPU is the kernel copying pages
 * (copy-on-read), cpu_preprocess's fix is the dataset's index, not
 * cheaper transforms. */
#ifndef FS_ADVISE_MEMORY_H
#define FS_ADVISE_MEMORY_H

#include <stdbool.h>

#include "analysis/judge/verdict.h"

/* When v->memory says the workers' CPU is page copies: add that evidence
 * to v (and to its cpu_preprocess finding) and the recommendation that
 * relieves it, with the CPU it frees; returns true (then the "cheaper
 * transforms" advice is not given). False, and nothing added, otherwise. */
bool fs_advise_page_copies(const struct fs_metrics *m, struct fs_verdict *v);

#endif
