/* fio_json.c - fio's JSON shape (fio_json.h). */
#include "render/fio_json.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "util/json.h"

const double fs_fio_pcts[FS_FIO_NPCT] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

void fs_fio_hist_moments(const struct fs_hist *h, double *mean, double *stddev)
{
	*mean = *stddev = 0;
	if (!h || !h->count)
		return;
	*mean = (double)h->sum / (double)h->count;
	long double ss = 0;
	for (int i = 0; i < FS_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		double lo = (double)fs_hist_bucket_low(i);
		double v = i < FS_HIST_SUB ? lo : lo + ((double)fs_hist_bucket_low(i + 1) - lo) / 2;
		double dv = v - *mean;
		ss += (long double)h->b[i] * dv * dv;
	}
	*stddev = sqrt((double)(ss / h->count));
}

/* fio's {min, max, mean, stddev, N[, percentile]} of one latency kind. */
static void lat_object(struct fs_json *j, const char *key, const struct fs_hist *h, int with_pct)
{
	double mean, sd;
	fs_fio_hist_moments(h, &mean, &sd);
	int have = h && h->count;
	fs_json_object(j, key);
	fs_json_int(j, "min", have ? (long long)h->min : 0);
	fs_json_int(j, "max", have ? (long long)h->max : 0);
	fs_json_number(j, "mean", mean);
	fs_json_number(j, "stddev", sd);
	fs_json_int(j, "N", have ? (long long)h->count : 0);
	if (have && with_pct) { /* fio leaves the percentiles out when there was no I/O */
		char k[32];
		fs_json_object(j, "percentile");
		for (int i = 0; i < FS_FIO_NPCT; i++) {
			snprintf(k, sizeof k, "%f", fs_fio_pcts[i]);
			fs_json_int(j, k, (long long)fs_hist_percentile(h, fs_fio_pcts[i]));
		}
		fs_json_end(j);
	}
	fs_json_end(j);
}

static void dir_object(struct fs_json *j, const char *key, const struct fs_fio_dir *d)
{
	static const struct fs_fio_dir none;
	if (!d)
		d = &none;
	double bw = d->runtime_s > 0 ? (double)d->io_bytes / d->runtime_s : 0;
	fs_json_object(j, key);
	fs_json_int(j, "io_bytes", (long long)d->io_bytes);
	fs_json_int(j, "io_kbytes", (long long)(d->io_bytes / 1024));
	fs_json_int(j, "bw_bytes", llround(bw));
	fs_json_int(j, "bw", (long long)(bw / 1024)); /* KiB/s, truncated as fio does */
	fs_json_number(j, "iops", d->runtime_s > 0 ? (double)d->total_ios / d->runtime_s : 0);
	fs_json_int(j, "runtime", llround(d->runtime_s * 1e3)); /* ms */
	fs_json_int(j, "total_ios", (long long)d->total_ios);
	fs_json_int(j, "short_ios", 0);
	fs_json_int(j, "drop_ios", 0);
	lat_object(j, "slat_ns", NULL, 0);
	lat_object(j, "clat_ns", d->lat, 1);
	lat_object(j, "lat_ns", d->lat, 0);
	fs_json_end(j);
}

static void job_object(struct fs_json *j, const struct fs_fio_job *b)
{
	fs_json_object(j, NULL);
	fs_json_string(j, "jobname", b->name);
	fs_json_int(j, "groupid", 0);
	fs_json_int(j, "error", 0);
	fs_json_int(j, "elapsed", llround(b->job_runtime_s));
	fs_json_object(j, "job options");
	for (int i = 0; i < b->nopts; i++)
		fs_json_string(j, b->opts[i].key, b->opts[i].value);
	fs_json_end(j);
	dir_object(j, "read", &b->read);
	dir_object(j, "write", &b->write);
	dir_object(j, "trim", NULL);
	fs_json_object(j, "sync");
	fs_json_int(j, "total_ios", 0);
	lat_object(j, "lat_ns", NULL, 0);
	fs_json_end(j);
	fs_json_int(j, "job_runtime", llround(b->job_runtime_s * 1e3));
	fs_json_number(j, "usr_cpu", b->usr_cpu_pct);
	fs_json_number(j, "sys_cpu", b->sys_cpu_pct);
	fs_json_int(j, "ctx", b->ctx);
	fs_json_int(j, "majf", b->majf);
	fs_json_int(j, "minf", b->minf);
	fs_json_end(j);
}

void fs_fio_json_write(FILE *out, const struct fs_fio_doc *d)
{
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	fs_json_string(&j, "fio version", d->version);
	time_t t = (time_t)(d->unix_ns / 1000000000ull);
	fs_json_int(&j, "timestamp", (long long)t);
	fs_json_int(&j, "timestamp_ms", (long long)(d->unix_ns / 1000000ull));
	char tbuf[64];
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", &tm);
	fs_json_string(&j, "time", tbuf);
	fs_json_array(&j, "jobs");
	for (int i = 0; i < d->njobs; i++)
		job_object(&j, &d->jobs[i]);
	fs_json_end(&j);
	fs_json_array(&j, "disk_util");
	for (int i = 0; i < d->ndisks; i++) {
		const struct fs_fio_disk *k = &d->disks[i];
		fs_json_object(&j, NULL);
		fs_json_string(&j, "name", k->name);
		fs_json_int(&j, "read_ios", (long long)k->read_ios);
		fs_json_int(&j, "write_ios", (long long)k->write_ios);
		fs_json_int(&j, "read_merges", (long long)k->read_merges);
		fs_json_int(&j, "write_merges", (long long)k->write_merges);
		fs_json_int(&j, "read_ticks", (long long)k->read_ticks);
		fs_json_int(&j, "write_ticks", (long long)k->write_ticks);
		fs_json_int(&j, "in_queue", (long long)k->in_queue);
		fs_json_number(&j, "util", k->util_pct);
		fs_json_end(&j);
	}
	fs_json_end(&j);
	fs_json_end(&j);
	fputc('\n', out);
}
