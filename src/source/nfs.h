/* nfs.h - NFS client statistics from /proc/self/mountstats (statvers=1.1):
 * parsing the READ and WRITE per-op lines of each nfs/nfs4 mount, the rates
 * of the nfs table, and a tracker that follows mounts across reads and emits
 * the rows. Used by the net source. */
#ifndef FS_SOURCE_NFS_H
#define FS_SOURCE_NFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/source.h"

/* One per-op line: "READ: ops trans timeouts bytes_sent bytes_recv queue_ms
 * rtt_ms execute_ms [errors]" (cumulative since mount). */
struct fs_nfs_op {
	bool have;
	uint64_t ops, bytes_sent, bytes_recv, rtt_ms, exe_ms;
};

struct fs_nfs_counters {
	struct fs_nfs_op read, write;
};

/* One NFS mount as found in the text; dev and mnt point into the text, still
 * octal-escaped as the kernel prints them ("\040" for a blank). */
struct fs_nfs_entry {
	const char *dev, *mnt;
	size_t dev_len, mnt_len;
	struct fs_nfs_counters c;
};

/* Find the next mount with fstype nfs or nfs4 in mountstats text, starting at
 * *pos (the start of a line), and read its READ and WRITE lines from its
 * "per-op statistics" section (missing ones leave have false). READ_PLUS
 * (NFSv4.2's read) is added into read. Advances *pos past the mount.
 * Returns false when no NFS mount follows. */
bool fs_nfs_next_mount(const char **pos, struct fs_nfs_entry *out);

/* Parse the numbers after "READ:" / "WRITE:" at p (up to the line's end).
 * Returns false when fewer than the 8 fields of statvers 1.0 are there. */
bool fs_nfs_parse_op(const char *p, struct fs_nfs_op *out);

/* Copy s[len] into out (which holds len+1 bytes), turning the kernel's
 * octal escapes (\ooo) into bytes. Returns the resulting length. */
size_t fs_nfs_unescape(const char *s, size_t len, char *out);

struct fs_nfs_rates {
	/* "READ" below means READ + READ_PLUS. */
	double read_ops_per_s;   /* Δ READ ops / Δt */
	double read_bytes_per_s; /* Δ READ bytes received (RPC replies) / Δt */
	double read_rtt_ms;      /* Δ READ rtt / Δ READ ops: mean round trip per READ */
	double read_exe_ms;      /* Δ READ execute / Δ READ ops: mean time from queue to done */
	double write_ops_per_s;  /* Δ WRITE ops / Δt */
};

/* Rates from prev to curr over dt_s seconds. NaN for an op missing from
 * either read, rates when dt_s <= 0, and the per-READ means when no READ
 * completed in the interval. Counters going backwards give 0. */
void fs_nfs_compute(const struct fs_nfs_counters *prev, const struct fs_nfs_counters *curr,
		    double dt_s, struct fs_nfs_rates *out);

struct fs_nfs_mount; /* private to nfs.c */

/* Follows NFS mounts across reads of mountstats. Zero-initialise; free with
 * fs_nfs_tracker_free. */
struct fs_nfs_tracker {
	struct fs_nfs_mount *m;
	int n, cap;
	uint64_t prev_ns;
};

/* Parse one read of mountstats: emit an nfs row (at ctx->t, into ctx->sink)
 * for every NFS mount that was also in the previous read, baseline new
 * mounts, forget vanished ones. Allocates only when a mount appears.
 * Returns the number of NFS mounts in text (a mount that could not be
 * remembered for lack of memory is still counted). */
int fs_nfs_tracker_update(struct fs_nfs_tracker *tr, const char *text,
			  const struct fs_source_ctx *ctx);

/* Forget every mount (the next update baselines all of them). */
void fs_nfs_tracker_clear(struct fs_nfs_tracker *tr);

void fs_nfs_tracker_free(struct fs_nfs_tracker *tr);

#endif
