/* export - a run file as a Perfetto / chrome://tracing trace, or as CSV files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "render/csv.h"
#include "render/perfetto.h"
#include "util/log.h"
#include "util/safefile.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope export --format perfetto|csv [OPTIONS] RUN.db -o PATH\n"
	"\n"
	"Write a run file out for other tools.\n"
	"  perfetto: Chrome trace-event JSON (open it in ui.perfetto.dev or chrome://tracing):\n"
	"            steps, phases, I/O calls (--trace-ops) and counters on one timeline\n"
	"  csv:      one CSV file per table in base units, into a new or empty directory\n"
	"\n"
	"      --format F      perfetto or csv\n"
	"  -o, --output PATH   perfetto: the trace file (- for stdout); csv: the directory\n"
	"  -w, --window S:E    only the part of the run from S to E seconds (60: or :300)\n"
	"  -h, --help          this help\n";

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'F'}, {"output", required_argument, NULL, 'o'},
	{"window", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum format { F_NONE, F_PERFETTO, F_CSV };

static int read_failed(const char *err)
{
	char shown[2048];
	fs_error("export: %s", fs_text_escape(shown, sizeof shown, err));
	return 1;
}

/* The trace to stdout. A write error (a closed pipe, a full disk) is exit 1. */
static int perfetto_stdout(const char *run, const struct fs_window *w)
{
	char err[600];
	if (fs_perfetto_write(stdout, run, w, err, sizeof err) < 0)
		return read_failed(err);
	return fs_cmd_finish_stdout("export", 0);
}

/* The trace into PATH.partial-PID, renamed over PATH when complete, so a
 * failed export never leaves half a trace. An existing PATH must be a
 * regular file (it is replaced); a directory, a FIFO, a device or a link is
 * refused (exit 2). */
static int perfetto_file(const char *run, const char *out, const struct fs_window *w)
{
	char shown[1024], tmp[4096], err[600];
	struct stat st;
	fs_text_escape(shown, sizeof shown, out);
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode))
		return fs_usage_error("export: -o %s: is %s, not a trace file to replace", shown, fs_safefile_kind(st.st_mode));
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.partial-%ld", out, (long)getpid()) >= sizeof tmp)
		return fs_usage_error("export: -o %s: name too long", shown);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd), unlink(tmp);
		return fs_usage_error("export: -o %s: %s", shown, strerror(e));
	}
	int rc = fs_perfetto_write(f, run, w, err, sizeof err) < 0 ? read_failed(err) : 0;
	int e = ferror(f) ? EIO : 0;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (rc == 0 && e) {
		fs_error("export: writing %s failed: %s", shown, strerror(e));
		rc = 1;
	}
	if (rc == 0 && rename(tmp, out) != 0) {
		fs_error("export: %s: %s", shown, strerror(errno));
		rc = 1;
	}
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* The CSV directory: created (*made set), or an existing empty one;
 * anything else is refused (exit 2), so no file of the user's is ever
 * overwritten. */
static int open_csv_dir(const char *out, int *dirfd, bool *made)
{
	char shown[1024];
	fs_text_escape(shown, sizeof shown, out);
	*made = mkdir(out, 0777) == 0;
	if (!*made && errno != EEXIST)
		return fs_usage_error("export: -o %s: %s", shown, strerror(errno));
	struct stat st;
	if (lstat(out, &st) == 0 && !S_ISDIR(st.st_mode))
		return fs_usage_error("export: -o %s: is %s, not a directory", shown, fs_safefile_kind(st.st_mode));
	*dirfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dirfd < 0)
		return fs_usage_error("export: -o %s: %s", shown, strerror(errno));
	int probe = dup(*dirfd);
	DIR *d = probe >= 0 ? fdopendir(probe) : NULL;
	struct dirent *e;
	bool empty = d != NULL;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	else if (probe >= 0)
		close(probe);
	if (!empty) {
		close(*dirfd);
		return fs_usage_error("export: -o %s: is not empty (give a new or an empty directory)", shown);
	}
	return 0;
}

/* A failed export removes the directory it made (with the CSV files it
 * wrote: safefile removes only the caller's regular files); one that was
 * there already keeps what was written. */
static int csv_dir(const char *run, const char *out, const struct fs_window *w)
{
	bool made = false;
	int dirfd = -1, files = 0, rc = open_csv_dir(out, &dirfd, &made);
	char err[600], base[256];
	if (rc)
		return rc;
	int r = fs_csv_write(dirfd, run, w, &files, err, sizeof err);
	close(dirfd);
	int parent = r < 0 && made ? fs_safefile_parent(out, base, sizeof base) : -1;
	if (parent >= 0) {
		fs_safefile_remove_dir(parent, base);
		close(parent);
	}
	if (r == -1)
		return read_failed(err);
	if (r < 0) {
		char shown[2048];
		fs_error("export: %s", fs_text_escape(shown, sizeof shown, err));
		return 1;
	}
	return 0;
}

static int export_(int argc, char **argv)
{
	enum format fmt = F_NONE;
	const char *out = NULL;
	bool windowed = false;
	struct fs_window w = {-INFINITY, INFINITY};
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:w:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'F':
			fmt = !strcmp(optarg, "perfetto") ? F_PERFETTO : !strcmp(optarg, "csv") ? F_CSV : F_NONE;
			if (fmt == F_NONE)
				return fs_usage_error("export: unknown format '%s' (perfetto or csv)", optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'w':
			if (!fs_cmd_parse_window(optarg, &w))
				return fs_usage_error("export: bad window '%s' (START:END in seconds, e.g. 60:300)", optarg);
			windowed = true;
			break;
		default:
			return fs_bad_option("export", opt, argv);
		}
	}
	if (fmt == F_NONE)
		return fs_usage_error("export: no --format given (perfetto or csv)");
	if (optind >= argc)
		return fs_usage_error("export: no run file given (usage: feedscope export --format F RUN.db -o PATH)");
	if (optind + 1 < argc)
		return fs_usage_error("export: one run file at a time");
	if (!out || !out[0])
		return fs_usage_error("export: no -o given (%s)", fmt == F_CSV ? "a directory" : "a file, or - for stdout");
	int rc = fs_cmd_check_run_file("export", argv[optind]);
	if (rc)
		return rc;
	const struct fs_window *wp = windowed ? &w : NULL;
	if (fmt == F_CSV)
		return strcmp(out, "-") ? csv_dir(argv[optind], out, wp)
					: fs_usage_error("export: csv writes a directory: -o DIR, not -");
	return strcmp(out, "-") ? perfetto_file(argv[optind], out, wp) : perfetto_stdout(argv[optind], wp);
}

int fs_cmd_export(int argc, char **argv)
{
	/* a closed pipe is a write error (EPIPE) to report, not a silent death */
	signal(SIGPIPE, SIG_IGN);
	return export_(argc, argv);
}
