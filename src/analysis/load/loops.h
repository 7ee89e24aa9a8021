/* loops.h - the training processes of a run file (struct fs_loop_proc,
 * metrics.h) and which of them the job-level figures describe: the
 * trainer, the straggler. */
#ifndef FS_LOAD_LOOPS_H
#define FS_LOAD_LOOPS_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* Fill m->loops, m->trainer, m->trainer_pid and m->trainer_why (loops.c),
 * and leave q->trainer at the trainer's pid. q->trainer is the job's main
 * pid on entry. */
void fs_m_load_loops(struct fs_q *q, struct fs_metrics *m);

/* The straggler of n training processes, perhaps of several run files
 * (loops.c; the rule docs/verdicts.md gives for the trainer): with
 * collectives, the least of its loop in them; else, with steps, the
 * longest wait for input; else the busiest loaders. Returns its index (-1
 * when n is 0); *why says how it was chosen, NULL for a lone process
 * without steps or collectives (the caller knows why it is the one). */
int fs_straggler(const struct fs_loop_proc *const *loops, int n, const char **why);

#endif
