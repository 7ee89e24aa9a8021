/* tracefmt.h - the tracer's regions (src/trace/region.h), as read by
 * traceread.h into private copies, into rows: clock conversion, the files
 * table, the ops ring. */
#ifndef FS_TRACEFMT_H
#define FS_TRACEFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "source/source.h"
#include "source/traceread.h"
#include "trace/region.h"

/* The recorder's own measurement of the tracer's clock (the TSC on
 * x86-64): ticks per nanosecond, refined every tick. The one place a
 * source reads a clock: the TSC has no other source of truth. */
struct fs_trace_timebase {
	uint64_t tsc_start, ns_start;
	double ticks_per_ns; /* 0 until 10 ms have passed */
};

void fs_trace_clock_init(struct fs_trace_timebase *c, uint64_t now_ns);
void fs_trace_clock_update(struct fs_trace_timebase *c, uint64_t now_ns);

/* A duration in the region's clock units, in seconds (NaN if unknown yet). */
double fs_trace_clock_seconds(const struct fs_trace_timebase *c, const struct fs_trace_head *r, uint64_t units);

/* A region clock reading as CLOCK_MONOTONIC nanoseconds (0 if unknown). */
uint64_t fs_trace_clock_mono(const struct fs_trace_timebase *c, const struct fs_trace_head *r, uint64_t stamp);

/* Emit one files row per record that r->used marks and files[] holds READY
 * (files: the copies fs_trace_read_files made); returns how many. */
uint64_t fs_trace_emit_files(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			     const struct fs_trace_file *files, const struct fs_source_ctx *ctx, bool hash_paths);

/* Emit one io_classes row per (thread kind, descriptor class) of r whose
 * counters moved since `done` (what was emitted up to now; zeroed for a
 * new region), each holding the increase; `done` is then brought up to r.
 * Returns the rows emitted. */
uint64_t fs_trace_emit_classes(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			       struct fs_trace_class done[FS_TRACE_THREADS][FS_TRACE_CLASSES],
			       const struct fs_source_ctx *ctx);

/* Emit the peers rows of r's peers table (peers: the copy
 * fs_trace_read_peers made): per READY entry, one row per thread kind that
 * made calls on it, one row for a listening endpoint, and "(other peers)"
 * for entry 0 if it was used. hash_paths: Unix socket names hashed (IP
 * addresses stay in clear). Returns how many. */
uint64_t fs_trace_emit_peers(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			     const struct fs_trace_peer *peers, const struct fs_source_ctx *ctx, bool hash_paths);

/* An endpoint's address as the peers table shows it, into out[cap]
 * (at least 64): "127.0.0.1", "::1", a Unix path, "@name", "(unnamed)";
 * "" for none. */
void fs_trace_addr_text(const struct fs_trace_endpoint *ep, char *out, size_t cap);

/* "file", "socket", "pipe", "device", "other" (io_classes.class); "?" out of range. */
const char *fs_trace_class_name(int cls);

/* Emit ops rows for the ring entries of the region open at fd from *pos up
 * to r->ops_head (fs_trace_read_ops; `final`: the process is gone), at most
 * max_rows in all (counted in *rows); entries overwritten before being read,
 * or past max_rows, are added to *lost. Returns the entries read, or -1 if
 * the region could not be read (no memory, or the file shrank). */
int fs_trace_emit_ops(const struct fs_trace_timebase *c, const struct fs_trace_head *r, struct fs_trace_reader *rd,
		      int fd, uint64_t *pos, bool final, const struct fs_source_ctx *ctx, bool hash_paths,
		      uint64_t *rows, uint64_t max_rows, uint64_t *lost);

#endif
