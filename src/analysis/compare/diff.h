/* diff.h - two run files side by side (`feedscope diff A.db B.db`): their
 * verdicts, the step time and samples/s of each trainer, each accounting
 * bucket before and after, the loader knobs and environment (meta) that
 * differ, the resources whose figures changed, and one headline sentence
 * ("B is 1.9× faster per step: input wait 62% → 8% after num_workers 2 → 8").
 *
 * Reading: each run goes through the report's path (merge.h: fs_merge_head,
 * fs_merge_load, fs_merge on one file), so its verdict is the one `report`
 * prints; fs_diff_meta_load reads the meta keys compared. fs_diff is a pure
 * function of what they read (docs/verdicts.md, "diff"). */
#ifndef FS_DIFF_H
#define FS_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/compare/merge.h"

/* A figure (or a bucket, or the step time) has changed when A and B differ
 * by at least this share of its scale: of the whole for a share (10 points
 * of a bucket or of a %-figure), of the larger value for anything else
 * (10% of a rate, of a step time). The reason: below it, two runs of the
 * same job on the same machine differ by their sampling and scheduling
 * alone (docs/verdicts.md gives the measurement), so a smaller change is
 * not told from noise. */
#define FS_DIFF_CHANGED 0.10

/* The meta keys compared, only those feedscope itself writes (never
 * `user.*`, which a job may fill with anything, tokens included):
 * every `loader.<name>.<knob>`, `probe.<disk>.*`, and the environment
 * keys listed in diff.c. */
#define FS_DIFF_MAX_META 160
#define FS_DIFF_VALUE_CAP 520 /* meta values from the job are cut to 512 bytes */

struct fs_diff_kv {
	char key[96];
	char value[FS_DIFF_VALUE_CAP];
};

struct fs_diff_meta {
	int n;
	struct fs_diff_kv kv[FS_DIFF_MAX_META]; /* in key order */
	bool cut;                              /* more keys than fit: the rest not compared */
};

/* Read the compared meta keys of the run file at path. Returns 0, or -1
 * with a reason in err (cannot open, not a run file, a failed query). */
int fs_diff_meta_load(const char *path, struct fs_diff_meta *meta, char *err, size_t errlen);

/* One run as the diff shows it: its trainer (the process its verdict
 * speaks for). NaN where unknown. */
struct fs_diff_side {
	enum fs_verdict_id verdict;
	double input_bound, confidence, predicted_speedup;
	char basis[64];
	bool incomplete;
	bool acct_valid;
	char acct_basis[32];
	double share[FS_BUCKET__N];
	char loader[64];           /* its main loader ("" when none) */
	long steps;                /* the trainer's */
	double loop_s;
	double step_s;             /* loop_s / steps (NaN without steps) */
	int batch_size;            /* the main loader's, -1 unknown */
	double samples_per_s;      /* steps × batch_size / loop_s (NaN when either is unknown) */
};

/* A meta key whose value differs (or is in one run only). */
struct fs_diff_pair {
	char key[96];              /* the key as shown: a main-loader knob by its name alone */
	char a[FS_DIFF_VALUE_CAP], b[FS_DIFF_VALUE_CAP];
	bool in_a, in_b;
	bool main_knob;            /* a knob of the two main loaders (the headline names these) */
};

/* A resource figure (its name and unit are its metric definition's,
 * metricdefs_table.h) of each run, over each trainer's loop. */
struct fs_diff_figure {
	const char *name, *unit;
	char key[136];             /* the disk or interface ("vda", "vda → vdb"), "" for the machine's */
	double a, b;               /* NaN: not recorded */
	double ratio;              /* b / a (NaN when a is 0 or either unknown) */
	bool changed;              /* |b - a| >= FS_DIFF_CHANGED × its scale */
};

#define FS_DIFF_MAX_PAIRS 64
#define FS_DIFF_MAX_FIGURES 24

/* Like phases of the two runs side by side (docs/verdicts.md "Phases"): a
 * phase of A and one of B with the same cause, in order; a phase of one
 * run only has -1 for the other. */
struct fs_diff_phase {
	int a, b;                  /* indices into each verdict's phases, -1: none */
	enum fs_verdict_id primary;
	double input_bound_a, input_bound_b;
	double length_a, length_b; /* seconds */
};

struct fs_diff {
	struct fs_diff_side a, b;
	int nphases;               /* 0 unless a run has several phases */
	struct fs_diff_phase phase[2 * FS_MAX_PHASES];
	double step_ratio;         /* b.step_s / a.step_s */
	double samples_ratio;      /* b.samples_per_s / a.samples_per_s */
	bool step_changed;         /* the step time changed (FS_DIFF_CHANGED of the larger) */
	bool by_samples;           /* the batch sizes differ: the speed is compared in samples/s */
	double bucket_change[FS_BUCKET__N]; /* b - a, NaN unless both accountings are valid */
	int largest_bucket;        /* the idle bucket (not busy) that moved most; -1 when none is known */
	bool bucket_moved;         /* it moved by FS_DIFF_CHANGED or more */
	int nknobs;                /* loader.* keys that differ, main loaders' knobs first */
	struct fs_diff_pair knobs[FS_DIFF_MAX_PAIRS];
	int nenv;                  /* environment keys that differ */
	struct fs_diff_pair env[FS_DIFF_MAX_PAIRS];
	bool pairs_cut;            /* more differences than fit */
	int nfig, nchanged;        /* every figure compared, and how many changed */
	struct fs_diff_figure fig[FS_DIFF_MAX_FIGURES];
	bool identical;            /* same verdict, step time, buckets, knobs, environment; no figure changed */
	char headline[640];        /* one line, UTF-8 (× and →); strings from the run files escaped */
};

/* Compare run a (its merged verdict ga, its meta ma) with run b. Pure. */
void fs_diff(const struct fs_merged *ga, const struct fs_diff_meta *ma, const struct fs_merged *gb,
	     const struct fs_diff_meta *mb, struct fs_diff *d);

#endif
