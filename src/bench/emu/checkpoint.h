/* checkpoint.h - the checkpoint part of `feedscope bench`: write a model's
 * checkpoint (one file, or one per rank), fsync it, drop it from the page
 * cache (posix_fadvise DONTNEED; nothing is written for that) and read it
 * back, timing each, as MLPerf Storage's checkpointing workloads do. Files
 * go to DIR/checkpoints/ under the rules of safety.h and are removed after
 * the read unless keep is set. */
#ifndef FS_BENCH_CHECKPOINT_H
#define FS_BENCH_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_ckpt_opts {
	const char *dir;        /* the benchmark directory (already prepared: marker present) */
	uint64_t bytes;         /* this rank's share of the checkpoint */
	unsigned files;         /* files this rank writes (>= 1); the bytes are split evenly */
	const char *engine;     /* "psync", "io_uring", "mmap" (engine.h) */
	bool direct;            /* O_DIRECT */
	size_t block_bytes;     /* request size; 0: 4 MiB */
	unsigned qd;            /* queue depth for io_uring; 0: 8 */
	int rank;               /* names the files: ckpt-r<rank>-<i>.bin */
	bool keep;              /* leave the files (bench clean removes them) */
};

struct fs_ckpt_result {
	uint64_t bytes_written, bytes_read;
	unsigned files;
	double write_s;          /* first write to the end of the last fsync */
	double fsync_s;          /* of which in fsync */
	double read_s;           /* reading it all back */
	double write_bytes_per_s, read_bytes_per_s;
};

/* Write, fsync and read back a checkpoint as o says. Returns 0, or -1 with
 * a one-line reason in why (what was written is removed either way unless
 * o->keep). */
int fs_bench_checkpoint(const struct fs_ckpt_opts *o, struct fs_ckpt_result *r, char *why, size_t whylen);

#endif
