/* tree.h - the processes of each training process (itself and its
 * children) and their sockets (the peers table, peers.h). Part of
 * fs_metrics_load (load.c), once the loops and the loaders' group are
 * known. */
#ifndef FS_LOAD_TREE_H
#define FS_LOAD_TREE_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* The training process (index into m->loops) that pid belongs to: itself
 * or one of its children; -1 when none. */
int fs_metrics_loop_of(const struct fs_metrics *m, int pid);

/* m->tree_pid, m->tree_loop, each loop's net, m->have_peers and the
 * loaders' reads from the job's own processes. */
void fs_m_load_peers(struct fs_q *q, struct fs_metrics *m);

#endif
