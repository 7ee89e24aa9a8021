/* watch - one line per interval on stdout, dstat-like: CPU, I/O pressure,
 * the busiest disk, network, GPU, and with --pid the job's thread states.
 * Every line fits in 80 columns. Nothing is written to disk. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/load/metricdefs.h"
#include "analysis/load/query.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope watch [OPTIONS]\n"
	"\n"
	"Print one line per interval, in 80 columns, under a two-line header:\n"
	"  time                 seconds since watch started\n"
	"  cpu % usr sys iow    CPU time in user (nice included), system, iowait\n"
	"  io psi%              I/O pressure: time some task was stalled on I/O\n"
	"  busiest disk         its name, MB/s read + written, % of time busy\n"
	"  net MB/s rx tx       received, sent (all interfaces but lo)\n"
	"  gpu%                 GPU busy, mean over GPUs\n"
	"  job (--pid)          processes, threads running (R), blocked in I/O\n"
	"                       (D), sleeping (S), CPU % of one core\n"
	"A number too wide for its column loses decimals, then takes a k/M/G\n"
	"suffix (x1000); - is not known.\n"
	"\n"
	"  -i, --interval S   seconds between lines (default 1; 100ms works)\n"
	"  -n, --count N      stop after N lines\n"
	"  -p, --pid PID      also show this process tree; stop when it exits\n"
	"      --no-gpu       do not load NVML\n"
	"  -h, --help         this help\n";

static const struct option long_opts[] = {
	{"interval", required_argument, NULL, 'i'}, {"count", required_argument, NULL, 'n'},
	{"pid", required_argument, NULL, 'p'},      {"no-gpu", no_argument, NULL, 'G'},
	{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
};

/* The columns: the group each belongs to (the first header line spans a
 * group's columns with its name), its name (the second line), its width.
 * Every value is fitted to its column (fs_live_fit), so a line is never
 * wider than the header: 57 columns, 79 with the job's. */
enum {
	C_TIME, C_USR, C_SYS, C_IOW, C_PSI, C_DISK, C_MBS, C_UTIL, C_RX, C_TX, C_GPU,
	C_PROCS, C_RUN, C_BLK, C_SLP, C_CPU, C_N
};
#define C_MACHINE_N C_PROCS /* the columns shown without --pid */

static const struct col {
	const char *group, *name;
	int width;
} cols[C_N] = {
	[C_TIME] = {"", "time", 6},
	[C_USR] = {"cpu %", "usr", 3},
	[C_SYS] = {"cpu %", "sys", 3},
	[C_IOW] = {"cpu %", "iow", 3},
	[C_PSI] = {"io", "psi%", 4},
	[C_DISK] = {"busiest disk", "name", 7},
	[C_MBS] = {"busiest disk", "MB/s", 5},
	[C_UTIL] = {"busiest disk", "util", 4},
	[C_RX] = {"net MB/s", "rx", 4},
	[C_TX] = {"net MB/s", "tx", 4},
	[C_GPU] = {"", "gpu%", 4},
	[C_PROCS] = {"job (--pid)", "proc", 4},
	[C_RUN] = {"job (--pid)", "R", 3},
	[C_BLK] = {"job (--pid)", "D", 3},
	[C_SLP] = {"job (--pid)", "S", 3},
	[C_CPU] = {"job (--pid)", "cpu%", 4},
};

/* One tick's worth of what the line shows. */
struct line {
	double usr, sys, wait, io_some;
	char disk[32];
	double disk_bytes, disk_util;
	double net_rx, net_tx;
	double gpu;
	double procs, run, blk, slp;
	double job_cpu;
};

struct watch {
	struct fs_live live; /* first: the sink the recorder writes into */
	struct line cur;
	int ncols;
	bool tty;
	long printed;
	int write_errno; /* stdout failed (closed pipe, full disk): no more lines */
	bool write_failed;
};

#define WATCH_MAX_DISKS 256

/* The line of the tick at t, from the in-memory run file. */
static void read_line(struct watch *w, double t, struct line *l)
{
	struct fs_q q;
	fs_live_query(&w->live, &q, t, t);
	struct fs_metric_values mv;
	fs_metricdefs_load(&q, &mv);
	const double *v = mv.v;
	l->usr = v[FS_MD_CPU_USER_PCT];
	l->sys = v[FS_MD_CPU_SYSTEM_PCT];
	l->wait = v[FS_MD_CPU_IOWAIT_PCT];
	l->io_some = v[FS_MD_PSI_IO_SOME_PCT];
	l->net_rx = v[FS_MD_NET_RX_BYTES_PER_S];
	l->net_tx = v[FS_MD_NET_TX_BYTES_PER_S];
	l->gpu = v[FS_MD_GPU_UTIL_PCT];
	l->procs = v[FS_MD_JOB_PROCS_MEAN];
	l->run = v[FS_MD_JOB_THREADS_RUNNING_MEAN];
	l->blk = v[FS_MD_JOB_THREADS_BLOCKED_MEAN];
	l->slp = v[FS_MD_JOB_THREADS_SLEEPING_MEAN];
	l->job_cpu = v[FS_MD_JOB_CPU_PCT];
	/* the busiest disk (fs_metricdefs_busier: the summary's order) */
	l->disk[0] = '\0';
	l->disk_bytes = l->disk_util = NAN;
	struct fs_metric_row *rows = malloc(WATCH_MAX_DISKS * sizeof *rows);
	int n = rows ? fs_metricdefs_load_keyed(&q, FS_MS_DISK, rows, WATCH_MAX_DISKS) : 0;
	if (n > 0) {
		qsort(rows, (size_t)n, sizeof *rows, fs_metricdefs_busier);
		snprintf(l->disk, sizeof l->disk, "%.*s", (int)sizeof l->disk - 1, rows[0].key);
		l->disk_bytes = rows[0].v[FS_MDK_DISK_RW_BYTES_PER_S];
		l->disk_util = rows[0].v[FS_MDK_DISK_UTIL_PCT];
	}
	free(rows);
	fs_live_query_done(&w->live, &q);
}

/* Column i's text: after a space (but the first), right-aligned in its
 * width; the disk's name left-aligned. */
static void cell(int i, const char *text)
{
	printf(i == C_DISK ? "%s%-*s" : "%s%*s", i ? " " : "", cols[i].width, text);
}

static void num(int i, double x, int prec)
{
	char b[16];
	cell(i, fs_live_fit(b, sizeof b, x, cols[i].width, prec));
}

/* A count of the job's: 0 when none was sampled (the job is gone). */
static void count(int i, double x)
{
	num(i, isfinite(x) ? x : 0, 0);
}

/* The disk's name, escaped, cut to its column (with a ~). */
static void disk_name(const char *name)
{
	char esc[128];
	cell(C_DISK, name[0] ? fs_live_cut(fs_text_escape(esc, sizeof esc, name), cols[C_DISK].width) : "-");
}

/* The first header line: each group's name centred in dashes over its
 * columns (blank over a column of no group). */
static void group_line(const struct watch *w)
{
	char out[160];
	int n = 0;
	for (int i = 0; i < w->ncols;) {
		int j = i, span = cols[i].width;
		while (j + 1 < w->ncols && !strcmp(cols[j + 1].group, cols[i].group))
			span += 1 + cols[++j].width;
		const char *g = cols[i].group;
		int len = (int)strlen(g), before = (span - len + 1) / 2;
		if (i)
			out[n++] = ' ';
		for (int k = 0; k < span; k++)
			out[n++] = k >= before && k < before + len ? g[k - before] : len ? '-' : ' ';
		i = j + 1;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	printf("%s\n", out);
}

static void header(const struct watch *w)
{
	group_line(w);
	for (int i = 0; i < w->ncols; i++)
		cell(i, cols[i].name);
	printf("\n");
}

static void print_line(struct watch *w, double t)
{
	struct line *l = &w->cur;
	read_line(w, t, l);
	if (w->printed == 0 || (w->tty && w->printed % 20 == 0))
		header(w);
	char b[16];
	fs_live_fit(b, sizeof b, t, cols[C_TIME].width - 1, 1);
	printf("%ss", b);
	num(C_USR, l->usr, 1);
	num(C_SYS, l->sys, 1);
	num(C_IOW, l->wait, 1);
	num(C_PSI, l->io_some, 1);
	disk_name(l->disk);
	num(C_MBS, l->disk_bytes / 1e6, 1);
	num(C_UTIL, l->disk_util, 0);
	num(C_RX, l->net_rx / 1e6, 1);
	num(C_TX, l->net_tx / 1e6, 1);
	num(C_GPU, l->gpu, 0);
	if (w->ncols > C_MACHINE_N) {
		count(C_PROCS, l->procs);
		count(C_RUN, l->run);
		count(C_BLK, l->blk);
		count(C_SLP, l->slp);
		num(C_CPU, l->job_cpu, 0);
	}
	printf("\n");
}

/* At each tick's end (live.h): the line, but for t = 0 (no rates yet). */
static void show(struct fs_live *live, double t)
{
	struct watch *w = (struct watch *)live;
	if (t <= 0 || w->write_failed)
		return;
	print_line(w, t);
	w->write_errno = fflush(stdout) == 0 ? 0 : errno;
	if (ferror(stdout) || w->write_errno) {
		/* Stop the loop as a stop signal would (it is blocked and
		 * read through the loop's signalfd). */
		w->write_failed = true;
		raise(SIGTERM);
	}
	w->printed++;
}

int fs_cmd_watch(int argc, char **argv)
{
	double interval = 1.0;
	int count_max = 0, pid = 0, rc;
	bool no_gpu = false;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":i:n:p:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'i':
			if ((rc = fs_live_parse_interval("watch", optarg, &interval)))
				return rc;
			break;
		case 'n':
			if (!fs_parse_pos_int(optarg, &count_max))
				return fs_usage_error("watch: bad count '%s' (a positive integer)", optarg);
			break;
		case 'p':
			if ((rc = fs_live_parse_pid("watch", optarg, &pid)))
				return rc;
			break;
		case 'G':
			no_gpu = true;
			break;
		default:
			return fs_bad_option("watch", opt, argv);
		}
	}
	if (optind < argc)
		return fs_usage_error("watch: unexpected argument '%s'", argv[optind]);
	/* A closed pipe is a write error (EPIPE) to stop on and report. */
	signal(SIGPIPE, SIG_IGN);

	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct watch w = {.ncols = pid > 0 ? C_N : C_MACHINE_N, .tty = isatty(STDOUT_FILENO)};
	if (fs_live_open(&w.live, "watch", 0, show) < 0)
		return 1;
	struct fs_job job;
	struct fs_recorder *rec = fs_live_recorder(&w.live, &paths, &job, pid, no_gpu);
	if (!rec) {
		fs_live_close(&w.live);
		return 1;
	}
	struct fs_loop_result res;
	rc = fs_live_run(rec, interval, count_max, pid, NULL, &res) < 0 ? 1 : 0;
	fs_recorder_close(rec);
	fs_live_close(&w.live);
	int e = fflush(stdout) == 0 ? 0 : errno;
	if (w.write_failed || e || ferror(stdout)) {
		e = w.write_errno ? w.write_errno : e;
		fs_error("watch: writing to stdout failed: %s", e ? strerror(e) : "write error");
		return 1;
	}
	return rc;
}
