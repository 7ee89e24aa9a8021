/* runfile_common.c - see runfile_common.h. */
#include "runfile_common.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/advise/diagnose.h"
#include "analysis/compare/diff.h"
#include "analysis/compare/merge.h"
#include "analysis/load/load.h"
#include "analysis/load/metrics.h"
#include "analysis/load/summary.h"
#include "analysis/thresholds.h"
#include "analysis/judge/verdict.h"
#include "bench/emu/run_report.h"
#include "render/csv.h"
#include "render/diff.h"
#include "render/html.h"
#include "render/perfetto.h"
#include "render/summary_text.h"
#include "render/verdict.h"
#include "util/log.h"

static char dir[256], db[300], csvdir[300]; /* csvdir: export --format csv writes here */

void fuzz_runfile_remove(void)
{
	static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
	char p[320];
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(p, sizeof p, "%s%s", db, sfx[i]);
		unlink(p);
	}
}

/* Empty csvdir again (the CSV writer creates its files with O_EXCL). */
static void csv_clear(void)
{
	DIR *d = opendir(csvdir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

static void cleanup(void)
{
	fuzz_runfile_remove();
	csv_clear();
	rmdir(csvdir);
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
	snprintf(csvdir, sizeof csvdir, "%s/csv", dir);
	if (mkdir(csvdir, 0700) < 0) {
		perror("fuzz_runfile: mkdir");
		exit(1);
	}
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
 * its clocks, its steps against themselves), every renderer (the HTML's
 * series read too). */
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
			struct fs_html_report *r = fs_html_load(g, f, n, NULL, err, sizeof err);
			if (r)
				fs_html_render(out, g, r);
			fs_html_free(r);
		}
	}
	for (int i = 0; f && i < 2; i++)
		fs_merge_file_free(&f[i]);
	free(f);
	free(g);
}

/* `feedscope diff` of the run against its own first seconds (two sides
 * that differ), every renderer. */
static void diffed(const char *path, FILE *out)
{
	static const struct fs_window first = {.start_s = 0.15, .end_s = 2.5};
	const struct fs_window *w[2] = {NULL, &first};
	struct fs_merge_file *f = calloc(2, sizeof *f);
	struct fs_merged *g = calloc(2, sizeof *g);
	struct fs_diff_meta *meta = malloc(sizeof *meta);
	struct fs_diff *d = malloc(sizeof *d);
	char err[600];
	int n = 0;
	while (f && g && meta && d && n < 2 && fs_merge_head(path, &f[n], err, sizeof err) == 0 &&
	       fs_merge_load(&f[n], w[n], err, sizeof err) == 0 && fs_merge(&f[n], 1, w[n], &g[n]) == 0)
		n++;
	if (n == 2 && fs_diff_meta_load(path, meta, err, sizeof err) == 0) {
		fs_diff(&g[0], meta, &g[1], meta, d);
		fs_diff_render_text(out, d, path, path);
		fs_diff_render_json(out, d, path, path);
		fs_diff_render_html(out, d, path, path);
	}
	for (int i = 0; f && i < 2; i++)
		fs_merge_file_free(&f[i]);
	free(f);
	free(g);
	free(meta);
	free(d);
}

/* `feedscope export --format csv` into csvdir, emptied again after. */
static void csv(const char *path, const struct fs_window *w)
{
	char err[600];
	int files, fd = open(csvdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)fs_csv_write(fd, path, w, &files, err, sizeof err);
	close(fd);
	csv_clear();
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
	diffed(path, out);
	csv(path, NULL);
	csv(path, &w);
	(void)fs_perfetto_write(out, path, NULL, err, sizeof err);
	(void)fs_perfetto_write(out, path, &w, err, sizeof err);
	struct fs_summary *s = malloc(sizeof *s);
	if (s && fs_summary_load(path, s, err, sizeof err) == 0)
		fs_summary_render_text(out, s, path);
	free(s);
	fflush(out);
}
