/* probe_int.h - what probe.c (the directory, the device, the clean-up) and
 * probe_io.c (the measurements) share; not for other users. */
#ifndef FS_BENCH_PROBE_INT_H
#define FS_BENCH_PROBE_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/io/engine.h"
#include "bench/probe/probe.h"
#include "util/hist.h"

/* One probe in progress. */
struct fs_probe_env {
	int subfd;                          /* O_PATH descriptor of the probe's own directory */
	volatile sig_atomic_t *stop;        /* set by SIGINT/SIGTERM/SIGHUP */
	bool progress;                      /* the updating line on stderr */
	int step, steps;                    /* "[step/steps]" on that line */
	uint64_t next_show_ns;
	int shown;                          /* 0: the step has not started showing, 1: started, 2: a line is up */
	char *why;
	size_t whylen;
};

/* What one timed run of reads measured. */
struct fs_probe_reads {
	uint64_t ops, bytes;
	double elapsed_s;
};

/* Show "[step/steps] what: done of total, rate, T left" when due (4 times a
 * second). done and total are seconds (kind 't'), files ('n') or bytes
 * ('b'); rate is already formatted. */
void fs_probe_show(struct fs_probe_env *e, uint64_t now_ns, const char *what, char kind, double done,
		   double total, const char *rate);
/* Erase the progress line. */
void fs_probe_show_end(struct fs_probe_env *e);

/* Write the test file (already open, write-only) with bytes of
 * pseudo-random data in 1 MiB writes, then fsync. Returns 0 and the rate
 * (bytes/s) in *bytes_per_s, or -1 with why set (or stopped). */
int fs_probe_write_file(struct fs_probe_env *e, int fd, uint64_t bytes, double *bytes_per_s);

/* Reads of block bytes from fd (file_bytes long) through engine eng at
 * queue depth qd, sequential or at uniformly random block-aligned offsets,
 * for runtime_s; latencies into h. Returns 0, or -1 with why set (an I/O
 * error, the engine could not start, or stopped). */
int fs_probe_read_test(struct fs_probe_env *e, const char *what, const struct fs_io_engine_ops *eng, int fd,
		       uint64_t file_bytes, size_t block, unsigned qd, bool random, double runtime_s,
		       struct fs_hist *h, struct fs_probe_reads *out);

/* The metadata test: files small files created (with 4 KiB), stat()ed,
 * opened, closed and unlinked in the probe's directory. Fills r's meta
 * figures. Returns 0, or -1 with why set. */
int fs_probe_meta_test(struct fs_probe_env *e, uint32_t files, struct fs_probe_result *r);

/* The fsync test: a 4 KiB write then fsync, for runtime_s. Fills r's fsync
 * figures. Returns 0, or -1 with why set. */
int fs_probe_fsync_test(struct fs_probe_env *e, double runtime_s, struct fs_probe_result *r);

/* Percentiles of h, in microseconds, into l (NAN when h is empty). */
void fs_probe_lat_from(struct fs_probe_lat *l, const struct fs_hist *h);

#endif
