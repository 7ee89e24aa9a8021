/* watch - one line per interval on stdout, dstat-like: CPU, I/O pressure,
 * the busiest disk, network, GPU, and with --pid the job's thread states.
 * Nothing is written to disk. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "record/loop.h"
#include "record/recorder.h"
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
	double gpu_sum;
	int ngpu;
	long procs, threads, run, blk, slp;
	double job_cpu;
};

struct watch_sink {
	struct fs_sink sink;
	struct line cur;
	bool with_job;
	bool tty;
	long printed;
	int write_errno; /* stdout failed (closed pipe, full disk): no more lines */
	bool write_failed;
};

static void reset(struct line *l)
{
	memset(l, 0, sizeof *l);
	l->usr = l->sys = l->wait = l->io_some = l->disk_util = NAN;
	l->disk_bytes = -1;
}

static double real_or_nan(const struct fs_value *v)
{
	return v->kind == FS_V_REAL ? v->d : v->kind == FS_V_INT ? (double)v->i : NAN;
}

/* A count column as a long: 0 when absent (a NaN cast would be undefined). */
static long count_or_0(const struct fs_value *v)
{
	double d = real_or_nan(v);
	return d >= 0 && d < 1e15 ? (long)d : 0;
}

static void take_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct line *l = &((struct watch_sink *)sink)->cur;
	const struct fs_value *v = r->v;
	switch (r->table) {
	case FS_T_CPU:
		l->usr = real_or_nan(&v[FS_CPU_user_pct]) + fmax(0, real_or_nan(&v[FS_CPU_nice_pct]));
		l->sys = real_or_nan(&v[FS_CPU_system_pct]);
		l->wait = real_or_nan(&v[FS_CPU_iowait_pct]);
		break;
	case FS_T_PSI:
		if (v[FS_PSI_resource].kind == FS_V_TEXT && !strcmp(v[FS_PSI_resource].s, "io"))
			l->io_some = real_or_nan(&v[FS_PSI_some_pct]);
		break;
	case FS_T_DISK: {
		double b = fmax(0, real_or_nan(&v[FS_DISK_read_bytes_per_s])) +
			   fmax(0, real_or_nan(&v[FS_DISK_write_bytes_per_s]));
		double u = real_or_nan(&v[FS_DISK_util_pct]);
		if (b > l->disk_bytes || (b == l->disk_bytes && u > l->disk_util)) {
			l->disk_bytes = b;
			l->disk_util = u;
			snprintf(l->disk, sizeof l->disk, "%s", v[FS_DISK_device].s);
		}
		break;
	}
	case FS_T_NET:
		if (v[FS_NET_iface].kind == FS_V_TEXT && strcmp(v[FS_NET_iface].s, "lo") != 0) {
			l->net_rx += fmax(0, real_or_nan(&v[FS_NET_rx_bytes_per_s]));
			l->net_tx += fmax(0, real_or_nan(&v[FS_NET_tx_bytes_per_s]));
		}
		break;
	case FS_T_GPU:
		if (isfinite(real_or_nan(&v[FS_GPU_util_pct]))) {
			l->gpu_sum += real_or_nan(&v[FS_GPU_util_pct]);
			l->ngpu++;
		}
		break;
	case FS_T_PROC:
		l->procs++;
		l->threads += count_or_0(&v[FS_PROC_threads]);
		l->run += count_or_0(&v[FS_PROC_running]);
		l->blk += count_or_0(&v[FS_PROC_blocked_io]);
		l->slp += count_or_0(&v[FS_PROC_sleeping]);
		l->job_cpu += fmax(0, real_or_nan(&v[FS_PROC_cpu_pct]));
		break;
	default:
		break;
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

static void print_line(struct fs_sink *sink, double t)
{
	struct watch_sink *w = (struct watch_sink *)sink;
	struct line *l = &w->cur;
	if (t > 0 && !w->write_failed) {
		if (w->printed == 0 || (w->tty && w->printed % 20 == 0))
			header(w);
		printf("%7.1fs", t);
		num(l->usr, 5, 1);
		num(l->sys, 5, 1);
		num(l->wait, 5, 1);
		num(l->io_some, 6, 1);
		char disk[4 * sizeof l->disk];
		printf("  %-10s", l->disk[0] ? fs_text_escape(disk, sizeof disk, l->disk) : "-");
		num(l->disk_bytes >= 0 ? l->disk_bytes / 1e6 : NAN, 8, 2);
		num(l->disk_util, 5, 0);
		printf(" ");
		num(l->net_rx / 1e6, 8, 2);
		num(l->net_tx / 1e6, 8, 2);
		num(l->ngpu ? l->gpu_sum / l->ngpu : NAN, 5, 0);
		if (w->with_job) {
			printf("  %5ld %5ld %4ld %4ld %4ld", l->procs, l->threads, l->run, l->blk, l->slp);
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
	reset(l);
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
	reset(&w.cur);
	struct fs_job job = {.root = pid};
	/* Without --pid there is no job: don't open the job source at all. */
	struct fs_recorder_opts ro = {.no_gpu = no_gpu, .only = pid ? NULL : "cpu,psi,mem,disk,net,gpu"};
	if (fs_loop_block_signals() < 0)
		return 1;
	struct fs_recorder *rec = fs_recorder_open(&paths, &w.sink, pid ? &job : NULL, &ro, 0);
	if (!rec)
		return 1;
	uint64_t start = fs_now_ns();
	fs_recorder_sample(rec, 0, 0);
	struct fs_loop_opts lo = {
		.interval_s = interval, .max_ticks = (uint64_t)count, .watched = pid, .start_ns = start};
	struct fs_loop_result res;
	int rc = fs_loop_run(&lo, tick, rec, &res) < 0 ? 1 : 0;
	fs_recorder_close(rec);
	int e = fflush(stdout) == 0 ? 0 : errno;
	if (w.write_failed || e || ferror(stdout)) {
		e = w.write_errno ? w.write_errno : e;
		fs_error("watch: writing to stdout failed: %s", e ? strerror(e) : "write error");
		return 1;
	}
	return rc;
}
