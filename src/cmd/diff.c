/* diff - two run files side by side: verdicts, step time, buckets, the
 * loader knobs and environment that differ, the resources that changed,
 * and one headline (analysis/compare/diff.h). */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/diff.h"
#include "analysis/compare/merge.h"
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
	"      --format F      text (default), json (one JSON document on stdout) or html\n"
	"                      (one self-contained file; needs -o)\n"
	"      --json          same as --format json\n"
	"  -o, --output FILE   where the html goes (- for stdout); FILE is written beside\n"
	"                      itself and renamed over it when complete\n"
	"  -w, --window S:E    only S to E seconds of each run (its own seconds; either\n"
	"                      may be left out: 60: or :300)\n"
	"  -h, --help          this help\n";

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'F'}, {"json", no_argument, NULL, 'J'},
	{"window", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{"output", required_argument, NULL, 'o'},
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
	r->f.want_phases = true;
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

enum format { TEXT, JSON, HTML };

/* What --format html writes, through fs_cmd_write_output. */
struct html_args {
	const struct fs_diff *d;
	char *const *paths;
};

static void render_html(FILE *out, const void *arg)
{
	const struct html_args *h = arg;
	fs_diff_render_html(out, h->d, h->paths[0], h->paths[1]);
}

/* Both heads checked before either run is read, both read before anything
 * is written: bad input writes nothing. dest: html's -o. */
static int compare(char **paths, const struct fs_window *w, enum format fmt, const char *dest, struct run *r,
		   struct fs_diff *d)
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
	if (fmt == HTML)
		return fs_cmd_write_output("diff", dest, render_html, &(struct html_args){d, paths});
	if (fmt == JSON)
		fs_diff_render_json(stdout, d, paths[0], paths[1]);
	else
		fs_diff_render_text(stdout, d, paths[0], paths[1]);
	return 0;
}

/* -o belongs to html, and html needs it: 0, or 2 after saying why. */
static int check_dest(enum format fmt, const char *dest)
{
	if (fmt == HTML && !dest)
		return fs_usage_error("diff: --format html needs -o FILE (or -o - for stdout)");
	if (dest && fmt != HTML)
		return fs_usage_error("diff: -o is for --format html (text and json go to stdout)");
	return dest ? fs_cmd_check_output("diff", dest) : 0;
}

static int diff(int argc, char **argv)
{
	enum format fmt = TEXT;
	bool windowed = false;
	const char *dest = NULL;
	struct fs_window w = {-INFINITY, INFINITY};
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":w:o:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'F':
			if (strcmp(optarg, "json") && strcmp(optarg, "text") && strcmp(optarg, "html"))
				return fs_usage_error("diff: unknown format '%s' (text, json or html)", optarg);
			fmt = !strcmp(optarg, "json") ? JSON : !strcmp(optarg, "html") ? HTML : TEXT;
			break;
		case 'J':
			fmt = JSON;
			break;
		case 'o':
			dest = optarg;
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
	if (check_dest(fmt, dest))
		return 2;
	struct run *r = calloc(2, sizeof *r);
	struct fs_diff *d = malloc(sizeof *d);
	int rc = r && d ? compare(argv + optind, windowed ? &w : NULL, fmt, dest, r, d)
			: (fs_error("diff: out of memory"), 1);
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
