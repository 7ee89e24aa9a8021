/* gen.h - `feedscope bench generate` and `feedscope bench clean`: the
 * dataset a workload reads, written under DIR in a real format (the table
 * of formats.h; docs/bench-formats.md), with its manifest (dataset.h); and
 * its removal. src/cmd/bench.c dispatches here, src/cmd/bench_gen.c parses
 * the command line of `bench generate`. */
#ifndef FS_BENCH_GEN_H
#define FS_BENCH_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_workload;

/* `feedscope bench generate (--workload NAME | --config FILE.yaml) --dir D
 * [--scale S] [--format F] [--threads N] [--seed N]`. argv[0] is
 * "generate". Returns the exit status (0, 1 failed, 2 bad usage or a
 * safety refusal: nothing written). */
int fs_bench_generate_main(int argc, char **argv);

/* `feedscope bench clean --dir D`: remove only what feedscope made (the
 * manifest's files, the partial plan's, checkpoints/, the manifest and the
 * marker; DIR itself when feedscope created it). Returns the exit status. */
int fs_bench_clean_main(int argc, char **argv);

/* Generate w's dataset under dir with threads writers (0: the number of
 * online CPUs). Used by fs_bench_generate_main and by tests/tools. Returns
 * 0, FS_SAFETY_REFUSED (-1) or FS_SAFETY_FAILED (-2) with a reason in why. */
int fs_bench_generate(const struct fs_workload *w, const char *dir, unsigned threads, uint64_t seed,
		      bool progress, char *why, size_t whylen);

#endif
