/* bench_db.c - the run file of `feedscope bench --output` (bench_db.h):
 * its meta, one `bench` row per epoch (and epoch -1, the whole run) of
 * every run or --find-max-accelerators trial, and the `bench_checkpoint`
 * row (docs/schema.md). Moved here from src/bench/run_report.c. */
#include "store/bench_db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

/* Percentile p of h in microseconds (NaN when h is empty). */
static double us(const struct fs_hist *h, double p)
{
	return h->count ? fs_hist_percentile(h, p) / 1e3 : NAN;
}

static void bench_row(struct fs_sink *sink, const struct fs_bench_report *b, const struct fs_run_result *r, int epoch,
		      const struct fs_run_epoch *e)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_BENCH, 0);
	fs_row_text(&row, FS_BENCH_workload, b->w->name);
	fs_row_int(&row, FS_BENCH_epoch, epoch);
	fs_row_int(&row, FS_BENCH_accelerators, r->accelerators);
	fs_row_real(&row, FS_BENCH_au, e->au);
	fs_row_real(&row, FS_BENCH_au_threshold, r->au_threshold);
	fs_row_int(&row, FS_BENCH_passed, !isnan(e->au) && e->au >= r->au_threshold &&
					  (!b->potential_caching || b->allow_cache));
	fs_row_real(&row, FS_BENCH_samples_per_s, e->samples_per_s);
	fs_row_real(&row, FS_BENCH_read_bytes_per_s, e->read_bytes_per_s);
	fs_row_real(&row, FS_BENCH_nominal_bytes_per_s, e->nominal_bytes_per_s);
	fs_row_int(&row, FS_BENCH_reads, (int64_t)e->reads);
	fs_row_real(&row, FS_BENCH_read_p50_us, us(&e->lat, 50));
	fs_row_real(&row, FS_BENCH_read_p90_us, us(&e->lat, 90));
	fs_row_real(&row, FS_BENCH_read_p99_us, us(&e->lat, 99));
	fs_row_real(&row, FS_BENCH_read_p999_us, us(&e->lat, 99.9));
	fs_row_real(&row, FS_BENCH_duration_s, e->duration_s);
	fs_row_text(&row, FS_BENCH_engine, b->engine);
	fs_row_int(&row, FS_BENCH_direct, b->direct);
	fs_row_int(&row, FS_BENCH_threads, (int64_t)b->w->read_threads * r->accelerators);
	fs_row_int(&row, FS_BENCH_queue_depth, b->qd);
	fs_row_int(&row, FS_BENCH_ranks, r->ranks);
	fs_row_text(&row, FS_BENCH_dir, b->dir);
	fs_sink_row(sink, &row);
}

int fs_bench_write_store(struct fs_store *st, const struct fs_bench_report *b, int argc, char **argv, char *why,
			 size_t whylen)
{
	char path[1024];
	snprintf(path, sizeof path, "%s", fs_store_path(st));
	struct fs_sink *sink = fs_store_sink(st);
	fs_sink_meta(sink, "mode", "bench");
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *cmd = calloc(1, len + 16);
	if (cmd) {
		strcpy(cmd, "feedscope");
		for (int i = 0; i < argc; i++) {
			strcat(cmd, " ");
			strcat(cmd, argv[i]);
		}
		fs_sink_meta(sink, "command", cmd);
		free(cmd);
	}
	fs_sink_meta(sink, "feedscope_version", FS_VERSION);
	fs_sink_metaf(sink, "schema_version", "%d", FS_SCHEMA_VERSION);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	fs_sink_meta(sink, "hostname", host);
	fs_sink_metaf(sink, "ncpu", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	fs_sink_metaf(sink, "start_unix", "%.3f", b->start_unix_ns / 1e9);
	fs_sink_metaf(sink, "end_unix", "%.3f", b->end_unix_ns / 1e9);
	fs_sink_metaf(sink, "duration_s", "%.3f", (b->end_unix_ns - b->start_unix_ns) / 1e9);
	fs_sink_meta(sink, "bench.workload", b->w->name);
	fs_sink_meta(sink, "bench.dir", b->dir);
	if (b->w->train) {
		fs_sink_metaf(sink, "bench.potential_caching", "%d", b->potential_caching);
		fs_sink_metaf(sink, "bench.allow_cache", "%d", b->allow_cache);
		fs_sink_metaf(sink, "bench.client_memory_bytes", "%llu", (unsigned long long)b->client_mem_bytes);
	}
	if (b->find_max)
		fs_sink_metaf(sink, "bench.max_accelerators", "%u", b->best >= 0 ? b->runs[b->best].accelerators : 0);
	for (int i = 0; i < b->nruns; i++) {
		const struct fs_run_result *r = &b->runs[i];
		for (uint32_t e = 0; e < r->epochs; e++)
			bench_row(sink, b, r, (int)e, &r->epoch[e]);
		bench_row(sink, b, r, -1, &r->total);
	}
	if (b->ckpt) {
		struct fs_row row;
		fs_row_init(&row, FS_T_BENCH_CKPT, 0);
		fs_row_text(&row, FS_BENCH_CKPT_workload, b->w->name);
		fs_row_int(&row, FS_BENCH_CKPT_bytes, (int64_t)b->ckpt_bytes);
		fs_row_int(&row, FS_BENCH_CKPT_files, (int64_t)b->ckpt->files); /* summed over ranks */
		fs_row_real(&row, FS_BENCH_CKPT_write_s, b->ckpt->write_s);
		fs_row_real(&row, FS_BENCH_CKPT_write_bytes_per_s, b->ckpt->write_bytes_per_s);
		fs_row_real(&row, FS_BENCH_CKPT_read_s, b->ckpt->read_s);
		fs_row_real(&row, FS_BENCH_CKPT_read_bytes_per_s, b->ckpt->read_bytes_per_s);
		fs_row_int(&row, FS_BENCH_CKPT_ranks, b->ranks);
		fs_sink_row(sink, &row);
	}
	if (fs_store_close(st) < 0) {
		snprintf(why, whylen, "%s: the final commit failed", path);
		return -1;
	}
	return 0;
}
