/* speedup.h - the speedup to expect when the verdict's cause is fixed
 * (speedup.c, docs/verdicts.md "Predicted speedup"). Pure. */
#ifndef FS_SPEEDUP_H
#define FS_SPEEDUP_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/judge/verdict.h"

/* The trainer's file writes are mostly its other threads' (a background
 * checkpoint writer the loop waits on), not its loop thread's. */
bool fs_speedup_background_writer(const struct fs_metrics *m);

/* The loop's shortest step the device allows: the mean compute a step, or
 * the accelerator's own busy time a step where it says more (an
 * asynchronous device); NaN without steps. why (may be NULL) gets what
 * set it when the device's time did. */
double fs_speedup_device_step(const struct fs_metrics *m, char *why, size_t cap);

/* The cores the loaders may use: the machine's, less the training
 * process's own use when the loaders are its workers. */
double fs_speedup_loader_cores(const struct fs_metrics *m);

/* Set v->predicted_speedup (and v->speedup_cap, what capped it) for v's
 * primary cause; left NaN where the accounting cannot say. */
void fs_speedup(const struct fs_metrics *m, struct fs_verdict *v);

#endif
