/* verdict.h - from metrics to findings to a verdict: pure functions, no I/O
 * (the types: evidence.h, accounting.h, attribution.h; the storage family
 * of causes: storage.h).
 * The ids and their meaning are shared/design.md's taxonomy; the rules and
 * thresholds are documented in docs/verdicts.md. */
#ifndef FS_VERDICT_H
#define FS_VERDICT_H

#include "analysis/judge/accounting.h"
#include "analysis/judge/attribution.h"
#include "analysis/judge/evidence.h"
#include "analysis/judge/memory.h"
#include "analysis/judge/threads.h"
#include "analysis/load/metrics.h"
#include "analysis/load/phaseseries.h"
#include "analysis/thresholds.h"

#define FS_MAX_RECS 6
#define FS_MAX_MISSING 10

/* A change to make (advise/recommend.c fills them): part of the verdict. */
struct fs_recommendation {
	char relieves[64];  /* the resource it relieves: "loader concurrency", "storage bandwidth", ... */
	char knob[64];
	char current[128];
	char suggested[96];
	char why[240];
	/* Its own what-if (advise/whatif.c): the speedup predicted under the
	 * change as assumed (change), and the limit that caps it next (then);
	 * NaN, "": no model for it. */
	double speedup;
	char change[96];
	char then[112];
};

/* A phase of the loop: a stretch whose verdict differs from its
 * neighbours' (advise/phases.c, docs/verdicts.md "Phases"). */
struct fs_phase {
	double start_s, end_s;       /* seconds since the run started */
	long first_epoch, last_epoch; /* -1: epochs not known */
	enum fs_verdict_id primary;
	double input_bound_fraction, confidence, predicted_speedup;
	char limit[64];              /* the limit named: the storage's (bytes, iops, ...) or what its first recommendation relieves */
	char knob[64], suggested[96]; /* its first recommendation */
};

struct fs_verdict {
	enum fs_verdict_id primary;
	double input_bound_fraction; /* 0..1, NaN when neither steps nor GPU were recorded */
	double accelerator_idle_fraction;
	double confidence;           /* 0..1 */
	double predicted_speedup;    /* NaN when it cannot be estimated */
	char speedup_cap[160];       /* what capped the prediction, "" if nothing */
	char basis[64];              /* "steps", "gpu", "system signals" */
	int nev;
	struct fs_evidence ev[FS_MAX_EVIDENCE];
	int nrec;
	struct fs_recommendation rec[FS_MAX_RECS];
	int nfind;
	struct fs_finding find[FS_MAX_FINDINGS];
	int nmissing;
	char missing[FS_MAX_MISSING][160];
	/* The accounting of every training process; acct[trainer] is the one
	 * the verdict speaks for (the straggler: load/loops.h). */
	int nacct, trainer;
	struct fs_accounting acct[FS_MAX_LOOPS];
	char trainer_why[96];
	/* The runner-up cause where the verdict's was close to it ("" if none),
	 * and its share of the loaders' time / of the loop. */
	char runner_up[32];
	double runner_up_share;
	/* The loop's phases, in order (one: not split); steady is the one the
	 * run ends in; phase_method how they were found. */
	int nphases, steady;
	struct fs_phase phase[FS_MAX_PHASES];
	char phase_method[200];
	/* The memory findings, beside the causes (judge/memory.h) */
	struct fs_memory_verdict memory;
	/* The oversubscription finding, beside the causes (judge/threads.h) */
	struct fs_oversub oversub;
};

/* The accounting the verdict speaks for (the trainer's), or NULL. */
static inline const struct fs_accounting *fs_verdict_trainer(const struct fs_verdict *v)
{
	return v->trainer >= 0 && v->trainer < v->nacct ? &v->acct[v->trainer] : NULL;
}


/* The loop's wait is the training process's own work inside next(): its
 * CPU while it waited (load/mainwait.h) is half a core or more, or the
 * hook's parts of next() say its sampler and unpickling took half the wait
 * or more, or its pin thread was on a CPU half the loop or more. */
bool fs_main_process(const struct fs_metrics *m, const struct fs_thresholds *t);

/* The stable id ("storage_bandwidth", ...). */
const char *fs_verdict_name(enum fs_verdict_id id);

/* Judge: fill v from m with thresholds t: the accounting, the findings,
 * the primary cause and its evidence; no predicted speedup and no
 * recommendations (advise/ adds them: advise/diagnose.h's fs_diagnose is
 * both). Deterministic. */
void fs_judge(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v);

#endif
