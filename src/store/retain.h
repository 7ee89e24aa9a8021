/* retain.h - which raw rows a long run keeps (issue 14: bounded run files).
 *
 * The per-minute tables (rollup.h) hold the whole run; the raw rows are
 * kept for the first FS_RETAIN_HEAD_S of the recording, the latest
 * FS_RETAIN_TAIL_S, and around what one looks at in detail later:
 *   - a stall: a step that waited at least FS_RETAIN_STALL_S and
 *     FS_RETAIN_STALL_FACTOR times the mean step, or an accelerator idle
 *     that long after it had worked; every table's rows within
 *     FS_RETAIN_AROUND_S of it, at most one stall every
 *     FS_RETAIN_STALL_EVERY_S (the first of each stretch);
 *   - a phase (checkpoint, epoch_end, validation; not collectives): the
 *     GPU's samples inside it, FS_RETAIN_PHASE_MARGIN_S either side (the
 *     accelerator's use during a checkpoint is read from them);
 *   - each epoch's first FS_RETAIN_EPOCH_STEPS steps (step 0's wait beyond
 *     the usual one is the epoch-start bucket);
 *   - a new generation of a process's children (a child first seen on a
 *     later tick than the process's first child: non-persistent DataLoader
 *     workers started for the next epoch): every table's rows from
 *     FS_RETAIN_RESTART_BEFORE_S before to FS_RETAIN_RESTART_AFTER_S after
 *     it, at most one every FS_RETAIN_RESTART_EVERY_S (without steps, the
 *     epoch boundaries are read from them: analysis/load/epochs.c).
 * Everything else is deleted a minute at a time, once the minute has left
 * the latest FS_RETAIN_TAIL_S (store.c): of the phases, the collectives
 * (one per step and rank in a DDP job; phases_1m counts them all). The
 * other phases are kept whole. `--keep-all` keeps every row.
 *
 * Pure: rows in, spans out; no SQLite here. */
#ifndef FS_RETAIN_H
#define FS_RETAIN_H

#include <stdbool.h>

#include "store/row.h"

#define FS_RETAIN_HEAD_S 3600.0
#define FS_RETAIN_TAIL_S 3600.0
#define FS_RETAIN_STALL_S 1.0
#define FS_RETAIN_STALL_FACTOR 5.0
#define FS_RETAIN_AROUND_S 10.0
#define FS_RETAIN_STALL_EVERY_S 1800.0
#define FS_RETAIN_PHASE_MARGIN_S 2.0
#define FS_RETAIN_EPOCH_STEPS 64
#define FS_RETAIN_RESTART_BEFORE_S 30.0
#define FS_RETAIN_RESTART_AFTER_S 30.0
#define FS_RETAIN_RESTART_EVERY_S 60.0
#define FS_RETAIN_SPANS 4096
#define FS_RETAIN_GPUS 16
#define FS_RETAIN_PIDS 4096 /* processes told apart (more: the later ones add no span) */

/* What a span keeps: every table's rows, or the GPU's alone. */
enum fs_retain_kind { FS_RETAIN_ALL, FS_RETAIN_GPU };

struct fs_retain_span {
	double a, b;
	enum fs_retain_kind kind;
};

struct fs_retain {
	struct fs_retain_span span[FS_RETAIN_SPANS];
	int n;
	double step_mean_s; /* of the steps so far (NaN before the first) */
	long steps;
	double last_stall;  /* start of the latest stall kept (-inf: none) */
	double idle_from[FS_RETAIN_GPUS]; /* since when the GPU is idle (NaN: busy) */
	bool worked[FS_RETAIN_GPUS];
	long stalls;        /* kept so far */
	/* processes seen (open addressing, 0 free), and of each parent the t
	 * of its first child */
	int seen[FS_RETAIN_PIDS];
	int parent[FS_RETAIN_PIDS];
	double first_child_t[FS_RETAIN_PIDS];
	double last_restart; /* t of the latest generation kept (-inf: none) */
	long restarts;       /* generations kept so far */
};

void fs_retain_init(struct fs_retain *r);

/* Look at a row as it is stored: a step, a phase, a GPU sample or a
 * process's first sample may add a span. */
void fs_retain_row(struct fs_retain *r, const struct fs_row *row);

/* The stretches of (a, b] that no span of the kinds given keeps (for the
 * GPU's rows: both kinds; for the others: FS_RETAIN_ALL), as (gap[i][0],
 * gap[i][1]]; returns how many (at most cap). */
int fs_retain_gaps(const struct fs_retain *r, bool gpu, double a, double b, double (*gap)[2], int cap);

/* Drop the spans that end before t (their minutes are decided). */
void fs_retain_forget(struct fs_retain *r, double t);

#endif
