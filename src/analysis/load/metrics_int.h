/* metrics_int.h - what metrics.c and loops.c share (not part of the
 * analysis' interface). */
#ifndef FS_METRICS_INT_H
#define FS_METRICS_INT_H

#include <limits.h>
#include <stdio.h>

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* v as an int, or dflt when it is NaN or out of int's range (a cast would
 * be undefined behaviour). */
static inline int to_int(double v, int dflt)
{
	return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* A count read as a double (NaN when its query failed, e.g. a table the run
 * file lacks): 0 unless it is a representable non-negative number. */
static inline long to_count(double v)
{
	return v >= 0 && v <= (double)LONG_MAX / 2 ? (long)v : 0;
}

static inline int loader_int(struct fs_q *q, const char *loader, const char *knob)
{
	char key[160];
	snprintf(key, sizeof key, "loader.%s.%s", loader, knob);
	return to_int(fs_q_meta_num(q, key), -1);
}

/* The loader with the most steps of process ?3 (q->trainer) into out[cap]
 * ("" if it sent none). */
void fs_m_main_loader(struct fs_q *q, char *out, size_t cap);

/* The training processes' steps against each other (metrics.c, sync.h):
 * each loop's sync_wait_s, m->steps_in_step and the step-end skew. Called
 * by fs_m_load_loops once the loops are filled, before the trainer is
 * chosen. */
void fs_m_load_sync(struct fs_q *q, struct fs_metrics *m);

/* Fill m->loops, m->trainer, m->trainer_pid and m->trainer_why (loops.c),
 * and leave q->trainer at the trainer's pid. q->trainer is the job's main
 * pid on entry. */
void fs_m_load_loops(struct fs_q *q, struct fs_metrics *m);

/* SQL for the pids of the loaders, for "pid IN (...)" (metrics.c). */
const char *fs_m_loaders_sql(struct fs_q *q, const struct fs_metrics *m);

/* m->sat over q's window (saturation.c), once m->disk and the loaders are
 * known. */
void fs_m_load_saturation(struct fs_q *q, struct fs_metrics *m);

#endif
