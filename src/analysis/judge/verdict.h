/* verdict.h - from metrics to findings to a verdict: pure functions, no I/O.
 * The ids and their meaning are shared/design.md's taxonomy; the rules and
 * thresholds are documented in docs/verdicts.md. */
#ifndef FS_VERDICT_H
#define FS_VERDICT_H

#include "analysis/load/metrics.h"
#include "analysis/thresholds.h"

enum fs_verdict_id {
	FS_VERDICT_COMPUTE_BOUND,
	FS_VERDICT_STORAGE_BANDWIDTH,
	FS_VERDICT_STORAGE_LATENCY,
	FS_VERDICT_METADATA,
	FS_VERDICT_CPU_PREPROCESS,
	FS_VERDICT_LOADER_PARALLELISM,
	FS_VERDICT_NETWORK,
	FS_VERDICT_MEMORY_PRESSURE,
	FS_VERDICT_CHECKPOINT_STALL,
	FS_VERDICT_EPOCH_START,
	FS_VERDICT_HOST_TO_DEVICE,
	FS_VERDICT_UNDETERMINED,
	FS_VERDICT__N
};

/* The stable id ("storage_bandwidth", ...). */
const char *fs_verdict_name(enum fs_verdict_id id);

#define FS_MAX_EVIDENCE 10
#define FS_MAX_FINDINGS 6
#define FS_MAX_RECS 6
#define FS_MAX_MISSING 10

struct fs_evidence {
	char metric[48];  /* e.g. "loader_blocked_io_share" */
	double value;
	char unit[16];    /* "fraction", "MB/s", "ms", "bytes", "%", ... */
	char source[80];  /* the table or signal it came from: "steps", "proc", "disk:loop0" */
	char text[200];   /* the same, for people */
};

struct fs_finding {
	enum fs_verdict_id id;
	double severity;         /* 0..1: how much of the idle time it explains */
	double fraction_of_time; /* share of the loop's (or run's) time, NaN if unknown */
	int nev;
	struct fs_evidence ev[FS_MAX_EVIDENCE];
};

/* The accounting (accounting.c, docs/verdicts.md): a training process's
 * loop time in buckets that add up to 1. */
enum fs_bucket {
	FS_BUCKET_BUSY,        /* the accelerator busy */
	FS_BUCKET_INPUT,       /* waiting for input (steady state) */
	FS_BUCKET_HOST_IO,     /* checkpoint and other host-side file I/O of the loop's thread */
	FS_BUCKET_RANKS,       /* waiting on other ranks (inside collectives) */
	FS_BUCKET_EPOCH,       /* epoch boundaries (worker start-up and shutdown) */
	FS_BUCKET_OTHER,       /* host-side other: the rest, unexplained */
	FS_BUCKET__N
};

/* The stable name of a bucket ("busy", "input_wait", "host_io",
 * "other_ranks", "epoch_boundary", "other"). */
const char *fs_bucket_name(enum fs_bucket b);

struct fs_accounting {
	bool valid;               /* false: neither steps nor an accelerator signal */
	int pid, rank;            /* rank -1 when unknown */
	double loop_s;
	double share[FS_BUCKET__N]; /* 0..1, summing to 1 when valid */
	char basis[32];           /* "steps + gpu", "steps", "gpu" */
};

/* Split process L's loop time (m for the job-wide signals). Returns
 * a->valid. */
bool fs_account(const struct fs_metrics *m, const struct fs_loop_proc *L, struct fs_accounting *a);

struct fs_recommendation {
	char relieves[64];  /* the resource it relieves: "loader concurrency", "storage bandwidth", ... */
	char knob[64];
	char current[128];
	char suggested[96];
	char why[240];
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
	 * the verdict speaks for (the straggler: metrics.h). */
	int nacct, trainer;
	struct fs_accounting acct[FS_MAX_LOOPS];
	char trainer_why[96];
	/* The runner-up cause where the verdict's was close to it ("" if none),
	 * and its share of the loaders' time / of the loop. */
	char runner_up[32];
	double runner_up_share;
};

/* The accounting the verdict speaks for (the trainer's), or NULL. */
static inline const struct fs_accounting *fs_verdict_trainer(const struct fs_verdict *v)
{
	return v->trainer >= 0 && v->trainer < v->nacct ? &v->acct[v->trainer] : NULL;
}

/* The loaders' own time by what they did (attribution.c), shares 0..1 of
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

/* Diagnose: fill v from m with thresholds t. Deterministic. */
void fs_diagnose(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v);

/* recommend.c: the speedup to expect and the knobs to change, for v's
 * primary and secondary findings. Called by fs_diagnose. */
void fs_recommend(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v);

/* Append an evidence item to a list (no-op when full); text is printf-like. */
void fs_evidence_add(struct fs_evidence *list, int *n, const char *metric, double value,
		     const char *unit, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

#endif
