/* report - the verdict (and summary) of a run file, or of several (one per node) merged into one job. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare/merge.h"
#include "analysis/load/metrics.h"
#include "analysis/load/query.h"
#include "analysis/load/stalls.h"
#include "analysis/load/summary.h"
#include "analysis/judge/verdict.h"
#include "bench/emu/run_report.h"
#include "cmd/cmd.h"
#include "render/html.h"
#include "render/stalls.h"
#include "render/summary_text.h"
#include "render/verdict.h"
#include "util/log.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope report [OPTIONS] RUN.db [RUN.db ...]\n"
	"       feedscope report [OPTIONS] DIR\n"
	"\n"
	"Say whether the recorded job was waiting for data, why, and what to change.\n"
	"Several run files (one per node; DIR: every *.db file in it) are one job: the\n"
	"straggler across all ranks, a table per node and per rank, one verdict.\n"
	"\n"
	"      --format F      text (default), json (one JSON document on stdout) or html\n"
	"                      (one self-contained file: the verdict and the timelines; needs -o)\n"
	"      --json          same as --format json\n"
	"  -o, --output FILE   where the html goes (- for stdout); FILE is written beside\n"
	"                      itself and renamed over it when complete\n"
	"  -w, --window S:E    only the part of the run from S to E seconds (either may be\n"
	"                      left out: 60: or :300); of several files, seconds since the\n"
	"                      earliest one's start\n"
	"      --resolution R  auto (default: the per-minute tables past an hour of\n"
	"                      samples, else every sample), raw (every sample: exact,\n"
	"                      seconds a day of run) or minute (the per-minute tables)\n"
	"  -h, --help          this help\n";

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'F'}, {"json", no_argument, NULL, 'J'},
	{"window", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{"output", required_argument, NULL, 'o'}, {"resolution", required_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

/* "S:E", "S:", ":E" -> seconds; false on junk or S > E (cmd.h: shared). */
bool fs_cmd_parse_window(const char *s, struct fs_window *w)
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
int fs_cmd_check_run_file(const char *cmd, const char *path)
{
	char shown[1024];
	struct stat st;
	int e = stat(path, &st) < 0 || access(path, R_OK) < 0 ? errno : 0;
	fs_text_escape(shown, sizeof shown, path);
	if (e)
		return fs_usage_error("%s: %s: %s", cmd, shown, strerror(e));
	if (S_ISREG(st.st_mode))
		return 0;
	const char *kind = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
			 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
			 : "a special file";
	return fs_usage_error("%s: %s: is %s, not a run file", cmd, shown, kind);
}

/* A report that could not be written is a failure: exit 1, and say so. */
int fs_cmd_finish_stdout(const char *cmd, int rc)
{
	int e = fflush(stdout) == 0 ? 0 : errno;
	if (!ferror(stdout) && e == 0)
		return rc;
	fs_error("%s: writing to stdout failed: %s", cmd, e ? strerror(e) : "write error");
	return 1;
}

/* The run files named on the command line, a directory's *.db files
 * (regular ones, sorted by name) in its place. */
struct paths {
	char **v;
	int n, cap;
	bool from_dir;
};

static bool add_path(struct paths *p, const char *dir, const char *name)
{
	if (p->n == p->cap) {
		char **more = realloc(p->v, (size_t)(p->cap = p->cap ? 2 * p->cap : 16) * sizeof *more);
		if (!more)
			return false;
		p->v = more;
	}
	size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
	if (!(p->v[p->n] = malloc(len)))
		return false;
	snprintf(p->v[p->n++], len, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	return true;
}

static void free_paths(struct paths *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's regular files (or symlinks to one) whose names end in ".db";
 * none is a usage error. Returns 0, or 2 after saying why. */
static int add_dir(struct paths *p, const char *dir)
{
	char shown[1024];
	fs_text_escape(shown, sizeof shown, dir);
	DIR *d = opendir(dir);
	if (!d)
		return fs_usage_error("report: %s: %s", shown, strerror(errno));
	int first = p->n;
	struct dirent *e;
	bool ok = true;
	while (ok && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		if (len > 3 && !strcmp(e->d_name + len - 3, ".db") && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISREG(st.st_mode))
			ok = add_path(p, dir, e->d_name);
	}
	closedir(d);
	if (!ok)
		return fs_usage_error("report: out of memory");
	if (p->n == first)
		return fs_usage_error("report: %s: is a directory without run files (*.db)", shown);
	qsort(p->v + first, (size_t)(p->n - first), sizeof *p->v, by_name);
	p->from_dir = true;
	return 0;
}

/* Every argument checked (check_run_file) and a directory expanded; the
 * same file twice is refused. Returns 0, or 2 after saying why. */
static int gather(int argc, char **argv, struct paths *p)
{
	for (int i = optind; i < argc; i++) {
		struct stat st;
		int rc = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? add_dir(p, argv[i])
			 : fs_cmd_check_run_file("report", argv[i]) != 0 ? 2
			 : add_path(p, NULL, argv[i])			 ? 0
									 : fs_usage_error("report: out of memory");
		if (rc)
			return rc;
	}
	if (p->n > FS_MERGE_MAX_FILES)
		return fs_usage_error("report: %d run files: at most %d are merged", p->n, FS_MERGE_MAX_FILES);
	for (int i = 0; i < p->n; i++)
		for (int j = 0; j < i; j++) {
			struct stat a, b;
			if (stat(p->v[i], &a) == 0 && stat(p->v[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
				char shown[1024];
				return fs_usage_error("report: %s: given twice", fs_text_escape(shown, sizeof shown, p->v[i]));
			}
		}
	return 0;
}

static int read_failed(const char *err)
{
	char shown[4 * 600];
	fs_error("report: %s", fs_text_escape(shown, sizeof shown, err));
	return 1;
}

/* Several run files: each must be a run file of a recorded job (not a
 * bench run file) before anything is read or printed (exit 2); then each is
 * read within the window, in its own seconds by the wall clock. */
static int load_several(const struct paths *p, const struct fs_window *w, struct fs_merge_file *files)
{
	char err[600], shown[4 * 600];
	for (int i = 0; i < p->n; i++) {
		if (fs_merge_head(p->v[i], &files[i], err, sizeof err) < 0)
			return fs_usage_error("report: %s", fs_text_escape(shown, sizeof shown, err));
		if (!strcmp(files[i].mode, "bench"))
			return fs_usage_error("report: %s: is a feedscope bench run file: report it alone",
					      fs_text_escape(shown, sizeof shown, p->v[i]));
	}
	for (int i = 0; i < p->n; i++) {
		struct fs_window wi = fs_merge_file_window(files, p->n, i, w);
		files[i].want_steps = p->n > 1;
		files[i].want_phases = true;
		if (fs_merge_load(&files[i], &wi, err, sizeof err) < 0)
			return read_failed(err);
	}
	return 0;
}

/* -o FILE for html (cmd.h: shared with diff): nothing but a regular file
 * (or a new name in an existing directory) is replaced; a directory, FIFO
 * or device, or a directory that is not there, is a usage error (before
 * any reading). */
int fs_cmd_check_output(const char *cmd, const char *dest)
{
	struct stat st;
	char shown[1024], dir[1024];
	fs_text_escape(shown, sizeof shown, dest);
	if (!strcmp(dest, "-"))
		return 0;
	if (stat(dest, &st) == 0)
		return S_ISREG(st.st_mode) ? 0
		       : fs_usage_error("%s: -o %s: is %s, not a file to write", cmd, shown,
					S_ISDIR(st.st_mode) ? "a directory" : "a special file");
	const char *slash = strrchr(dest, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - dest) + 1 : 1, slash ? dest : ".");
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return fs_usage_error("%s: -o %s: no such directory to write it in", cmd, shown);
	return 0;
}

/* The document written by render(out, arg) to DEST.partial-PID, then
 * renamed over DEST: a reader never sees half a document, a failed one
 * leaves DEST as it was. "-": stdout (cmd.h: shared with diff). */
int fs_cmd_write_output(const char *cmd, const char *dest, void (*render)(FILE *out, const void *arg), const void *arg)
{
	char tmp[4096], shown[4 * 1024];
	int fd = -1;
	if (!strcmp(dest, "-")) {
		render(stdout, arg);
		return 0; /* a write error is fs_cmd_finish_stdout's to report */
	}
	if (snprintf(tmp, sizeof tmp, "%s.partial-%d", dest, (int)getpid()) >= (int)sizeof tmp)
		errno = ENAMETOOLONG;
	else
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	int e = out ? 0 : errno;
	if (out) {
		render(out, arg);
		e = ferror(out) ? (errno ? errno : EIO) : 0;
		if (fclose(out) != 0 && !e)
			e = errno;
		if (!e && rename(tmp, dest) < 0)
			e = errno;
	} else if (fd >= 0) {
		close(fd);
	}
	if (!e)
		return 0;
	if (fd >= 0)
		unlink(tmp);
	fs_error("%s: writing %s failed: %s", cmd, fs_text_escape(shown, sizeof shown, dest), strerror(e));
	return 1;
}

struct html_args {
	const struct fs_merged *g;
	const struct fs_html_report *r;
};

static void render_html(FILE *out, const void *arg)
{
	const struct html_args *h = arg;
	fs_html_render(out, h->g, h->r);
}

/* --format html: the series read (within w, merged seconds), then the
 * document to dest ("-": stdout). */
static int report_html(const char *dest, const struct fs_merged *g, const struct fs_merge_file *files, int n,
		       const struct fs_window *w)
{
	char err[600];
	struct fs_html_report *r = fs_html_load(g, files, n, w, err, sizeof err);
	if (!r)
		return read_failed(err);
	int rc = fs_cmd_write_output("report", dest, render_html, &(struct html_args){g, r});
	fs_html_free(r);
	return rc;
}

/* One run file: its summary (text, whole run) and its verdict, as ever;
 * with several training processes, the straggler named too. html: the
 * -o destination with --format html, else NULL. */
static int report_one(const char *path, const struct fs_window *w, bool json, const char *html,
		      struct fs_merge_file *f, struct fs_merged *g)
{
	char err[600], shown[4 * 1024];
	if (!w && !html && fs_bench_report_file(stdout, path, json, err, sizeof err) > 0)
		return 0; /* a `feedscope bench --output` file: its summary, no verdict */
	if (fs_merge_head(path, f, err, sizeof err) < 0)
		return read_failed(err);
	if (html && !strcmp(f->mode, "bench"))
		return fs_usage_error("report: %s: is a feedscope bench run file: it has no timelines (text or json)",
				      fs_text_escape(shown, sizeof shown, path));
	f->want_phases = true;
	if (fs_merge_load(f, w, err, sizeof err) < 0)
		return read_failed(err);
	if (fs_merge(f, 1, w, g) < 0) {
		fs_error("report: out of memory");
		return 1;
	}
	if (html)
		return report_html(html, g, f, 1, w);
	struct fs_stalls st; /* the whole run's, whatever the window */
	if (fs_stalls_load(path, &st, err, sizeof err) < 0) {
		fs_stalls_free(&st);
		return read_failed(err);
	}
	if (json) {
		fs_merged_render_json_stalls(stdout, g, &st);
		fs_stalls_free(&st);
		return 0;
	}
	struct fs_summary sum;
	if (!w && fs_summary_load(path, &sum, err, sizeof err) < 0) {
		fs_stalls_free(&st);
		return read_failed(err); /* a query failed: an unreadable run file, as above */
	}
	if (!w)
		fs_summary_render_text(stdout, &sum, path);
	fs_merged_render_text(stdout, g);
	fs_stalls_render_text(stdout, &st);
	fs_stalls_free(&st);
	return 0;
}

/* Several run files (nodes) as one job. */
static int report_several(const struct paths *p, const struct fs_window *w, bool json, const char *html,
			  struct fs_merge_file *files, struct fs_merged *g)
{
	int rc = load_several(p, w ? w : &(struct fs_window){-INFINITY, INFINITY}, files);
	if (rc)
		return rc;
	if (fs_merge(files, p->n, w, g) < 0) {
		fs_error("report: out of memory");
		return 1;
	}
	if (html)
		return report_html(html, g, files, p->n, w);
	if (json)
		fs_merged_render_json(stdout, g);
	else
		fs_merged_render_text(stdout, g);
	return 0;
}

static int report(int argc, char **argv)
{
	bool json = false, windowed = false, html = false;
	const char *dest = NULL; /* -o */
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
			json = !strcmp(optarg, "json");
			html = !strcmp(optarg, "html");
			if (!json && !html && strcmp(optarg, "text"))
				return fs_usage_error("report: unknown format '%s' (text, json or html)", optarg);
			break;
		case 'J':
			json = true;
			html = false;
			break;
		case 'o':
			dest = optarg;
			break;
		case 'w':
			if (!fs_cmd_parse_window(optarg, &w))
				return fs_usage_error("report: bad window '%s' (START:END in seconds, e.g. 60:300)", optarg);
			windowed = true;
			break;
		case 'R':
			if (!strcmp(optarg, "auto"))
				fs_q_set_resolution(FS_Q_RES_AUTO);
			else if (!strcmp(optarg, "raw"))
				fs_q_set_resolution(FS_Q_RES_RAW);
			else if (!strcmp(optarg, "minute"))
				fs_q_set_resolution(FS_Q_RES_MINUTE);
			else
				return fs_usage_error("report: unknown resolution '%s' (auto, raw or minute)", optarg);
			break;
		default:
			return fs_bad_option("report", opt, argv);
		}
	}
	if (optind >= argc)
		return fs_usage_error("report: no run file given (usage: feedscope report [OPTIONS] RUN.db [RUN.db ...])");
	if (html && !dest)
		return fs_usage_error("report: --format html needs -o FILE (or -o - for stdout)");
	if (dest && !html)
		return fs_usage_error("report: -o is for --format html (text and json go to stdout)");
	if (dest && fs_cmd_check_output("report", dest))
		return 2;
	struct paths p = {0};
	int rc = gather(argc, argv, &p);
	if (rc == 0) {
		struct fs_merge_file *files = calloc((size_t)p.n, sizeof *files);
		struct fs_merged *g = malloc(sizeof *g);
		rc = files && g ? (p.n == 1 ? report_one(p.v[0], windowed ? &w : NULL, json, dest, files, g)
					    : report_several(&p, windowed ? &w : NULL, json, dest, files, g))
				: (fs_error("report: out of memory"), 1);
		for (int i = 0; files && i < p.n; i++)
			fs_merge_file_free(&files[i]);
		free(files);
		free(g);
	}
	free_paths(&p);
	return rc;
}

int fs_cmd_report(int argc, char **argv)
{
	/* A closed pipe is a write error (EPIPE) to report, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return fs_cmd_finish_stdout("report", report(argc, argv));
}
