/* phaseseries.h - where a training process's loop may change phase: its
 * per-second series cut where its level changes (phaseseries.c,
 * docs/verdicts.md "Phases"). Reads the run file. */
#ifndef FS_PHASESERIES_H
#define FS_PHASESERIES_H

#include <stddef.h>

#include "analysis/load/metrics.h"

#define FS_MAX_PHASES 6

/* A stretch of the loop, seconds since the run started; the epochs whose
 * first step falls in it (first_epoch -1: epochs not known). */
struct fs_phase_span {
	double start_s, end_s;
	long first_epoch, last_epoch;
};

struct fs_phase_cands {
	int n;                  /* spans; 1: one phase, not split */
	struct fs_phase_span span[FS_MAX_PHASES];
	int bins;               /* the series' length, bins */
	double bin_s;           /* a bin's length */
	int features;           /* the columns weighed */
	long epochs;            /* epochs with a first step in the loop (0: not known) */
	char method[200];       /* how the cuts were found, or why none was sought */
};

/* The candidates of m's trainer (m: fs_metrics_load of path over the same
 * window): its loop's span in bins of series_1s (schema 8), each bin's
 * input-wait share of the steps that ended in it, its loaders' running and
 * blocked shares of their threads, and the GPUs' use, cut by
 * fs_changepoints; at epoch starts only where the steps say where epochs
 * start. noise_floor is the least noise assumed of a share (thresholds.h).
 * One span, and why, when the run is too short or has no series. Returns
 * 0, or -1 with a reason in err when the file could not be read. */
int fs_m_phase_candidates(const char *path, const struct fs_metrics *m, double noise_floor,
			  struct fs_phase_cands *c, char *err, size_t errlen);

#endif
