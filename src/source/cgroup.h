/* cgroup.h - the cgroups a job runs in: where the cpu and memory controllers
 * are mounted (v1 separate, v1 "cpu,cpuacct", or v2), which cgroup each
 * process is in, CPU quota and throttling, memory limit and usage.
 *
 * Parsers and compute functions are pure; struct fs_cgset keeps one entry
 * (with its files open) per distinct cgroup of the job and emits one
 * `cgroup` row per entry per tick. */
#ifndef FS_SOURCE_CGROUP_H
#define FS_SOURCE_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "source/source.h"
#include "util/pfile.h"

#define FS_CG_PATH_MAX 512

/* Controller mount points as the kernel prints them ("" when not mounted),
 * and the cgroup each mount shows at its top (mountinfo's root field). */
struct fs_cg_mounts {
	char cpu_v1[FS_CG_PATH_MAX], cpu_v1_root[FS_CG_PATH_MAX];
	char mem_v1[FS_CG_PATH_MAX], mem_v1_root[FS_CG_PATH_MAX];
	char blkio_v1[FS_CG_PATH_MAX], blkio_v1_root[FS_CG_PATH_MAX];
	char cpuset_v1[FS_CG_PATH_MAX], cpuset_v1_root[FS_CG_PATH_MAX];
	char v2[FS_CG_PATH_MAX], v2_root[FS_CG_PATH_MAX];
};

/* Find the v1 cpu, memory, blkio and cpuset mounts (fstype cgroup, super options holding the
 * controller) and the cgroup2 mount in /proc/self/mountinfo text. Octal
 * escapes (\040) in mount points are decoded. Fields not found stay "". */
void fs_cg_parse_mountinfo(const char *text, struct fs_cg_mounts *out);

/* Which cgroup a process is in, from /proc/PID/cgroup text. */
struct fs_cg_member {
	char cpu_v1[FS_CG_PATH_MAX]; /* "" when no v1 hierarchy holds cpu */
	char mem_v1[FS_CG_PATH_MAX];
	char blkio_v1[FS_CG_PATH_MAX];
	char cpuset_v1[FS_CG_PATH_MAX];
	char v2[FS_CG_PATH_MAX];     /* the "0::" line; "" when absent */
	bool have_v2;
};

/* The directory of cgroup `path` (as /proc/PID/cgroup prints it) in a
 * hierarchy mounted at mnt (mapped into the roots) whose top is the
 * cgroup `root` (mountinfo's root field), into out. */
void fs_cg_dir(char *out, size_t cap, const char *mnt, const char *root, const char *path);

/* Parse /proc/PID/cgroup. Returns false when no line parses. */
bool fs_cg_parse_member(const char *text, struct fs_cg_member *out);

/* cpu.stat throttling counters; throttled_ns is v1 throttled_time (ns) or
 * v2 throttled_usec × 1000. */
struct fs_cg_cpu {
	bool have; /* nr_periods, nr_throttled and the throttled time all found */
	uint64_t nr_periods, nr_throttled, throttled_ns;
};

/* Parse cpu.stat of a version-1 or -2 cgroup. */
void fs_cg_parse_cpu_stat(const char *text, int version, struct fs_cg_cpu *out);

/* CPU quota in cores: v1 from cpu.cfs_quota_us and cpu.cfs_period_us texts,
 * v2 from cpu.max ("max 100000" or "150000 100000"). NaN when unlimited,
 * missing (NULL text) or malformed. */
double fs_cg_quota_v1(const char *quota_text, const char *period_text);
double fs_cg_quota_v2(const char *cpu_max_text);

/* A memory limit (v1 memory.limit_in_bytes, v2 memory.max) in bytes, or -1
 * when unlimited ("max", or >= 2^62 as v1 prints it), missing or malformed. */
int64_t fs_cg_mem_limit(const char *text);

struct fs_cg_rates {
	double nr_periods_per_s, nr_throttled_per_s, throttled_pct; /* NaN: unknown */
};

/* Rates over dt_s; NaN unless both readings have the counters and dt_s > 0. */
void fs_cg_rates_compute(const struct fs_cg_cpu *prev, const struct fs_cg_cpu *curr,
			 double dt_s, struct fs_cg_rates *out);

/* A cgroup's limits on reads from one block device: v1
 * blkio.throttle.read_bps_device and read_iops_device, v2 io.max (rbps,
 * riops) and io.latency (target); NaN where none. The ceilings the verdict
 * judges a job's reads against (docs/verdicts.md, "Ceilings"). */
struct fs_cg_io_limit {
	unsigned maj, min;
	double read_bps, read_iops, latency_target_us;
	/* the cgroup whose rule each limit is ("" for none) */
	char bps_from[160], iops_from[160], latency_from[160];
};
#define FS_CG_IO_MAX 32

enum fs_cg_io_file {
	FS_CG_IO_V1_BPS,  /* blkio.throttle.read_bps_device: "MAJ:MIN BYTES" lines */
	FS_CG_IO_V1_IOPS, /* blkio.throttle.read_iops_device: "MAJ:MIN IOS" lines */
	FS_CG_IO_V2_MAX,  /* io.max: "MAJ:MIN rbps=N wbps=max riops=N wiops=max" */
	FS_CG_IO_V2_LAT,  /* io.latency: "MAJ:MIN target=US" */
};

/* Fold the rules of one such file's text into lim[*n] (max entries): a
 * device's tightest rule wins (a parent's limit binds its children too);
 * "max" and 0 are no limit; a line that does not parse is skipped. cgroup
 * names the file's cgroup. */
void fs_cg_parse_io_limits(const char *text, enum fs_cg_io_file kind, const char *cgroup,
			   struct fs_cg_io_limit *lim, int *n, int max);

/* One distinct cgroup of the job (one row per tick). */
struct fs_cg {
	bool live;          /* slot in use */
	bool used;          /* referenced by a job process this tick */
	int version;        /* 1 or 2 */
	char *path;         /* as /proc/PID/cgroup prints it; owned */
	bool cpu, mem;      /* this row covers the cpu / memory controller */
	struct fs_pfile cpu_stat, quota, period, cpu_max, mem_limit, mem_usage, mem_peak;
	bool have_prev;
	uint64_t prev_ns;
	struct fs_cg_cpu prev;
	uint64_t limits_ns; /* when quota and limit were last read */
	bool have_limits;
	double quota_cores;
	int64_t limit_bytes;
};

struct fs_cgset {
	char cpu_v1[FS_CG_PATH_MAX], mem_v1[FS_CG_PATH_MAX], v2[FS_CG_PATH_MAX]; /* mapped */
	char blkio_v1[FS_CG_PATH_MAX]; /* mapped */
	const struct fs_paths *paths;
	/* The job's read limits (fs_cg_parse_io_limits), read once for each
	 * blkio/v2 cgroup a job process is first seen in, with its ancestors;
	 * written to meta cgroup_io.<disk>.* at the next sample when changed. */
	char *io_seen[16];
	int nio_seen;
	struct fs_cg_io_limit io[FS_CG_IO_MAX];
	int nio;
	bool io_dirty;
	struct fs_cg_mounts m;
	bool v2_cpu, v2_mem; /* controllers available in the v2 hierarchy */
	struct fs_cg *cg;
	int n, cap;
	struct fs_buf buf;
};

/* Find the controllers through <proc>/self/mountinfo (mount points mapped
 * into the roots with fs_host_path). Never fails: with nothing mounted the
 * set just never has entries. Returns a one-line description for meta
 * (static storage, valid until the next call). */
const char *fs_cgset_init(struct fs_cgset *s, const struct fs_paths *paths);

/* Map a process's /proc/PID/cgroup text to entries, creating them as needed:
 * *cpu_idx and *mem_idx get entry indexes or -1 (no such controller; out of
 * memory). Indexes stay valid while an entry is used every tick. */
void fs_cgset_attach(struct fs_cgset *s, const char *text, int *cpu_idx, int *mem_idx);

/* Mark the entries a live job process references this tick (-1 ignored). */
void fs_cgset_use(struct fs_cgset *s, int idx);

/* Read every used entry, emit its row, free entries not used this tick and
 * clear the marks for the next tick. */
void fs_cgset_sample(struct fs_cgset *s, const struct fs_source_ctx *ctx);

void fs_cgset_free(struct fs_cgset *s);

#endif
