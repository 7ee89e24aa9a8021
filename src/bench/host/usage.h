/* usage.h - what a benchmark cost the machine, for fio-shaped output
 * (render/fio_json.h): this process's CPU time, context switches and page
 * faults (getrusage), and the /proc/diskstats counters of the disks under
 * the directory it measured (fio's disk_util), between fs_usage_begin and
 * fs_usage_end. */
#ifndef FS_BENCH_USAGE_H
#define FS_BENCH_USAGE_H

#include <stdint.h>

#include "source/disk.h"

#define FS_USAGE_DISKS_MAX 9 /* the device and up to 8 disks under it */

struct fs_usage_disk {
	char name[FS_DISK_NAME_MAX];
	struct fs_disk_counters c0, c1; /* at begin, at end */
	int have;                       /* 1: found at begin, 2: and at end */
};

struct fs_usage {
	uint64_t t0_ns, t1_ns;          /* CLOCK_MONOTONIC */
	double usr0_s, sys0_s, usr_s, sys_s; /* at begin; over the span (after end) */
	long ctx0, ctx, majf0, majf, minf0, minf;
	struct fs_usage_disk disk[FS_USAGE_DISKS_MAX];
	int ndisks;
};

/* Start counting: dir's device and disks (source/devpath.h; none on tmpfs
 * or nfs) and their counters, and getrusage(RUSAGE_SELF). Never fails: what
 * cannot be read is left out. */
void fs_usage_begin(struct fs_usage *u, const char *dir);

/* Stop: the spans (usr_s, sys_s, ctx, majf, minf) and each disk's counters at end. */
void fs_usage_end(struct fs_usage *u);

/* Disk d's figures over the span as fio prints them: ios, merges, ticks
 * (ms), in_queue (ms) and util (percent of the span the disk was busy). */
struct fs_usage_disk_util {
	uint64_t read_ios, write_ios, read_merges, write_merges, read_ticks, write_ticks, in_queue;
	double util_pct;
};
void fs_usage_disk_util(const struct fs_usage *u, int d, struct fs_usage_disk_util *out);



struct fs_fio_disk;

/* u's disks as fio's disk_util entries into out[FS_USAGE_DISKS_MAX] (names
 * point into u). Returns how many (disks missing at begin or end left out). */
int fs_usage_fio_disks(const struct fs_usage *u, struct fs_fio_disk *out);

/* CPU over the span, as fio's usr_cpu and sys_cpu: percent of the span's
 * wall time (several threads can make it exceed 100). */
void fs_usage_cpu_pct(const struct fs_usage *u, double *usr_pct, double *sys_pct);
#endif
