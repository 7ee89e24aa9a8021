/* job.h - the job's processes by group (FS_MS_PROCS: the process running
 * the loop, or the job's main process; its children, the loaders; the
 * rest), and the I/O tracer's view of the loaders. Part of fs_metrics_load
 * (load.c): q->trainer is the trainer's pid. */
#ifndef FS_LOAD_JOB_H
#define FS_LOAD_JOB_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* m->have_job, the groups' states (m->main, m->loaders), the loaders' and
 * the job's reads and CPU, the cgroup's figures. */
void fs_m_load_job(struct fs_q *q, struct fs_metrics *m);

/* SQL for the pids of the loaders, for "pid IN (...)", once fs_m_load_job
 * has told whether the trainer has children (m->loaders_are_main). */
const char *fs_m_loaders_sql(struct fs_q *q, const struct fs_metrics *m);

/* The tracer's view of the loaders: m->have_trace, loader_io_time_s,
 * trace_*. */
void fs_m_load_trace(struct fs_q *q, struct fs_metrics *m);

/* The loaders' main threads by descriptor class: m->have_classes,
 * loader_sock_*, loader_file_*, loader_meta_s. */
void fs_m_load_classes(struct fs_q *q, struct fs_metrics *m);

#endif
