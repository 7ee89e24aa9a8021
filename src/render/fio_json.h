/* fio_json.h - fio's JSON output shape (fio --output-format=json, fio 3.x),
 * written for `feedscope bench --output-format fio` and `feedscope probe
 * --output-format fio`, so that tools that read fio's output read ours with
 * the same keys: the top level ("fio version", timestamp, timestamp_ms, time,
 * jobs, disk_util), and per job jobname, "job options", read / write / trim
 * (io_bytes, io_kbytes, bw_bytes, bw in KiB/s, iops, runtime in ms,
 * total_ios, slat_ns, clat_ns with fio's default percentile keys, lat_ns),
 * job_runtime, usr_cpu, sys_cpu, ctx, majf, minf (docs/bench.md, "fio's JSON").
 *
 * What feedscope measures per request is the time from submission to
 * completion: it is clat_ns and lat_ns both; slat_ns has N 0 (as fio's psync
 * engine gives). A pure printer: nothing here measures. */
#ifndef FS_RENDER_FIO_JSON_H
#define FS_RENDER_FIO_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "util/hist.h"

/* One direction of a job (fio's "read", "write"). */
struct fs_fio_dir {
	uint64_t io_bytes, total_ios;
	double runtime_s;            /* the time the direction's figures cover */
	const struct fs_hist *lat;   /* per-request latency in ns; NULL: none measured (N 0) */
};

struct fs_fio_opt {
	const char *key, *value;
};

struct fs_fio_job {
	const char *name;
	const struct fs_fio_opt *opts;  /* "job options": strings, as fio prints them */
	int nopts;
	struct fs_fio_dir read, write;
	double job_runtime_s;
	double usr_cpu_pct, sys_cpu_pct; /* of job_runtime, as fio's usr_cpu / sys_cpu */
	long ctx, majf, minf;
};

struct fs_fio_disk {
	const char *name;
	uint64_t read_ios, write_ios, read_merges, write_merges, read_ticks, write_ticks, in_queue;
	double util_pct;
};

struct fs_fio_doc {
	const char *version;          /* "feedscope-X.Y" in "fio version" */
	uint64_t unix_ns;             /* the timestamp (fio: the end of the run) */
	const struct fs_fio_job *jobs;
	int njobs;
	const struct fs_fio_disk *disks;
	int ndisks;
};

/* fio's default percentiles (its percentile_list), in its key format. */
#define FS_FIO_NPCT 17
extern const double fs_fio_pcts[FS_FIO_NPCT];

/* Write d as one JSON document and a newline. */
void fs_fio_json_write(FILE *out, const struct fs_fio_doc *d);

/* The mean and the standard deviation (population) of h, from its buckets
 * (each value counted at its bucket's percentile point, so within 1/64 of
 * the truth; the mean is exact: h->sum / h->count). 0 when h is empty. */
void fs_fio_hist_moments(const struct fs_hist *h, double *mean, double *stddev);

#endif
