/* nodesample.h - the machine's own figures, sampled for the exporter
 * without a run file: the machine-wide sources (cpu, psi, mem, disk, net:
 * src/source/, through their ops structs, driven by a recorder of their
 * own) feed analysis/load/nodestat.h instead of a run file. A source that
 * cannot be opened here is said once on stderr (the recorder's "psi: ...;
 * skipped") and left out; the others go on. One caller (thread) at a time. */
#ifndef FS_NODESAMPLE_H
#define FS_NODESAMPLE_H

#include <stddef.h>

#include "analysis/load/nodestat.h"

/* Seconds between samples (the recorder's system interval by default, and
 * iostat's and node_exporter's usual). */
#define FS_NODESAMPLE_INTERVAL_S 1.0

struct fs_nodesample;

/* Open the sources (paths from the environment: FEEDSCOPE_PROC_ROOT ...).
 * Returns the sampler, or NULL with why in err (out of memory). */
struct fs_nodesample *fs_nodesample_open(char *err, size_t errlen);

/* Sample every source at t seconds since the first sample (0 for the
 * first, which gives no rates yet). Returns the figures, valid until the
 * next call (owned by the sampler). */
const struct fs_nodestat *fs_nodesample_take(struct fs_nodesample *n, double t);

/* The figures so far (before any sample: none), owned by the sampler. */
const struct fs_nodestat *fs_nodesample_stat(const struct fs_nodesample *n);

/* Close the sources, free n (NULL: no-op). */
void fs_nodesample_close(struct fs_nodesample *n);

#endif
