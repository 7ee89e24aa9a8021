/* disk.h - /proc/diskstats counters, iostat's per-device figures, and the
 * whole disk of a device number. Which file system and disks hold a path:
 * devpath.h; the mountinfo parser: mountinfo.h. */
#ifndef FS_SOURCE_DISK_H
#define FS_SOURCE_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/paths.h"

/* diskstats counts in 512-byte sectors, whatever the device's block size. */
#define FS_DISK_SECTOR_BYTES 512

/* The longest device name diskstats prints (the kernel's DISK_NAME_LEN is 32). */
#define FS_DISK_NAME_MAX 64

/* One line of /proc/diskstats: the cumulative counters after the name. Times
 * are in milliseconds. nfields tells how many there were: 11 (before 4.18),
 * 15 (4.18: discards) or 17 (5.5: flushes); absent ones are 0. */
struct fs_disk_counters {
	unsigned nfields;
	uint64_t reads, reads_merged, read_sectors, read_ms;
	uint64_t writes, writes_merged, write_sectors, write_ms;
	uint64_t in_flight, io_ms, weighted_ms;
	uint64_t discards, discards_merged, discard_sectors, discard_ms;
	uint64_t flushes, flush_ms;
};

/* iostat -x figures over one interval. NaN means "not defined here": an
 * await or request size with no request of that kind, a discard or flush rate
 * the kernel does not count, anything over a zero interval. */
struct fs_disk_rates {
	double reads_per_s, read_bytes_per_s;
	double writes_per_s, write_bytes_per_s;
	double read_await_ms, write_await_ms; /* mean time per completed request */
	double queue_depth;                   /* aqu-sz: mean requests in flight */
	double util_pct;                      /* time busy, capped at 100 */
	double read_req_bytes, write_req_bytes; /* mean request size */
	double discard_bytes_per_s, flushes_per_s;
};

/* Parse one diskstats line ("MAJ MIN name n n n ...") into *maj, *min,
 * name[cap] and *c. Returns false when the line is not a device line with at
 * least the 11 counters of every kernel since 2.6 (the old 4-field partition
 * lines of 2.6.0-2.6.24 are refused too); nothing is guaranteed in the outputs then. */
bool fs_disk_parse_line(const char *line, unsigned *maj, unsigned *min, char *name, size_t cap,
			struct fs_disk_counters *c);

/* True when every counter is 0 (a device never used since boot). */
bool fs_disk_unused(const struct fs_disk_counters *c);

/* iostat's figures from prev to curr over dt_ns nanoseconds. Counters that
 * went backwards count as 0, 32-bit ones that wrapped as their true increase
 * (fs_counter_delta). Never fails; see struct fs_disk_rates for NaN. */
void fs_disk_compute(const struct fs_disk_counters *prev, const struct fs_disk_counters *curr,
		     uint64_t dt_ns, struct fs_disk_rates *out);

/* The whole disk that block device MAJ:MIN is or lives on, as diskstats
 * names it, into dev[cap]: a partition maps to its parent disk ("vda1" ->
 * "vda"); device-mapper and md devices are whole devices themselves ("dm-0").
 * Resolved through <sys>/dev/block/MAJ:MIN. Returns 0, or -1 when MAJ:MIN is
 * not a block device this sysfs knows (major 0: tmpfs, overlay, nfs, ...),
 * or the name did not fit. */
int fs_disk_resolve(const struct fs_paths *p, unsigned maj, unsigned min, char *dev, size_t cap);

#endif
