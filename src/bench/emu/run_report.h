/* run_report.h - what `feedscope bench` prints and keeps: the text table,
 * the fio-shaped JSON document, and `feedscope report` on a bench run file
 * (the run file itself is written by store/bench_db.h; docs/bench.md,
 * docs/schema.md). */
#ifndef FS_BENCH_RUN_REPORT_H
#define FS_BENCH_RUN_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/emu/checkpoint.h"
#include "bench/emu/run.h"
#include "bench/host/usage.h"

/* Everything one invocation did, for the printers. */
struct fs_bench_report {
	const struct fs_workload *w;
	const char *workload_arg;      /* --workload NAME or --config FILE as given */
	const char *dir;
	double scale;
	const char *engine;
	bool direct;
	unsigned qd;
	uint32_t steps_opt;            /* --steps (0: none) */
	bool find_max;
	uint64_t dataset_files, dataset_samples, dataset_bytes;
	const struct fs_run_result *runs; /* the run, or every trial of --find-max-accelerators */
	int nruns;
	int best;                      /* find-max: index of the largest passing trial, -1: none */
	bool capped;                   /* find-max: stopped by the data or the thread limit, not by a failing trial */
	const struct fs_ckpt_result *ckpt; /* NULL when no checkpoint was written */
	uint64_t ckpt_bytes;           /* all ranks */
	const struct fs_ckpt_result *ckpt_each; /* each checkpoint [nckpt], for DLIO's means and stdevs */
	uint32_t nckpt;
	int ranks;
	uint64_t start_unix_ns, end_unix_ns;
	/* the page-cache guard (bench/host/cache_guard.h) */
	bool potential_caching;        /* the dataset is less than 5 × the client's memory */
	bool allow_cache;              /* --allow-cache: a PASS is claimed even so */
	uint64_t client_mem_bytes;     /* the memory the guard compared with (0: unknown) */
	const struct fs_usage *usage;  /* CPU, faults and disks over the run (fio's shape); NULL: none */
};

/* Whether r's PASS is claimed: its AU held the threshold, and the page-cache
 * guard did not fire (or --allow-cache was given). */
bool fs_bench_claim(const struct fs_bench_report *b, const struct fs_run_result *r);

/* One document in fio's JSON shape (render/fio_json.h): a job per run or
 * trial (reads), and one for the checkpoint (writes and reads). */
void fs_bench_print_fio(FILE *out, const struct fs_bench_report *b);

/* The text table(s) and the pass/fail line. */
void fs_bench_print_text(FILE *out, const struct fs_bench_report *b);

/* One fio-shaped JSON document. */
void fs_bench_print_json(FILE *out, const struct fs_bench_report *b);

/* One line per find-max trial as it finishes (text mode). */
void fs_bench_print_trial(FILE *out, const struct fs_run_result *r);

/* `feedscope report` on a run file: when path was written by `bench
 * --output` (meta mode = bench), print its bench summary (text) or its
 * rows (json) and return 1; return 0 for any other file, run file or not
 * (nothing printed: the caller reports on it or says why it cannot). err
 * is scratch space. */
int fs_bench_report_file(FILE *out, const char *path, bool json, char *err, size_t errlen);

#endif
