/* phases.h - the loop's phases: each candidate stretch (load/phaseseries.h)
 * diagnosed on its own, neighbours with the same verdict joined
 * (phases.c, docs/verdicts.md "Phases"). Pure. */
#ifndef FS_PHASES_H
#define FS_PHASES_H

#include "analysis/judge/verdict.h"
#include "analysis/load/phaseseries.h"
#include "analysis/thresholds.h"

/* Fill v's phases (v: m's diagnosis, the whole run's) from the candidates
 * c and seg[k], the metrics loaded over c->span[k] (NULL, or c->n < 2: one
 * phase, the whole run's). */
void fs_phases(const struct fs_phase_cands *c, const struct fs_metrics *m, const struct fs_metrics *seg,
	       const struct fs_thresholds *t, struct fs_verdict *v);

#endif
