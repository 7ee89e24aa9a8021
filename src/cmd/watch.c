/* watch - one line per interval on stdout, dstat-like: CPU, I/O pressure,
 * the busiest disk, network, GPU, and with --pid the job's thread states.
 * Nothing is written to disk. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/metricdefs.h"
#include "analysis/query.h"
#include "cmd/cmd.h"
#include "record/loop.h"
#include "record/recorder.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope watch [OPTIONS]\n"
	"\n"
	"Print one line per interval: CPU usr/sys/iowait %, I/O pressure (some %),\n"
	"the busiest disk (MB/s read+write, %util), network MB/s (rx/tx, all\n"
	"interfaces but lo), GPU util % (mean over GPUs), and with --pid the job's\n"
	"processes, threads running (R) / blocked in I/O (D) / sleeping (S), CPU %.\n"
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

/* One tick's worth of what the line shows. */
struct line {
	double usr, sys, wait, io_some;
	char disk[32];
	double disk_bytes, disk_util;
	double net_rx, net_tx;
	double gpu;
	double procs, threads, run, blk, slp;
	double job_cpu;
};

/* The rows of each tick go into an in-memory run file, and the line is
 * read back from it through the metric definitions (analysis/metricdefs.c)
 * over that one tick: the figures `watch` shows are the ones `report`
 * computes, from the same formulas. The tick's rows are then dropped. */
struct watch_sink {
	struct fs_sink sink;
	struct fs_store *mem;
	struct fs_sink *mem_sink;
	struct line cur;
	bool with_job;
	bool tty;
	long printed;
	int write_errno; /* stdout failed (closed pipe, full disk): no more lines */
	bool write_failed;
	bool read_failed; /* a query on the in-memory file failed: said once */
};

static void take_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct watch_sink *w = (struct watch_sink *)sink;
	fs_sink_row(w->mem_sink, r);
}

#define WATCH_MAX_DISKS 256

/* The line of the tick at t, from the in-memory run file. */
static void read_line(struct watch_sink *w, double t, struct line *l)
{
	struct fs_q q;
	fs_q_use(&q, fs_store_db(w->mem));
	q.w0 = q.w1 = t;
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
	l->threads = v[FS_MD_JOB_THREADS_MEAN];
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
	if (fs_q_failed(&q) && !w->read_failed) {
		w->read_failed = true;
		fs_error("watch: reading the tick back failed: %s (figures shown as -)", fs_q_failed(&q));
	}
	fs_q_close(&q);
}

/* Drop the rows up to t: the in-memory file holds one tick at a time. */
static void forget(struct watch_sink *w, double t)
{
	sqlite3 *db = fs_store_db(w->mem);
	for (int i = 0; i < FS_T__COUNT; i++) {
		if (!fs_tables[i].sampled)
			continue;
		char sql[128];
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE t <= ?1", fs_tables[i].name);
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_double(st, 1, t);
			sqlite3_step(st);
		}
		sqlite3_finalize(st);
	}
}

static void header(struct watch_sink *w)
{
	printf("%8s %5s %5s %5s %6s  %-10s %8s %5s  %8s %8s %5s", "time", "usr%", "sys%", "wait%",
	       "io.psi", "disk", "MB/s", "util", "net.rx", "net.tx", "gpu%");
	if (w->with_job)
		printf("  %5s %5s %4s %4s %4s %6s", "procs", "thr", "R", "D", "S", "cpu%");
	printf("\n");
}

static void num(double x, int width, int prec)
{
	if (isfinite(x))
		printf(" %*.*f", width, prec, x);
	else
		printf(" %*s", width, "-");
}

/* A count of the job's: 0 when none was sampled (the job is gone). */
static void print_count(double x, int width)
{
	printf(" %*.0f", width, isfinite(x) ? x : 0);
}

static void print_line(struct fs_sink *sink, double t)
{
	struct watch_sink *w = (struct watch_sink *)sink;
	struct line *l = &w->cur;
	if (t > 0 && !w->write_failed) {
		read_line(w, t, l);
		if (w->printed == 0 || (w->tty && w->printed % 20 == 0))
			header(w);
		printf("%7.1fs", t);
		num(l->usr, 5, 1);
		num(l->sys, 5, 1);
		num(l->wait, 5, 1);
		num(l->io_some, 6, 1);
		char disk[4 * sizeof l->disk];
		printf("  %-10s", l->disk[0] ? fs_text_escape(disk, sizeof disk, l->disk) : "-");
		num(l->disk_bytes / 1e6, 8, 2);
		num(l->disk_util, 5, 0);
		printf(" ");
		num(l->net_rx / 1e6, 8, 2);
		num(l->net_tx / 1e6, 8, 2);
		num(l->gpu, 5, 0);
		if (w->with_job) {
			printf(" ");
			print_count(l->procs, 5);
			print_count(l->threads, 5);
			print_count(l->run, 4);
			print_count(l->blk, 4);
			print_count(l->slp, 4);
			num(l->job_cpu, 6, 0);
		}
		printf("\n");
		w->write_errno = fflush(stdout) == 0 ? 0 : errno;
		if (ferror(stdout) || w->write_errno) {
			/* Stop the loop as a stop signal would (it is blocked and
			 * read through the loop's signalfd). */
			w->write_failed = true;
			raise(SIGTERM);
		}
		w->printed++;
	}
	forget(w, t);
	w->mem_sink->tick_end(w->mem_sink, t); /* commits now and then */
}

static void tick(void *rec, double t, uint64_t missed)
{
	fs_recorder_sample(rec, t, missed);
}

int fs_cmd_watch(int argc, char **argv)
{
	double interval = 1.0;
	int count = 0, pid = 0;
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
			if (!fs_parse_seconds(optarg, &interval) || interval < 0.001 || interval > 3600)
				return fs_usage_error("watch: bad interval '%s' (seconds, 0.001 to 3600)", optarg);
			break;
		case 'n':
			if (!fs_parse_pos_int(optarg, &count))
				return fs_usage_error("watch: bad count '%s' (a positive integer)", optarg);
			break;
		case 'p':
			if (!fs_parse_pos_int(optarg, &pid))
				return fs_usage_error("watch: bad PID '%s'", optarg);
			if (kill(pid, 0) < 0 && errno == ESRCH)
				return fs_usage_error("watch: no process %d", pid);
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
	struct watch_sink w = {.sink = {.row = take_row, .tick_end = print_line},
			       .with_job = pid > 0,
			       .tty = isatty(STDOUT_FILENO)};
	char err[256];
	w.mem = fs_store_create_memory(err, sizeof err);
	if (!w.mem) {
		fs_error("watch: %s", err);
		return 1;
	}
	w.mem_sink = fs_store_sink(w.mem);
	struct fs_job job = {.root = pid};
	/* Without --pid there is no job: don't open the job source at all. */
	struct fs_recorder_opts ro = {.no_gpu = no_gpu, .only = pid ? NULL : "cpu,psi,mem,disk,net,gpu"};
	struct fs_recorder *rec = NULL;
	if (fs_loop_block_signals() < 0 || !(rec = fs_recorder_open(&paths, &w.sink, pid ? &job : NULL, &ro, 0))) {
		fs_store_close(w.mem);
		return 1;
	}
	uint64_t start = fs_now_ns();
	fs_recorder_sample(rec, 0, 0);
	struct fs_loop_opts lo = {
		.interval_s = interval, .max_ticks = (uint64_t)count, .watched = pid, .start_ns = start};
	struct fs_loop_result res;
	int rc = fs_loop_run(&lo, tick, rec, &res) < 0 ? 1 : 0;
	fs_recorder_close(rec);
	fs_store_close(w.mem);
	int e = fflush(stdout) == 0 ? 0 : errno;
	if (w.write_failed || e || ferror(stdout)) {
		e = w.write_errno ? w.write_errno : e;
		fs_error("watch: writing to stdout failed: %s", e ? strerror(e) : "write error");
		return 1;
	}
	return rc;
}
