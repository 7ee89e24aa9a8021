/* nodestat.h - the machine's own figures for the exporter without a run
 * file (docs/exporter.md, "The machine"): the rows of the machine-wide
 * sources (cpu, cpu_core, psi, mem, disk, net, tcp), as they write them
 * into a run file, folded into totals since the first sample and the
 * latest interval's gauges.
 *
 * A source's row is a rate over its interval (dt_s): count = rate × dt_s,
 * rounded to a whole count where the kernel counts whole things (bytes,
 * requests, packets, faults; milliseconds of disk time, microseconds of
 * stall), which gives back the kernel's own increase exactly (the rate was
 * that increase / dt_s). So a total is the kernel counter's increase since
 * the exporter's first sample. A row without its interval (a source's
 * first) adds nothing. A disk or interface without a row in a sample has
 * gone (its source writes one for each it follows, at every sample): it is
 * dropped, and starts again from 0 if it comes back (a counter reset, as
 * Prometheus reads it); a CPU core not listed by a sample that lists
 * others is offline (its gauge unknown).
 *
 * Pure: no I/O, no clock. Plain data: copied whole to whoever shows it. */
#ifndef FS_NODESTAT_H
#define FS_NODESTAT_H

#include <stdbool.h>
#include <stdint.h>

#include "store/row.h"

#define FS_NODESTAT_DISKS 64
#define FS_NODESTAT_IFACES 64
#define FS_NODESTAT_CORES 1024
#define FS_NODESTAT_SOURCES 8

enum fs_nodestat_cpu_mode {
	FS_NODE_USER, FS_NODE_NICE, FS_NODE_SYSTEM, FS_NODE_IOWAIT, FS_NODE_IDLE, FS_NODE_STEAL, FS_NODE_GUEST,
	FS_NODE__MODES
};
extern const char *const fs_nodestat_mode_names[FS_NODE__MODES];

/* mem gauges (bytes, but dentries: a count), in the order of their names */
enum fs_nodestat_mem {
	FS_NODE_MEM_TOTAL, FS_NODE_MEM_FREE, FS_NODE_MEM_AVAILABLE, FS_NODE_MEM_CACHED, FS_NODE_MEM_DIRTY,
	FS_NODE_MEM_WRITEBACK, FS_NODE_MEM_SHMEM, FS_NODE_MEM_SWAP_USED, FS_NODE_MEM_SHM_FREE,
	FS_NODE_MEM_SHM_USED, FS_NODE_MEM_DENTRIES, FS_NODE__MEM
};

struct fs_nodestat_disk {
	char device[64];
	bool seen; /* a row in the current sample */
	/* totals since first seen */
	double reads, read_bytes, read_ms, writes, write_bytes, write_ms, io_ms, weighted_ms;
	double discard_bytes, flushes; /* NaN: the kernel does not count them */
	double util_ratio;             /* the latest interval's, 0..1 */
};

struct fs_nodestat_iface {
	char name[32];
	bool seen;
	double rx_bytes, rx_packets, rx_errs, rx_drops, tx_bytes, tx_packets, tx_errs, tx_drops;
	double speed_bytes_per_s; /* NaN: not reported */
};

struct fs_nodestat_psi {
	char resource[16];
	double some_us, full_us;       /* totals; NaN: the kernel has no such line */
	double some_ratio, full_ratio; /* the latest interval's */
};

struct fs_nodestat {
	uint64_t samples; /* samples ended (fs_nodestat_end) */
	struct {
		char name[16];
		bool up;
	} sources[FS_NODESTAT_SOURCES];
	int nsources;

	bool have_cpu;
	int ncpu;                          /* online CPUs, the latest sample */
	double cpu_ratio[FS_NODE__MODES];  /* the latest interval's shares */
	double cpu_s[FS_NODE__MODES];      /* Σ share × ncpu × dt_s */
	int ncores;                        /* core_busy[0..ncores) */
	double core_busy[FS_NODESTAT_CORES]; /* latest busy share; NaN: offline or not seen */

	bool have_mem;
	double mem[FS_NODE__MEM];          /* latest; NaN: not reported */
	double majflt, pgpgin_bytes, pgpgout_bytes, swapin_bytes; /* totals; NaN until one interval */

	bool have_tcp;
	double tcp_in_segs, tcp_out_segs, tcp_retrans_segs;

	int npsi;
	struct fs_nodestat_psi psi[4];
	int ndisks;
	struct fs_nodestat_disk disks[FS_NODESTAT_DISKS];
	int nifaces;
	struct fs_nodestat_iface ifaces[FS_NODESTAT_IFACES];

	bool got_core; /* the sample being folded had cpu_core rows */
};

/* An empty s (every total 0, every gauge unknown). */
void fs_nodestat_init(struct fs_nodestat *s);

/* Fold one row in (tables other than the machine-wide ones are ignored). */
void fs_nodestat_row(struct fs_nodestat *s, const struct fs_row *r);

/* A meta key: "source.NAME" = "ok" (up) or "unavailable: ..." (down) is
 * kept; "disabled" sources are left out; other keys are ignored. */
void fs_nodestat_meta(struct fs_nodestat *s, const char *key, const char *value);

/* The sample's rows are all in: drop what it no longer lists; samples++. */
void fs_nodestat_end(struct fs_nodestat *s);

#endif
