/* diff - two run files side by side: verdicts, step time, buckets, the
 * loader knobs and environment that differ, the resources that changed,
 * and one headline (analysis/diff.h). */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/merge.h"
#include "cmd/cmd.h"
#include "render/diff.h"
#include "util/log.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope diff [OPTIONS] A.db B.db\n"
	"\n"
	"Compare two run files (before and after a change): their verdicts, the step\n"
	"time and samples/s, where the loop's time went, the loader knobs and the\n"
	"environment that differ, the resources that changed; the last line says it in\n"
	"one sentence.\n"
	"\n"
	"      --format F      text (default) or json (one JSON document on stdout)\n"
	"      --json          same as --format json\n"
	"  -w, --window S:E    only S to E seconds of each run (its own seconds; either\n"
	"                      may be left out: 60: or :300)\n"
	"  -h, --help          this help\n";

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'F'}, {"json", no_argument, NULL, 'J'},
	{"window", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* One side: its run file read as `report` reads one, and its meta. */
struct run {
	struct fs_merge_file f;
	struct fs_merged g;
	struct fs_diff_meta meta;
};

/* Before anything is read or printed: a run file of a recorded job (not a
 * bench run file), else exit 2. */
static int check_head(const char *path, struct run *r)
{
	char err[600], shown[4 * 600];
	if (fs_cmd_check_run_file("diff", path) != 0)
		return 2;
	if (fs_merge_head(path, &r->f, err, sizeof err) < 0)
		return fs_usage_error("diff: %s", fs_text_escape(shown, sizeof shown, err));
	if (!strcmp(r->f.mode, "bench"))
		return fs_usage_error("diff: %s: is a feedscope bench run file, not a recorded job",
				      fs_text_escape(shown, sizeof shown, path));
	return 0;
}

/* Its metrics (within w), verdict and meta: 0, or 1 after saying why (a
 * run file that cannot be read whole gives no comparison). */
static int load(struct run *r, const struct fs_window *w)
{
	char err[600], shown[4 * 600];
	if (fs_merge_load(&r->f, w, err, sizeof err) < 0 || fs_diff_meta_load(r->f.path, &r->meta, err, sizeof err) < 0) {
		fs_error("diff: %s", fs_text_escape(shown, sizeof shown, err));
		return 1;
	}
	if (fs_merge(&r->f, 1, w, &r->g) < 0) {
		fs_error("diff: out of memory");
		return 1;
	}
	return 0;
}

static int compare(char **paths, const struct fs_window *w, bool json, struct run *r, struct fs_diff *d)
{
	int rc = check_head(paths[0], &r[0]);
	if (!rc)
		rc = check_head(paths[1], &r[1]);
	if (!rc)
		rc = load(&r[0], w);
	if (!rc)
		rc = load(&r[1], w);
	if (rc)
		return rc;
	fs_diff(&r[0].g, &r[0].meta, &r[1].g, &r[1].meta, d);
	if (json)
		fs_diff_render_json(stdout, d, paths[0], paths[1]);
	else
		fs_diff_render_text(stdout, d, paths[0], paths[1]);
	return 0;
}

static int diff(int argc, char **argv)
{
	bool json = false, windowed = false;
	struct fs_window w = {-INFINITY, INFINITY};
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":w:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'F':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return fs_usage_error("diff: unknown format '%s' (text or json)", optarg);
			json = !strcmp(optarg, "json");
			break;
		case 'J':
			json = true;
			break;
		case 'w':
			if (!fs_cmd_parse_window(optarg, &w))
				return fs_usage_error("diff: bad window '%s' (START:END in seconds, e.g. 60:300)", optarg);
			windowed = true;
			break;
		default:
			return fs_bad_option("diff", opt, argv);
		}
	}
	if (argc - optind != 2)
		return fs_usage_error("diff: %s (usage: feedscope diff [OPTIONS] A.db B.db)",
				      argc - optind < 2 ? "two run files are needed" : "only two run files are compared");
	struct run *r = calloc(2, sizeof *r);
	struct fs_diff *d = malloc(sizeof *d);
	int rc = r && d ? compare(argv + optind, windowed ? &w : NULL, json, r, d) : (fs_error("diff: out of memory"), 1);
	for (int i = 0; r && i < 2; i++)
		fs_merge_file_free(&r[i].f);
	free(r);
	free(d);
	return rc;
}

int fs_cmd_diff(int argc, char **argv)
{
	/* A closed pipe is a write error (EPIPE) to report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return fs_cmd_finish_stdout("diff", diff(argc, argv));
}
