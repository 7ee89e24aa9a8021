/* steps.h - what the steps table says of the training processes: one
 * process's steps in the order they ended (struct fs_steps_series,
 * metrics.h), the loader it took most steps from, and the processes' steps
 * against each other (sync.h). */
#ifndef FS_LOAD_STEPS_H
#define FS_LOAD_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* Read pid's steps through q: within q's window (windowed), or the whole
 * run. Returns false when memory ran out (s is then empty). Free with
 * fs_steps_series_free (also after false). */
bool fs_metrics_read_steps(struct fs_q *q, int pid, bool windowed, struct fs_steps_series *s);
void fs_steps_series_free(struct fs_steps_series *s);

/* The loader with the most steps of process ?3 (q->trainer) into out[cap]
 * ("" if it sent none). */
void fs_m_main_loader(struct fs_q *q, char *out, size_t cap);

/* The training processes' steps against each other (sync.h): each loop's
 * sync_wait_s, m->steps_in_step and the step-end skew. Called by
 * fs_m_load_loops (loops.c) once the loops are filled, before the trainer
 * is chosen. */
void fs_m_load_sync(struct fs_q *q, struct fs_metrics *m);

#endif
