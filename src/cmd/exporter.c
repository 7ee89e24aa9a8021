/* exporter - serve run files' metrics to Prometheus (docs/exporter.md). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/load/query.h"
#include "cmd/cmd.h"
#include "serve/exporter.h"
#include "serve/httpd.h"
#include "serve/runfile.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/paths.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope exporter [OPTIONS] [--runs-dir DIR]\n"
	"       feedscope exporter [OPTIONS] RUN.db|DIR [RUN.db|DIR ...]\n"
	"\n"
	"Serve metrics to Prometheus on http://ADDR/metrics until SIGINT or SIGTERM.\n"
	"Without run files: the machine's own figures (CPU, pressure, memory, disks,\n"
	"network: feedscope_node_*, sampled once a second) and every run file in the\n"
	"runs directory, as they appear there (being recorded, or finished) and until\n"
	"they vanish: DIR, by default the one `feedscope run --to-runs-dir` writes to\n"
	"(~/.local/state/feedscope/runs; /var/lib/feedscope/runs as root).\n"
	"With run files: those (finished, or being recorded), one job label per file\n"
	"(its name without .db); DIR: every *.db file in it when the exporter starts.\n"
	"\n"
	"  -l, --listen ADDR        HOST:PORT, [IPV6]:PORT or PORT (default 127.0.0.1:9464;\n"
	"                           HOST a numeric address or localhost; port 0: any free one)\n"
	"      --runs-dir DIR       the runs directory to serve (not with run files)\n"
	"      --verdict-window S   the verdict is of the last S seconds recorded (default 60;\n"
	"                           0: the whole run)\n"
	"      --verdict-every S    recompute it at most every S seconds (default 30)\n"
	"  -h, --help               this help\n";

static const struct option long_opts[] = {
	{"listen", required_argument, NULL, 'l'}, {"verdict-window", required_argument, NULL, 'W'},
	{"verdict-every", required_argument, NULL, 'E'}, {"help", no_argument, NULL, 'h'},
	{"runs-dir", required_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

static bool parse_seconds(const char *s, double min, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > 1e7)
		return false;
	*out = v;
	return true;
}

/* Serve path if it opens as a run file; else say why once and skip it. */
static void add_file(struct fs_exporter *x, const char *path, int *n)
{
	char err[4700], shown[4 * 4700], job[256], name[300];
	if (fs_cmd_check_run_file("exporter", path) != 0)
		return; /* said; skipped */
	struct fs_q q;
	char why[600];
	/* as the reader opens it (serve/runfile.h): a FIFO put there cannot hold the start */
	fs_runfile_set_deadline(fs_now_ns() + FS_NS_PER_S);
	int rc = fs_runfile_open(&q, path, NULL, why, sizeof why);
	fs_runfile_set_deadline(0);
	fs_q_close(&q);
	if (rc < 0) {
		snprintf(err, sizeof err, "%s: %s", path, why);
		fs_warn("exporter: %s: skipped", fs_text_escape(shown, sizeof shown, err));
		return;
	}
	fs_exporter_job_name(path, job, sizeof job);
	snprintf(name, sizeof name, "%s", job);
	/* two files of one name (two directories): -2, -3 ... keep jobs apart */
	for (int k = 2; fs_exporter_has_job(x, name); k++)
		snprintf(name, sizeof name, "%s-%d", job, k);
	if (fs_exporter_add(x, path, name) < 0)
		fs_warn("exporter: %s: skipped: at most %d run files are served", fs_text_escape(shown, sizeof shown, path),
			FS_EXPORTER_MAX_JOBS);
	else
		++*n;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's *.db files, in name order. */
static void add_dir(struct fs_exporter *x, const char *dir, int *n)
{
	char shown[1024];
	DIR *d = opendir(dir);
	if (!d) {
		fs_warn("exporter: %s: %s: skipped", fs_text_escape(shown, sizeof shown, dir), strerror(errno));
		return;
	}
	char **names = NULL;
	size_t k = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 3 || strcmp(e->d_name + len - 3, ".db"))
			continue;
		if (k == cap) {
			char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
			if (!more)
				break;
			names = more;
		}
		size_t plen = strlen(dir) + len + 2;
		if (!(names[k] = malloc(plen)))
			break;
		snprintf(names[k++], plen, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, k, sizeof *names, by_name);
	for (size_t i = 0; i < k; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			add_file(x, names[i], n);
		free(names[i]);
	}
	free(names);
}

/* No run file given: the machine's figures and the runs directory (dir,
 * or the default), its name (escaped, "" when none) into shown[cap].
 * Returns 0, or an exit status after saying why. */
static int node_mode(struct fs_exporter *x, const char *dir, char *shown, size_t cap)
{
	char err[512], runs[PATH_MAX];
	shown[0] = 0;
	if (fs_exporter_node(x, err, sizeof err) < 0) {
		fs_error("exporter: %s", err);
		return 1;
	}
	if (!dir && !(dir = fs_runs_dir(runs, sizeof runs))) {
		fs_warn("exporter: no runs directory (HOME is not set, nor FEEDSCOPE_STATE_DIR): serving the machine's "
			"figures only");
		return 0;
	}
	if (fs_exporter_watch(x, dir) < 0) {
		fs_error("exporter: out of memory");
		return 1;
	}
	fs_text_escape(shown, cap, dir);
	return 0;
}

/* --runs-dir: a directory, or a name not there yet; anything else is bad. */
static int check_runs_dir(const char *dir)
{
	char shown[1024];
	struct stat st;
	if (!*dir)
		return fs_usage_error("exporter: --runs-dir needs a directory");
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return fs_usage_error("exporter: --runs-dir %s: not a directory", fs_text_escape(shown, sizeof shown, dir));
	if (stat(dir, &st) < 0 && errno != ENOENT)
		return fs_usage_error("exporter: --runs-dir %s: %s", fs_text_escape(shown, sizeof shown, dir), strerror(errno));
	return 0;
}

int fs_cmd_exporter(int argc, char **argv)
{
	const char *listen = FS_EXPORTER_DEFAULT_LISTEN, *runs_dir = NULL;
	struct fs_exporter_opts o = FS_EXPORTER_OPTS_DEFAULT;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":l:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'l':
			listen = optarg;
			break;
		case 'R':
			if (check_runs_dir(optarg) != 0)
				return 2;
			runs_dir = optarg;
			break;
		case 'W':
			if (!parse_seconds(optarg, 0, &o.verdict_window_s))
				return fs_usage_error("exporter: bad --verdict-window '%s' (seconds, 0 for the whole run)", optarg);
			break;
		case 'E':
			if (!parse_seconds(optarg, 1, &o.verdict_every_s))
				return fs_usage_error("exporter: bad --verdict-every '%s' (seconds, at least 1)", optarg);
			break;
		default:
			return fs_bad_option("exporter", opt, argv);
		}
	}
	char err[512], shown[1024];
	struct sockaddr_storage ss;
	socklen_t sslen;
	if (fs_httpd_parse_addr(listen, &ss, &sslen, err, sizeof err) < 0)
		return fs_usage_error("exporter: --listen %s", err);
	bool node = optind >= argc;
	if (!node && runs_dir)
		return fs_usage_error("exporter: --runs-dir, or run files: not both");
	struct fs_exporter *x = fs_exporter_new(listen, &o, err, sizeof err);
	if (!x) {
		fs_error("exporter: cannot listen on %s", err);
		return 1;
	}
	int n = 0, rc = node ? node_mode(x, runs_dir, shown, sizeof shown) : 0;
	for (int i = optind; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			add_dir(x, argv[i], &n);
		else
			add_file(x, argv[i], &n);
	}
	if (!node && n == 0) {
		fs_exporter_free(x);
		return fs_usage_error("exporter: no run file to serve");
	}
	if (rc != 0) {
		fs_exporter_free(x);
		return rc;
	}
	/* SIGINT/SIGTERM/SIGHUP end it: taken here with sigwait, never by the
	 * threads (they block every signal) */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (fs_exporter_start(x, err, sizeof err) < 0) {
		fs_error("exporter: %s", err);
		fs_exporter_free(x);
		return 1;
	}
	if (node)
		fs_warn("exporter: serving the machine's figures%s%s on http://%s/metrics",
			shown[0] ? " and the run files of " : "", shown, fs_exporter_addr(x));
	else
		fs_warn("exporter: serving %d run file%s on http://%s/metrics", n, n == 1 ? "" : "s", fs_exporter_addr(x));
	int sig = 0;
	sigwait(&stop, &sig);
	fs_exporter_free(x);
	return 0;
}
