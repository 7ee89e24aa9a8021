/* bench_db.h - the run file `feedscope bench --output FILE` writes
 * (bench_db.c): meta, `bench` and `bench_checkpoint` rows (docs/schema.md,
 * docs/bench.md). `feedscope report` reads it back with
 * fs_bench_report_file (bench/emu/run_report.h). */
#ifndef FS_STORE_BENCH_DB_H
#define FS_STORE_BENCH_DB_H

#include <stddef.h>

#include "bench/emu/run_report.h"

struct fs_store;

/* Fill the run file st (made by the caller with fs_store_create before the
 * benchmark ran, so that a bad --output is refused before anything is
 * read): meta, `bench` rows (per epoch and epoch -1, for every run or
 * trial), `bench_checkpoint`; then close it (st is freed either way).
 * Returns 0, or -1 with a reason in why. */
int fs_bench_write_store(struct fs_store *st, const struct fs_bench_report *b, int argc, char **argv, char *why,
			 size_t whylen);

#endif
