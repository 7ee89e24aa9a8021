/* dlio_summary.c - DLIO's summary.json (dlio_summary.h). */
#include "render/dlio_summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/json.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

void fs_dlio_mean_std(const double *x, int n, double *mean, double *stdev)
{
	double sum = 0;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i]))
			sum += x[i], k++;
	if (!k) {
		*mean = *stdev = NAN;
		return;
	}
	*mean = sum / k;
	double ss = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i]))
			ss += (x[i] - *mean) * (x[i] - *mean);
	*stdev = sqrt(ss / k); /* numpy's np.std: the population's */
}

/* DLIO's utcnow(): "2026-12-02T01:05:37.123456", UTC. */
static void utc_text(char *out, size_t cap, uint64_t unix_ns)
{
	time_t t = (time_t)(unix_ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	char s[32];
	strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, cap, "%s.%06u", s, (unsigned)(unix_ns % 1000000000ull / 1000));
}

/* key = list of x, key_mean and key_stdev after DLIO's pattern. */
static void series(struct fs_json *j, const char *list, const char *mean_key, const char *stdev_key, const double *x,
		   int n, double scale)
{
	fs_json_array(j, list);
	for (int i = 0; i < n; i++)
		fs_json_number(j, NULL, x[i] * scale);
	fs_json_end(j);
	double m, s;
	fs_dlio_mean_std(x, n, &m, &s);
	fs_json_number(j, mean_key, m * scale);
	fs_json_number(j, stdev_key, s * scale);
}

static void train_metrics(struct fs_json *j, const struct fs_bench_report *b, const struct fs_run_result *r)
{
	int n = (int)r->epochs;
	double *x = calloc(n ? (size_t)n : 1, sizeof *x);
	if (!x)
		return;
	for (int i = 0; i < n; i++)
		x[i] = r->epoch[i].au;
	series(j, "train_au_percentage", "train_au_mean_percentage", "train_au_stdev_percentage", x, n, 100);
	fs_json_string(j, "train_au_meet_expectation", fs_bench_claim(b, r) ? "success" : "fail");
	for (int i = 0; i < n; i++)
		x[i] = r->epoch[i].window_samples_per_s;
	series(j, "train_throughput_samples_per_second", "train_throughput_mean_samples_per_second",
	       "train_throughput_stdev_samples_per_second", x, n, 1);
	/* DLIO: throughput × record_length / 1024 / 1024 (MiB/s under an "MB" name) */
	double rec = (double)b->w->record_length_bytes / MIB;
	series(j, "train_io_MB_per_second", "train_io_mean_MB_per_second", "train_io_stdev_MB_per_second", x, n, rec);
	free(x);
}

static void ckpt_metrics(struct fs_json *j, const struct fs_bench_report *b)
{
	uint32_t n = b->nckpt;
	double *x = calloc(n * 4 + 1, sizeof *x);
	if (!x)
		return;
	double *save_bw = x, *save_s = x + n, *load_bw = x + 2 * n, *load_s = x + 3 * n;
	double size_gib = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct fs_ckpt_result *c = &b->ckpt_each[i];
		save_s[i] = c->write_s;
		load_s[i] = c->read_s;
		save_bw[i] = c->write_s > 0 ? c->bytes_written / GIB / c->write_s : NAN;
		load_bw[i] = c->read_s > 0 ? c->bytes_read / GIB / c->read_s : NAN;
		size_gib = c->bytes_written / GIB;
	}
	double m, s;
	fs_dlio_mean_std(save_bw, (int)n, &m, &s);
	fs_json_number(j, "save_checkpoint_io_mean_GB_per_second", m);
	fs_json_number(j, "save_checkpoint_io_stdev_GB_per_second", s);
	fs_dlio_mean_std(save_s, (int)n, &m, &s);
	fs_json_number(j, "save_checkpoint_duration_mean_seconds", m);
	fs_json_number(j, "save_checkpoint_duration_stdev_seconds", s);
	fs_dlio_mean_std(load_bw, (int)n, &m, &s);
	fs_json_number(j, "load_checkpoint_io_mean_GB_per_second", m);
	fs_json_number(j, "load_checkpoint_io_stdev_GB_per_second", s);
	fs_dlio_mean_std(load_s, (int)n, &m, &s);
	fs_json_number(j, "load_checkpoint_duration_mean_seconds", m);
	fs_json_number(j, "load_checkpoint_duration_stdev_seconds", s);
	fs_json_number(j, "checkpoint_size_GB", size_gib); /* one checkpoint, GiB as DLIO's */
	free(x);
}

void fs_dlio_summary_write(FILE *out, const struct fs_bench_report *b)
{
	const struct fs_run_result *r = NULL;
	if (b->nruns > 0)
		r = &b->runs[b->find_max && b->best >= 0 ? b->best : 0];
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	char t[48];
	utc_text(t, sizeof t, b->start_unix_ns);
	fs_json_string(&j, "start", t);
	fs_json_int(&j, "num_accelerators", r ? (long long)r->accelerators * r->ranks : 0);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	fs_json_string(&j, "hostname", host);
	fs_json_object(&j, "metric");
	if (r)
		train_metrics(&j, b, r);
	if (b->nckpt && b->ckpt_each)
		ckpt_metrics(&j, b);
	fs_json_end(&j);
	fs_json_int(&j, "num_files_train", (long long)b->dataset_files);
	fs_json_int(&j, "num_files_eval", 0);
	fs_json_int(&j, "num_samples_per_file", b->w->num_samples_per_file);
	fs_json_array(&j, "host_cpu_count");
	fs_json_int(&j, NULL, sysconf(_SC_NPROCESSORS_ONLN));
	fs_json_end(&j);
	fs_json_array(&j, "host_memory_GB");
	fs_json_number(&j, NULL, b->client_mem_bytes / GIB);
	fs_json_end(&j);
	fs_json_number(&j, "data_size_per_host_GB", b->dataset_bytes / GIB);
	/* one entry per host, 1: reads may come from the page cache (here: the
	 * dataset is under 5 × the memory, MLPerf Storage's rule) */
	fs_json_array(&j, "potential_caching");
	fs_json_int(&j, NULL, b->potential_caching ? 1 : 0);
	fs_json_end(&j);
	fs_json_int(&j, "epochs", r ? (long long)r->epochs : 0);
	utc_text(t, sizeof t, b->end_unix_ns);
	fs_json_string(&j, "end", t);
	fs_json_object(&j, "feedscope"); /* ours, apart from DLIO's keys */
	fs_json_string(&j, "version", FS_VERSION);
	fs_json_string(&j, "workload", b->w->name);
	fs_json_number(&j, "au_threshold", b->w->au_threshold);
	fs_json_int(&j, "accelerators_per_rank", r ? (long long)r->accelerators : 0);
	fs_json_int(&j, "ranks", b->ranks);
	fs_json_int(&j, "record_length_bytes", (long long)b->w->record_length_bytes);
	fs_json_int(&j, "dataset_bytes", (long long)b->dataset_bytes);
	fs_json_int(&j, "client_memory_bytes", (long long)b->client_mem_bytes);
	fs_json_bool(&j, "allow_cache", b->allow_cache);
	fs_json_bool(&j, "interrupted", r && r->interrupted);
	fs_json_end(&j);
	fs_json_end(&j);
	fputc('\n', out);
}
