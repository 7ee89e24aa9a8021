/* hostio.h - the checkpoint / host-I/O bucket (metrics.h) of the training
 * process ?3 (q->trainer), and its other threads' writes, within q's
 * window. Part of fs_m_loop_fill (loop_fill.c). */
#ifndef FS_LOAD_HOSTIO_H
#define FS_LOAD_HOSTIO_H

#include "analysis/load/query.h"

/* The host-I/O bucket of process ?3 (its checkpoint phases' time phase_s
 * is already known): *bucket, *io (its main thread in write + sync, NaN
 * without io_classes) and *util (mean GPU util inside the bucket, NaN). A
 * run file without io_classes keeps the phases alone. */
void fs_m_host_io_for(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util);

/* The time process ?3's other threads spent in write + sync on files, as
 * a union of intervals: for each tick t whose calls took s, (t - s, t], as
 * for the main thread (the tracer books a call in the tick it ends: a 2 s
 * fsync is the 2 s before it; several threads' time in one tick is summed,
 * an overestimate only when they wrote at the same time). NaN without
 * io_classes. */
double fs_m_helper_writes(struct fs_q *q);

#endif
