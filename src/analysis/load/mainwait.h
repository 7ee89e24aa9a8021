/* mainwait.h - the training process's own CPU while it waits for a batch
 * and while it computes (mainwait.c, docs/verdicts.md "main_process"). */
#ifndef FS_MAINWAIT_H
#define FS_MAINWAIT_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* Set m->main_wait_cores and m->main_compute_cores (NaN: not told apart)
 * from the trainer's proc rows and its steps within q's window: every
 * sample's CPU is the mean of the two, weighed by the share of the
 * sample's interval inside the waits, and the two are fitted by least
 * squares over the samples. Without steps, the accelerator's idle share
 * of each sample (NVML) stands for the share inside the waits. Needs raw
 * rows (not per minute). */
void fs_m_main_in_wait(struct fs_q *q, struct fs_metrics *m);

/* m->next_* from the trainer's steps within q's window (the parts of
 * next() the hook sent; next_steps 0 where none has them). */
void fs_m_next_parts(struct fs_q *q, struct fs_metrics *m);

#endif
