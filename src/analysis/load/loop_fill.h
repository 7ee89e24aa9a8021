/* loop_fill.h - everything the accounting needs about one training
 * process (struct fs_loop_proc, metrics.h). Part of fs_m_load_loops
 * (loops.c). */
#ifndef FS_LOAD_LOOP_FILL_H
#define FS_LOAD_LOOP_FILL_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* Fill L, the training process ?3 (q->trainer; L->pid, and its steps'
 * figures when it has steps, already set) within q's window; m->ngpus and
 * m->have_gpu are known. */
void fs_m_loop_fill(struct fs_q *q, struct fs_metrics *m, struct fs_loop_proc *L);

#endif
