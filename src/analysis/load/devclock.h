/* devclock.h - the accelerator's idle time inside the host's waits for
 * input, on the device's own clock (devclock.c, docs/verdicts.md "The
 * device's clock"). An asynchronous device works while the host waits in
 * next(): the host's wait is not the device's idle. */
#ifndef FS_LOAD_DEVCLOCK_H
#define FS_LOAD_DEVCLOCK_H

#include "analysis/load/metrics.h"
#include "analysis/load/query.h"

/* Set L->dev_idle_wait_s, _lower_s and dev_clock for the training process
 * ?3 over q's window (its loop's span), once L->gpu_basis is known: from
 * its steps' device events where the hook recorded them, else from its GPU's
 * samples against its waits; NaN and "" when neither can say. */
void fs_m_device_clock(struct fs_q *q, struct fs_loop_proc *L, int ngpus);

#endif
