/* machine.h - the machine's figures over q's window (cpu, psi, memory,
 * tcp, nfs), the device that holds the data, the network interface, and
 * which limit of the storage the loaders met (saturation.h). Part of
 * fs_metrics_load (load.c), last: q's window is then the trainer's loop. */
#ifndef FS_LOAD_MACHINE_H
#define FS_LOAD_MACHINE_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

void fs_m_load_machine(struct fs_q *q, struct fs_metrics *m);

#endif
