/* report - the verdict (and summary) of a run file. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/metrics.h"
#include "analysis/summary.h"
#include "analysis/verdict.h"
#include "bench/run_report.h"
#include "cmd/cmd.h"
#include "render/summary_text.h"
#include "render/verdict.h"
#include "util/log.h"

static const char usage_text[] =
	"usage: feedscope report [OPTIONS] RUN.db\n"
	"\n"
	"Say whether the recorded job was waiting for data, why, and what to change.\n"
	"\n"
	"      --format F      text (default) or json (one JSON document on stdout)\n"
	"      --json          same as --format json\n"
	"  -w, --window S:E    only the part of the run from S to E seconds (either may be\n"
	"                      left out: 60: or :300)\n"
	"  -h, --help          this help\n";

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'F'}, {"json", no_argument, NULL, 'J'},
	{"window", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* "S:E", "S:", ":E" -> seconds; false on junk or S > E. */
static bool parse_window(const char *s, struct fs_window *w)
{
	const char *colon = strchr(s, ':');
	if (!colon)
		return false;
	w->start_s = -INFINITY;
	w->end_s = INFINITY;
	char *end;
	if (colon != s) {
		errno = 0;
		w->start_s = strtod(s, &end);
		if (errno || end != colon || !isfinite(w->start_s) || w->start_s < 0)
			return false;
	}
	if (colon[1]) {
		errno = 0;
		w->end_s = strtod(colon + 1, &end);
		if (errno || *end || !isfinite(w->end_s) || w->end_s < 0)
			return false;
	}
	return w->start_s <= w->end_s;
}

int fs_cmd_report(int argc, char **argv)
{
	bool json = false, windowed = false;
	struct fs_window w;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":w:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'F':
			if (!strcmp(optarg, "json"))
				json = true;
			else if (!strcmp(optarg, "text"))
				json = false;
			else
				return fs_usage_error("report: unknown format '%s' (text or json)", optarg);
			break;
		case 'J':
			json = true;
			break;
		case 'w':
			if (!parse_window(optarg, &w))
				return fs_usage_error("report: bad window '%s' (START:END in seconds, e.g. 60:300)", optarg);
			windowed = true;
			break;
		default:
			return fs_bad_option("report", opt, argv);
		}
	}
	if (optind >= argc)
		return fs_usage_error("report: no run file given (usage: feedscope report [OPTIONS] RUN.db)");
	if (optind + 1 < argc)
		return fs_usage_error("report: one run file only ('%s' is extra)", argv[optind + 1]);
	const char *path = argv[optind];
	if (access(path, R_OK) < 0)
		return fs_usage_error("report: %s: %s", path, strerror(errno));

	struct fs_metrics m;
	char err[600];
	if (!windowed && fs_bench_report_file(stdout, path, json, err, sizeof err) > 0)
		return 0; /* a `feedscope bench --output` file: its summary, no verdict */
	if (fs_metrics_load(path, windowed ? &w : NULL, &m, err, sizeof err) < 0) {
		fs_error("report: %s", err);
		return 1;
	}
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	if (json) {
		fs_verdict_render_json(stdout, &m, &v);
		return 0;
	}
	struct fs_summary sum;
	if (!windowed && fs_summary_load(path, &sum, err, sizeof err) == 0)
		fs_summary_render_text(stdout, &sum, path);
	fs_verdict_render_text(stdout, &m, &v);
	return 0;
}
