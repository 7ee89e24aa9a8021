/* epochs.h - the epoch boundaries of the training process ?3
 * (q->trainer): what each epoch after the first costs its loop. Part of
 * fs_m_loop_fill (loop_fill.c). */
#ifndef FS_LOAD_EPOCHS_H
#define FS_LOAD_EPOCHS_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* With steps: step 0's wait beyond the epoch's usual wait, summed into
 * *excess_s over the *count epochs after the first; workers: the loader's
 * num_workers. fs_m_epoch_starts reads the raw steps, fs_m_epoch_starts_tier
 * the per-minute ones (fs_q_tier). */
void fs_m_epoch_starts(struct fs_q *q, int workers, double *excess_s, long *count);
void fs_m_epoch_starts_tier(struct fs_q *q, int workers, double *excess_s, long *count);

/* Without steps: L->epoch_excess_s and L->epoch_starts from the
 * generations of its DataLoader workers, within q's window (its loop's
 * span); gpu_filter selects its GPU (" AND gpu = ?5", or ""). */
void fs_m_worker_restarts(struct fs_q *q, struct fs_loop_proc *L, const char *gpu_filter);

#endif
