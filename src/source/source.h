/* source.h - the ops struct every data source implements.
 *
 * A source is one file under src/source/ that reads one part of the machine
 * (/proc/stat, /proc/diskstats, NVML, ...) and emits rows into a sink. Like
 * fio's io engines, the members live in one explicit const array
 * (sources.c) and carry an ABI version checked when the recorder loads them.
 *
 * Life cycle: open() once (may emit static rows and meta); sample() once per
 * tick, or, for a machine-wide source (`machine`), once per the recorder's
 * system interval (a tick's, at most: `--system-interval`, 1 s by default)
 * and once more at the end of the run; close() once. A source that cannot work here (no NVML, no PSI, no
 * permission) returns FS_SOURCE_UNAVAILABLE from open() with a one-line
 * reason: the recorder says it once, records it in meta, and goes on.
 *
 * Sources never read a clock: the recorder passes the tick's t and the
 * monotonic time of the read, so fixture tests can replay snapshots with
 * exact intervals. Readers fill raw counters, pure compute functions turn
 * (prev, curr, dt) into rates, and only then are rows emitted.
 */
#ifndef FS_SOURCE_H
#define FS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/row.h"
#include "util/paths.h"

#define FS_SOURCE_ABI 2

/* The job being recorded; NULL in the context of `watch` without --pid. */
struct fs_job {
	pid_t root;              /* the launched or attached process: role "main" */
	bool adopt_own_children; /* also count every child of this process (we are
	                            the job's subreaper, so orphaned workers land here) */
	const char *trace_dir;   /* where the I/O tracer's regions are, or NULL */
	bool hash_paths;         /* store path hashes, not paths (--hash-paths) */
	int pss;                 /* each process's smaps_rollup (PSS, USS, swap): FS_PSS_* */
	int states;              /* how thread states are read: FS_STATES_* (--states) */
	bool bpf_stats;          /* count the BPF programs' run time (--bpf-stats) */
	/* The job's processes seen this tick, published by the job source
	 * (which samples first; it owns the array) for the sources that need them. */
	const int *pids;
	int npids;
};

/* fs_job.pss: how often each process's smaps_rollup is read (job.c). OFF:
 * never (--no-pss). BOUNDED (the default): about 2% of a core at most
 * while memory moves, and a process whose faults and resident size have
 * not moved since its last read is read again only every 30 s. EVERY (--pss; tune): about 3%
 * of a core at most, every process at least every 10 s. */
enum { FS_PSS_OFF = 0, FS_PSS_BOUNDED = 1, FS_PSS_EVERY = 2 };

/* fs_job.states: the job source's thread states from BPF (accounted at each
 * change of state) where it loads, else from /proc (sampled); or forced. */
enum { FS_STATES_AUTO = 0, FS_STATES_PROC = 1, FS_STATES_BPF = 2 };

struct fs_source_ctx {
	const struct fs_paths *paths;
	struct fs_sink *sink;
	struct fs_job *job;       /* may be NULL */
	double t;                 /* the tick's time, seconds since the run started */
	uint64_t now_ns;          /* monotonic time taken just before this source's read */
	bool final;               /* the run's last sample: a source that keeps a floor of
	                             its own between rows (mem, tcp) samples anyway */
};

enum {
	FS_SOURCE_OK = 0,
	FS_SOURCE_UNAVAILABLE = -1, /* said once on stderr, recorded in meta */
	FS_SOURCE_DISABLED = -2,    /* not wanted here (open only): recorded in meta, not said */
};

struct fs_source_ops {
	int abi;          /* FS_SOURCE_ABI */
	const char *name; /* short, lower case: "cpu", "disk", ... */
	/* Machine-wide counters (cpu, psi, mem, disk, net): read once per the
	 * system interval, not every tick; every row says the interval it
	 * covers in its dt_s (the machine's counters are not the job's: a
	 * second's rate backs up the job's own per-tick figures). */
	bool machine;
	/* Set *state (owned by the source). Returns FS_SOURCE_OK, or
	 * FS_SOURCE_UNAVAILABLE with a one-line reason in why[whylen]. */
	int (*open)(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen);
	/* Read, compute, emit. Returns FS_SOURCE_OK, or FS_SOURCE_UNAVAILABLE
	 * with a reason when this tick's read failed (the recorder says so once
	 * and keeps calling). */
	int (*sample)(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen);
	/* Optional: once, after the last sample, with the sink still open (for
	 * what is written at the end of a run). */
	void (*finish)(void *state, const struct fs_source_ctx *ctx);
	void (*close)(void *state);
};

/* Every source, in sampling order; NULL-terminated. */
extern const struct fs_source_ops *const fs_sources[];

/* The source named name, or NULL. */
const struct fs_source_ops *fs_source_find(const char *name);

#endif
