/* runfile_common.c - see runfile_common.h. */
#include "runfile_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/merge.h"
#include "analysis/metrics.h"
#include "analysis/summary.h"
#include "analysis/thresholds.h"
#include "analysis/verdict.h"
#include "bench/run_report.h"
#include "render/perfetto.h"
#include "render/summary_text.h"
#include "render/verdict.h"
#include "util/log.h"

static char dir[256], db[300];

void fuzz_runfile_remove(void)
{
	static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
	char p[320];
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(p, sizeof p, "%s%s", db, sfx[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	fuzz_runfile_remove();
	rmdir(dir);
}

void fuzz_runfile_init(char *path, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/fuzz_runfile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_runfile: mkdtemp");
		exit(1);
	}
	snprintf(db, sizeof db, "%s/run.db", dir);
	atexit(cleanup);
	snprintf(path, cap, "%s", db);
	fs_log_set_quiet(true);
}

static void verdict(const char *path, const struct fs_window *w, FILE *out)
{
	struct fs_metrics m;
	char err[600];
	if (fs_metrics_load(path, w, &m, err, sizeof err) < 0)
		return;
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	fs_verdict_render_json(out, &m, &v);
	fs_verdict_render_text(out, &m, &v);
}

/* The file through the merge, alone and as two nodes (the same file twice:
 * its clocks, its steps against themselves), both renderers. */
static void merged(const char *path, FILE *out)
{
	struct fs_merge_file *f = calloc(2, sizeof *f);
	struct fs_merged *g = malloc(sizeof *g);
	char err[600];
	int n = 0;
	while (f && g && n < 2 && fs_merge_head(path, &f[n], err, sizeof err) == 0 &&
	       fs_merge_load(&f[n], NULL, err, sizeof err) == 0) {
		n++;
		if (fs_merge(f, n, NULL, g) == 0) {
			fs_merged_render_json(out, g);
			fs_merged_render_text(out, g);
		}
	}
	for (int i = 0; f && i < 2; i++)
		fs_merge_file_free(&f[i]);
	free(f);
	free(g);
}

void fuzz_runfile_read(const char *path, FILE *out)
{
	char err[600];
	(void)fs_bench_report_file(out, path, false, err, sizeof err);
	(void)fs_bench_report_file(out, path, true, err, sizeof err);
	verdict(path, NULL, out);
	struct fs_window w = {.start_s = 0.15, .end_s = 2.5};
	verdict(path, &w, out);
	struct fs_window open_end = {.start_s = 1, .end_s = INFINITY};
	verdict(path, &open_end, out);
	merged(path, out);
	(void)fs_perfetto_write(out, path, NULL, err, sizeof err);
	(void)fs_perfetto_write(out, path, &w, err, sizeof err);
	struct fs_summary *s = malloc(sizeof *s);
	if (s && fs_summary_load(path, s, err, sizeof err) == 0)
		fs_summary_render_text(out, s, path);
	free(s);
	fflush(out);
}
