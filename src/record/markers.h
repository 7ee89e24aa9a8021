/* markers.h - the receiving end of the marker channel (docs/markers.md):
 * step and phase records sent by the job (Python hook, C API) become rows
 * of the steps and phases tables. Only processes of the job's uid (and
 * root) may write: anyone else's connection is closed unread. Text from the
 * job (names, meta values) is stored cleaned: valid UTF-8, no control
 * characters, bounded. */
#ifndef FS_MARKERS_H
#define FS_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/row.h"

#define FS_MARKERS_MAX_RECORD 1024
#define FS_MARKERS_MAX_CONNS 256
#define FS_MARKERS_MAX_VALUE 512 /* bytes of a meta value kept */
/* Steps announced by S2 and held for their device figure (D1): at most
 * this many at once (the oldest goes without its figure to make room), each
 * at most FS_MARKERS_HOLD_NS (then it goes without: a step is written well
 * within the 10 s the per-minute and per-second tables wait for steps). */
#define FS_MARKERS_MAX_HELD 1024
#define FS_MARKERS_HOLD_NS 5000000000ull

struct fs_markers;

/* Listen on a fresh abstract SOCK_SEQPACKET address. Returns NULL with a
 * reason in why (the run goes on without step timing). Free with
 * fs_markers_close. */
struct fs_markers *fs_markers_open(char *why, size_t whylen);

/* The uid whose processes may write records (besides root's). Default:
 * feedscope's effective uid, the one the job is launched with. */
void fs_markers_set_job_uid(struct fs_markers *m, uid_t uid);

/* The value for FEEDSCOPE_MARKERS ("@name"); valid until close. */
const char *fs_markers_address(const struct fs_markers *m);

/* Descriptors to poll for input (the listener and every connection), into
 * fds[cap]; returns how many. The connections that did not fit are
 * remembered for fs_markers_unpolled. */
int fs_markers_fds(struct fs_markers *m, int *fds, int cap);

/* Read the connections the last fs_markers_fds could not hand out (a poll
 * set too small for them all): each tick, as nothing else would wake the
 * loop for them. The listener and the rest are in the poll set:
 * fs_markers_drain when poll says one is ready. */
void fs_markers_unpolled(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns);

/* Accept pending connections (a stranger's is closed at once and takes no
 * slot; at most 1024 per call) and read every pending record into sink
 * (times made relative to start_ns). Never blocks. */
void fs_markers_drain(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns);

/* Turn one record into a row or a meta key. Returns 0, 1 if a name or
 * value had to be cleaned (fs_markers_clean; a meta value is also cut to
 * FS_MARKERS_MAX_VALUE bytes), or -1 if it is malformed or not allowed
 * (nothing emitted; a meta key must be printable ASCII). Pure apart from
 * the sink. S2 and D1 records are refused here: they need a channel's
 * held steps (fs_markers_record). */
int fs_markers_parse(const char *rec, size_t len, struct fs_sink *sink, uint64_t start_ns);

/* The same, for a record read from connection conn of m at now_ns (the
 * recorder's CLOCK_MONOTONIC), which also takes the steps whose device
 * figure is to come (docs/markers.md): an S2 step is held in m until the
 * D1 of the same connection, pid, loader, epoch and step comes (the step
 * is written then, with the figure in device_idle_s, or NULL for "-"),
 * its connection closes, it has been held FS_MARKERS_HOLD_NS
 * (fs_markers_expire), the hold is full, or m is closed; in every case but
 * the first, without its figure. A well-formed D1 that finds no held
 * step is counted (meta markers.device_unmatched) and dropped. */
int fs_markers_record(struct fs_markers *m, int conn, const char *rec, size_t len, struct fs_sink *sink,
		      uint64_t start_ns, uint64_t now_ns);

/* Write the held steps that have waited FS_MARKERS_HOLD_NS by now_ns,
 * without their figure (drain and the tick's unpolled call it). */
void fs_markers_expire(struct fs_markers *m, struct fs_sink *sink, uint64_t now_ns);

/* Copy in[0..len) into out[cap] (always NUL-terminated) as text safe to
 * store and print: each invalid UTF-8 byte and each character that could
 * act on a terminal (fs_text_is_control: C0, DEL, C1, bidirectional marks,
 * overrides and isolates, line/paragraph separators) becomes '?'; cut at a
 * character boundary to fit. Returns the length written; *changed says whether out differs
 * from in. */
size_t fs_markers_clean(char *out, size_t cap, const char *in, size_t len, bool *changed);

/* Drain once more, write the held steps (without their figure), the
 * markers.* counters to meta, close. NULL is ignored. */
void fs_markers_close(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns);

#endif
