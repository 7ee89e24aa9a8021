/* attribution.h - what the loaders did with their own time
 * (attribution.c, docs/verdicts.md "Why the input is late"). Pure: a
 * function of struct fs_metrics. */
#ifndef FS_ATTRIBUTION_H
#define FS_ATTRIBUTION_H

#include <stdbool.h>

#include "analysis/load/metrics.h"

/* The loaders' own time by what they did, shares 0..1 of
 * their sampled process time: socket reads (network), file reads plus page
 * faults (storage, of which faults), metadata calls, running on a CPU
 * (sampled states, throttled time included), and the rest (idle). The
 * calls are the loaders' main threads' (io_classes). */
struct fs_loader_shares {
	double network, storage, faults, metadata, cpu, idle;
};

/* Fill s from m. Returns false, s all NaN, when the run file has no
 * io_classes or the loaders' time is unknown. */
bool fs_loader_shares(const struct fs_metrics *m, struct fs_loader_shares *s);

#endif
