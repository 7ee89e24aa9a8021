/* stages.h - the DataLoader workers' time per stage of their pipeline
 * (loader_stages, schema 14: the hook's G1 records; docs/markers.md
 * "Stages"), over q's window: the types, and the reader. */
#ifndef FS_LOAD_STAGES_H
#define FS_LOAD_STAGES_H

#include <stdbool.h>

#include "analysis/load/query.h"

#define FS_MAX_STAGES 32

/* One stage, summed over the workers. seconds and cpu_s are inclusive (a
 * getitem holds the transforms the dataset runs inside it); self_s and
 * self_cpu_s exclusive (a getitem less its transforms; a transform or a
 * collate is its own). Shares are of the workers' time (worker_s); busy
 * shares of their time producing batches (busy_s). */
struct fs_loader_stage {
	char name[128];
	char kind[16];   /* "getitem", "transform", "collate" */
	int index;       /* a transform's place in its pipeline ([I] in its name), else -1 */
	long calls;
	double seconds, cpu_s, self_s, self_cpu_s;
	double share, self_share, busy_share, self_busy_share;
	/* getitem only: its workers' main threads inside file and socket calls
	 * (io_classes, the tracer; NaN: not traced): wall time, which holds the
	 * kernel's CPU for them, so it overlaps cpu_s */
	double io_s;
};

struct fs_stages {
	bool timed;        /* the run file has loader_stages rows in the window */
	bool have_table;   /* it has the table (schema 14) */
	char loader[64];   /* whose stages (the trainer's loader where it has rows, else all) */
	int workers;       /* worker processes that sent rows */
	long batches;
	double worker_s, worker_cpu_s; /* the workers' time in the window, and their main threads' CPU */
	double busy_s, busy_cpu_s;     /* of it, producing batches (fetch) */
	int n;             /* stages, largest self_s first */
	struct fs_loader_stage s[FS_MAX_STAGES];
};

/* Fill *st from q's window (a row covers (t - dt_s, t]: the part of it
 * inside the window counts, its figures spread evenly over it), for the loader named (its rows; all rows when
 * it has none, or loader is NULL or ""). Not recorded: st->timed false. */
void fs_m_load_stages(struct fs_q *q, const char *loader, struct fs_stages *st);

/* The stage of st that is the getitem (NULL: none timed). */
const struct fs_loader_stage *fs_stages_getitem(const struct fs_stages *st);

#endif
