/* run_report.c - the outputs of `feedscope bench`: a text table per run,
 * one JSON document shaped like fio's (--json). Pure printers of a struct
 * fs_bench_report; the run file's rows (--output) are store/bench_db.c's. */
#include "bench/emu/run_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "render/fio_json.h"
#include "util/fmt.h"
#include "util/json.h"

static const double pcts[] = {50, 90, 99, 99.9};

static void pct(char *out, size_t cap, double x)
{
	if (isnan(x))
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%.1f%%", x * 100);
}

static void text_row(FILE *out, const char *label, const struct fs_run_epoch *e)
{
	char au[16], busy[16], sps[32], rd[32], nom[32], p[4][32], dur[32];
	pct(au, sizeof au, e->au);
	pct(busy, sizeof busy, e->busy);
	fs_fmt_sig3(sps, sizeof sps, e->samples_per_s);
	fs_fmt_rate(rd, sizeof rd, e->read_bytes_per_s);
	fs_fmt_rate(nom, sizeof nom, e->nominal_bytes_per_s);
	for (int i = 0; i < 4; i++)
		fs_fmt_time(p[i], sizeof p[i], e->lat.count ? fs_hist_percentile(&e->lat, pcts[i]) / 1e9 : NAN);
	fs_fmt_time(dur, sizeof dur, e->duration_s);
	fprintf(out, "%-6s %6u %7s %7s %10s %11s %11s %9s %9s %9s %9s %9s\n", label, e->steps, au, busy, sps, rd, nom,
		p[0], p[1], p[2], p[3], dur);
}

/* The storage's side, as fio counts it: reads and bytes over the time the
 * readers were reading (hand-overs and waits for a queue slot left out). */
static void count_si(char *out, size_t cap, double x)
{
	if (x >= 1e6)
		snprintf(out, cap, "%.3gM", x / 1e6);
	else if (x >= 1e3)
		snprintf(out, cap, "%.3gk", x / 1e3);
	else
		snprintf(out, cap, "%.3g", x);
}

static void text_io(FILE *out, const struct fs_run_epoch *t)
{
	char n[32], rate[32], bw[32], io[32], dur[32];
	count_si(n, sizeof n, (double)t->reads);
	count_si(rate, sizeof rate, t->io_reads_per_s);
	fs_fmt_rate(bw, sizeof bw, t->io_bytes_per_s);
	fs_fmt_time(io, sizeof io, t->io_s);
	fs_fmt_time(dur, sizeof dur, t->duration_s);
	fprintf(out, "reads: %s, %s/s and %s while the readers read (%s of %s; as fio's iops and bw)\n", n, rate, bw,
		io, dur);
}

bool fs_bench_claim(const struct fs_bench_report *b, const struct fs_run_result *r)
{
	return r->passed && (!b->potential_caching || b->allow_cache);
}

/* The guard's line: why a PASS is not claimed (or claimed by --allow-cache). */
static void text_guard(FILE *out, const struct fs_bench_report *b)
{
	char ds[32], mem[32];
	fs_fmt_bytes(ds, sizeof ds, (double)b->dataset_bytes);
	fs_fmt_bytes(mem, sizeof mem, (double)b->client_mem_bytes);
	if (b->allow_cache)
		fprintf(out, "note: the dataset (%s) is less than 5x the client's memory (%s): reads may come from the page "
			     "cache; claimed anyway (--allow-cache)\n", ds, mem);
	else
		fprintf(out, "the AU check is not valid: the dataset (%s) is less than 5x the client's memory (%s), so reads "
			     "may come from the page cache (MLPerf Storage's rule); no PASS is claimed (generate a larger "
			     "dataset, or give --allow-cache)\n", ds, mem);
}

static void text_run(FILE *out, const struct fs_bench_report *b, const struct fs_run_result *r)
{
	fprintf(out, "%-6s %6s %7s %7s %10s %11s %11s %9s %9s %9s %9s %9s\n", "epoch", "steps", "AU", "busy",
		"samples/s", "read", "nominal", "p50", "p90", "p99", "p99.9", "time");
	char label[16];
	for (uint32_t i = 0; i < r->epochs; i++) {
		snprintf(label, sizeof label, "%u", i + 1);
		text_row(out, label, &r->epoch[i]);
	}
	if (r->epochs > 1)
		text_row(out, "all", &r->total);
	text_io(out, &r->total);
	char au[16], th[16];
	pct(au, sizeof au, r->total.au);
	pct(th, sizeof th, r->au_threshold);
	const char *verdict = fs_bench_claim(b, r) ? "PASS" : r->passed ? "not valid (potential caching)" : "FAIL";
	fprintf(out, "AU %s %s threshold %s: %s (%u accelerator%s%s)\n", au, r->passed ? ">=" : "<", th, verdict,
		r->accelerators, r->accelerators == 1 ? "" : "s", r->ranks > 1 ? " per rank" : "");
	if (b->potential_caching)
		text_guard(out, b);
	if (r->wrapped)
		fprintf(out, "note: --steps asked for more batches than the dataset holds; samples were read again\n");
}

void fs_bench_print_trial(FILE *out, const struct fs_run_result *r)
{
	char au[16], busy[16], sps[32], rd[32];
	pct(au, sizeof au, r->total.au);
	pct(busy, sizeof busy, r->total.busy);
	fs_fmt_sig3(sps, sizeof sps, r->total.samples_per_s);
	fs_fmt_rate(rd, sizeof rd, r->total.read_bytes_per_s);
	fprintf(out, "trial: %u accelerator%s: AU %s (busy %s), %s samples/s, %s: %s\n", r->accelerators,
		r->accelerators == 1 ? "" : "s", au, busy, sps, rd, r->passed ? "pass" : "fail");
	fflush(out);
}

void fs_bench_print_text(FILE *out, const struct fs_bench_report *b)
{
	const struct fs_workload *w = b->w;
	const struct fs_wl_compute *c = fs_workload_compute(w);
	char rec[32], ct[32], tot[32];
	fs_fmt_bytes(rec, sizeof rec, (double)w->record_length_bytes);
	fs_fmt_time(ct, sizeof ct, c->mean_s);
	fs_fmt_bytes(tot, sizeof tot, (double)b->dataset_bytes);
	if (w->train && b->nruns > 0) {
		fprintf(out, "bench %s: %llu files, %llu samples (%s), record %s, batch %u; compute %s/step%s%s; "
			     "%s%s, %u reader thread%s and prefetch %u per accelerator",
			w->name, (unsigned long long)b->dataset_files, (unsigned long long)b->dataset_samples, tot, rec,
			w->batch_size, ct, c->accel[0] ? " on " : "", c->accel, b->engine, b->direct ? " O_DIRECT" : "",
			w->read_threads, w->read_threads == 1 ? "" : "s", w->prefetch);
		if (!strcmp(b->engine, "io_uring"))
			fprintf(out, ", queue depth %u", b->qd);
		if (b->ranks > 1)
			fprintf(out, "; %d MPI ranks", b->ranks);
		fputc('\n', out);
	}
	if (b->find_max) {
		if (b->best >= 0) {
			fprintf(out, "\nlargest number of accelerators that held AU >= %.1f%%: %s%u%s\n\n",
				w->au_threshold * 100, b->capped ? "at least " : "", b->runs[b->best].accelerators,
				b->ranks > 1 ? " per rank" : "");
			text_run(out, b, &b->runs[b->best]);
		} else {
			fprintf(out, "\nnot even 1 accelerator held AU >= %.1f%%\n\n", w->au_threshold * 100);
			if (b->nruns > 0)
				text_run(out, b, &b->runs[0]);
		}
	} else if (b->nruns > 0) {
		fputc('\n', out);
		text_run(out, b, &b->runs[0]);
	}
	if (b->ckpt) {
		char sz[32], wr[32], rr[32], wt[32], rt[32];
		fs_fmt_bytes(sz, sizeof sz, (double)b->ckpt_bytes);
		fs_fmt_rate(wr, sizeof wr, b->ckpt->write_bytes_per_s);
		fs_fmt_rate(rr, sizeof rr, b->ckpt->read_bytes_per_s);
		fs_fmt_time(wt, sizeof wt, b->ckpt->write_s);
		fs_fmt_time(rt, sizeof rt, b->ckpt->read_s);
		fprintf(out, "checkpoint %s in %u file%s: write+fsync %s (%s), read back %s (%s)\n", sz,
			b->ckpt->files, b->ckpt->files == 1 ? "" : "s", wt, wr, rt, rr);
	}
}

static void json_lat(struct fs_json *j, const struct fs_hist *h)
{
	fs_json_object(j, "lat_ns");
	fs_json_int(j, "min", h->count ? (long long)h->min : 0);
	fs_json_int(j, "max", (long long)h->max);
	fs_json_number(j, "mean", h->count ? (double)h->sum / h->count : 0);
	fs_json_object(j, "percentile");
	char key[32];
	for (int i = 0; i < 4; i++) {
		snprintf(key, sizeof key, "%f", pcts[i]);
		fs_json_int(j, key, (long long)fs_hist_percentile(h, pcts[i]));
	}
	fs_json_end(j);
	fs_json_end(j);
}

static void json_read(struct fs_json *j, const struct fs_run_epoch *e, double rec_bytes)
{
	fs_json_object(j, "read");
	fs_json_int(j, "io_bytes", (long long)e->read_bytes);
	fs_json_int(j, "sample_bytes", (long long)e->sample_bytes);
	fs_json_int(j, "nominal_bytes", (long long)llround((double)e->samples * rec_bytes));
	/* as fio's: over the time the readers were reading (io_s), which
	 * leaves out their waits for a queue slot and the hand-overs; the
	 * pipeline's rates, over the wall time, are wall_* */
	fs_json_number(j, "bw_bytes", e->io_bytes_per_s);
	fs_json_number(j, "iops", e->io_reads_per_s);
	fs_json_number(j, "io_s", e->io_s);
	fs_json_number(j, "wall_bw_bytes", e->read_bytes_per_s);
	fs_json_number(j, "wall_iops", e->duration_s > 0 ? e->reads / e->duration_s : 0);
	fs_json_number(j, "nominal_bw_bytes", e->nominal_bytes_per_s);
	fs_json_int(j, "total_ios", (long long)e->reads);
	json_lat(j, &e->lat);
	fs_json_end(j);
}

static void json_epoch_body(struct fs_json *j, const struct fs_run_epoch *e, double rec_bytes)
{
	fs_json_number(j, "au", e->au);
	fs_json_number(j, "busy", e->busy);
	fs_json_int(j, "steps", e->steps);
	fs_json_int(j, "samples", (long long)e->samples);
	fs_json_number(j, "samples_per_s", e->samples_per_s);
	fs_json_number(j, "window_samples_per_s", e->window_samples_per_s); /* DLIO's train_throughput */
	fs_json_number(j, "compute_s", e->compute_s);
	fs_json_number(j, "duration_s", e->duration_s);
	json_read(j, e, rec_bytes);
}

static void json_job(struct fs_json *j, const struct fs_bench_report *b, const struct fs_run_result *r)
{
	double rec = (double)b->w->record_length_bytes;
	fs_json_object(j, NULL);
	fs_json_string(j, "jobname", b->w->name);
	fs_json_int(j, "accelerators", r->accelerators);
	fs_json_int(j, "ranks", r->ranks);
	fs_json_array(j, "epochs");
	for (uint32_t i = 0; i < r->epochs; i++) {
		fs_json_object(j, NULL);
		fs_json_int(j, "epoch", i);
		json_epoch_body(j, &r->epoch[i], rec);
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_number(j, "au_threshold", r->au_threshold);
	fs_json_bool(j, "passed", fs_bench_claim(b, r)); /* the claim: the guard can refuse it */
	fs_json_bool(j, "au_meets_threshold", r->passed);
	fs_json_bool(j, "samples_reused", r->wrapped);
	fs_json_bool(j, "interrupted", r->interrupted);
	json_epoch_body(j, &r->total, rec);
	fs_json_end(j);
}

static void json_guard(struct fs_json *j, const struct fs_bench_report *b)
{
	fs_json_bool(j, "potential_caching", b->potential_caching);
	fs_json_object(j, "page_cache_guard");
	fs_json_int(j, "dataset_bytes", (long long)b->dataset_bytes);
	fs_json_int(j, "client_memory_bytes", (long long)b->client_mem_bytes);
	fs_json_int(j, "factor", 5);
	fs_json_bool(j, "allow_cache", b->allow_cache);
	fs_json_bool(j, "au_valid", !b->potential_caching || b->allow_cache);
	fs_json_end(j);
}

static void json_options(struct fs_json *j, const struct fs_bench_report *b)
{
	const struct fs_workload *w = b->w;
	const struct fs_wl_compute *c = fs_workload_compute(w);
	char s[64];
	fs_json_object(j, "global options");
	fs_json_string(j, "workload", b->workload_arg);
	fs_json_string(j, "name", w->name);
	fs_json_string(j, "dir", b->dir);
	snprintf(s, sizeof s, "%g", b->scale);
	fs_json_string(j, "scale", s);
#define OPT_U(key, v) (snprintf(s, sizeof s, "%llu", (unsigned long long)(v)), fs_json_string(j, key, s))
	if (w->train) {
		OPT_U("accelerators", b->runs && b->nruns ? b->runs[b->best >= 0 ? b->best : 0].accelerators : 0);
		fs_json_string(j, "accelerator_type", c->accel[0] ? c->accel : NULL);
		snprintf(s, sizeof s, "%g", c->mean_s);
		fs_json_string(j, "computation_time", s);
		snprintf(s, sizeof s, "%g", c->stdev_s);
		fs_json_string(j, "computation_time_stdev", s);
		fs_json_string(j, "engine", b->engine);
		fs_json_string(j, "direct", b->direct ? "1" : "0");
		OPT_U("qd", b->qd);
		OPT_U("read_threads", w->read_threads);
		OPT_U("prefetch", w->prefetch);
		OPT_U("batch_size", w->batch_size);
		OPT_U("epochs", w->epochs);
		OPT_U("steps", b->steps_opt ? b->steps_opt : w->total_training_steps);
		OPT_U("seed", w->seed);
		fs_json_string(j, "file_shuffle", fs_wl_shuffle_name(w->file_shuffle));
		fs_json_string(j, "sample_shuffle", fs_wl_shuffle_name(w->sample_shuffle));
		fs_json_string(j, "format", w->format);
		OPT_U("record_length_bytes", w->record_length_bytes);
		snprintf(s, sizeof s, "%g", w->au_threshold);
		fs_json_string(j, "au_threshold", s);
		fs_json_string(j, "find_max_accelerators", b->find_max ? "1" : "0");
	}
	fs_json_string(j, "checkpoint", b->ckpt ? "1" : "0");
	if (b->ckpt)
		OPT_U("checkpoint_bytes", b->ckpt_bytes);
#undef OPT_U
	fs_json_end(j);
}

void fs_bench_print_json(FILE *out, const struct fs_bench_report *b)
{
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	fs_json_string(&j, "feedscope version", "feedscope-" FS_VERSION);
	time_t now = (time_t)(b->end_unix_ns / 1000000000ull);
	fs_json_int(&j, "timestamp", (long long)now);
	fs_json_int(&j, "timestamp_ms", (long long)(b->end_unix_ns / 1000000ull));
	char tbuf[64];
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(tbuf, sizeof tbuf, "%a %b %e %H:%M:%S %Y", &tm);
	fs_json_string(&j, "time", tbuf);
	json_options(&j, b);
	fs_json_int(&j, "ranks", b->ranks);
	fs_json_object(&j, "dataset");
	fs_json_int(&j, "files", (long long)b->dataset_files);
	fs_json_int(&j, "samples", (long long)b->dataset_samples);
	fs_json_int(&j, "bytes", (long long)b->dataset_bytes);
	fs_json_end(&j);
	if (b->w->train)
		json_guard(&j, b);
	fs_json_array(&j, "jobs");
	for (int i = 0; i < b->nruns; i++)
		json_job(&j, b, &b->runs[i]);
	fs_json_end(&j);
	if (b->find_max)
	{
		fs_json_int(&j, "max_accelerators", b->best >= 0 ? (long long)b->runs[b->best].accelerators : 0);
		fs_json_bool(&j, "max_accelerators_is_lower_bound", b->capped);
	}
	if (b->ckpt) {
		fs_json_object(&j, "checkpoint");
		fs_json_int(&j, "bytes", (long long)b->ckpt_bytes);
		fs_json_int(&j, "files", b->ckpt->files);
		fs_json_number(&j, "write_s", b->ckpt->write_s);
		fs_json_number(&j, "fsync_s", b->ckpt->fsync_s);
		fs_json_number(&j, "write_bw_bytes", b->ckpt->write_bytes_per_s);
		fs_json_number(&j, "read_s", b->ckpt->read_s);
		fs_json_number(&j, "read_bw_bytes", b->ckpt->read_bytes_per_s);
		fs_json_end(&j);
	}
	fs_json_end(&j);
	fputc('\n', out);
}
