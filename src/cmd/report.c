/* report - the verdict (and summary) of a run file. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/metrics.h"
#include "analysis/summary.h"
#include "analysis/verdict.h"
#include "bench/run_report.h"
#include "cmd/cmd.h"
#include "render/summary_text.h"
#include "render/verdict.h"
#include "util/log.h"
#include "util/text.h"

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

/* The run file must be a regular file, or a symlink to one (reading through
 * it is harmless): SQLite would block for ever opening a FIFO, and a device
 * or a directory is no run file. Returns 0, or 2 after saying why. (SQLite
 * opens the path again; swapping it in between is left to whoever owns the
 * directory: the report only reads.) */
static int check_run_file(const char *path)
{
	char shown[1024];
	struct stat st;
	int e = stat(path, &st) < 0 || access(path, R_OK) < 0 ? errno : 0;
	fs_text_escape(shown, sizeof shown, path);
	if (e)
		return fs_usage_error("report: %s: %s", shown, strerror(e));
	if (S_ISREG(st.st_mode))
		return 0;
	const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
			 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
			 : "a special file";
	return fs_usage_error("report: %s: is %s, not a run file", shown, kind);
}

/* A report that could not be written is a failure: exit 1, and say so. */
static int finish_stdout(int rc)
{
	int e = fflush(stdout) == 0 ? 0 : errno;
	if (!ferror(stdout) && e == 0)
		return rc;
	fs_error("report: writing to stdout failed: %s", e ? strerror(e) : "write error");
	return 1;
}

static int report(int argc, char **argv)
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
	if (check_run_file(path) != 0)
		return 2;

	struct fs_metrics m;
	char err[600];
	if (!windowed && fs_bench_report_file(stdout, path, json, err, sizeof err) > 0)
		return 0; /* a `feedscope bench --output` file: its summary, no verdict */
	if (fs_metrics_load(path, windowed ? &w : NULL, &m, err, sizeof err) < 0) {
		char shown[sizeof err * 4];
		fs_error("report: %s", fs_text_escape(shown, sizeof shown, err));
		return 1;
	}
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	if (json) {
		fs_verdict_render_json(stdout, &m, &v);
		return 0;
	}
	struct fs_summary sum;
	if (!windowed && fs_summary_load(path, &sum, err, sizeof err) < 0) {
		char shown[sizeof err * 4]; /* a query failed: an unreadable run file, as above */
		fs_error("report: %s", fs_text_escape(shown, sizeof shown, err));
		return 1;
	}
	if (!windowed)
		fs_summary_render_text(stdout, &sum, path);
	fs_verdict_render_text(stdout, &m, &v);
	return 0;
}

int fs_cmd_report(int argc, char **argv)
{
	/* A closed pipe is a write error (EPIPE) to report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return finish_stdout(report(argc, argv));
}
