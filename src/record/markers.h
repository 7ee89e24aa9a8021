/* markers.h - the receiving end of the marker channel (docs/markers.md):
 * step and phase records sent by the job (Python hook, C API) become rows
 * of the steps and phases tables. */
#ifndef FS_MARKERS_H
#define FS_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#include "store/row.h"

#define FS_MARKERS_MAX_RECORD 1024
#define FS_MARKERS_MAX_CONNS 256

struct fs_markers;

/* Listen on a fresh abstract SOCK_SEQPACKET address. Returns NULL with a
 * reason in why (the run goes on without step timing). Free with
 * fs_markers_close. */
struct fs_markers *fs_markers_open(char *why, size_t whylen);

/* The value for FEEDSCOPE_MARKERS ("@name"); valid until close. */
const char *fs_markers_address(const struct fs_markers *m);

/* Descriptors to poll for input (the listener and every connection), into
 * fds[cap]; returns how many. */
int fs_markers_fds(const struct fs_markers *m, int *fds, int cap);

/* Accept pending connections and read every pending record into sink
 * (times made relative to start_ns). Never blocks. */
void fs_markers_drain(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns);

/* Turn one record into a row or a meta key. Returns 0, or -1 if it is
 * malformed or not allowed (nothing emitted). Pure apart from the sink. */
int fs_markers_parse(const char *rec, size_t len, struct fs_sink *sink, uint64_t start_ns);

/* Drain once more, write the markers.* counters to meta, close. */
void fs_markers_close(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns);

#endif
