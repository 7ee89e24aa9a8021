/* top - a live, full-screen view (ncurses) of the machine and, with a PID,
 * of a job: CPU, pressure, memory, each GPU (util, memory, PCIe), the
 * busiest disks and interfaces, and the job's processes (role, rank,
 * thread states, CPU, reads; their states over the last minute). It fits
 * 80 columns. The figures are read back through the metric definitions
 * from an in-memory run file that keeps the last minute (cmd/live.h). */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <curses.h>

#include "analysis/load/metricdefs.h"
#include "analysis/load/query.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope top [OPTIONS] [PID]\n"
	"\n"
	"A live view of this machine, and with PID of that process and all its\n"
	"descendants, redrawn every interval; q quits (Ctrl-C too). It ends when\n"
	"PID exits. It fits 80 columns (a narrower terminal cuts the lines).\n"
	"  CPU, PSI, MEM    CPU time, pressure stall, memory (this interval)\n"
	"  GPU              each GPU: util %, memory used / total, PCIe rx/tx\n"
	"  DISK, NET        the busiest disks and interfaces (but lo)\n"
	"  JOB              its processes, threads running (R) / blocked in I/O\n"
	"                   (D) / sleeping (S), CPU; the last 60 s of states\n"
	"  processes        PID, PPID, role (main: PID; worker: a descendant),\n"
	"                   rank (from RANK, OMPI_COMM_WORLD_RANK, ...; (N): a\n"
	"                   process of rank N's, e.g. its DataLoader worker),\n"
	"                   threads, R, D, CPU % of a core, MB/s read from\n"
	"                   storage, and % of its thread samples R and D over\n"
	"                   the last 60 s\n"
	"Step timing (how long the loop waits for data) comes from inside the\n"
	"job: `feedscope run` records it; top, from outside, shows the states.\n"
	"\n"
	"  -i, --interval S   seconds between screens (default 1; 100ms works)\n"
	"      --no-gpu       do not load NVML\n"
	"  -h, --help         this help\n";

static const struct option long_opts[] = {
	{"interval", required_argument, NULL, 'i'},
	{"no-gpu", no_argument, NULL, 'G'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The window of the states "over the last minute"; the in-memory run file
 * keeps that much. */
#define TOP_KEEP_S 60.0
/* The layout's width: every line is made to fit in it. */
#define TOP_COLS 80
#define TOP_MAX_GPUS 8
#define TOP_MAX_DISKS 3
#define TOP_MAX_NICS 2
#define TOP_MAX_KEYS 512 /* rows read per keyed source (disks, processes) */

struct top {
	struct fs_live live; /* first: the sink the recorder writes into */
	int pid;
	double interval;
	double last_t;   /* the tick on screen, redrawn on a resize */
	int winch_fd;    /* SIGWINCH, through a signalfd */
	bool quit;       /* q was pressed */
	struct fs_metric_row *rows, *rows60; /* TOP_MAX_KEYS each */
};

/* ---- the screen, a line at a time ---- */

static int row_y;

/* One line of the layout at the next row: cut at the terminal's width
 * (a narrower terminal loses the lines' ends, a shorter one the last
 * lines), never wrapped. */
static void __attribute__((format(printf, 2, 3))) put(int attr, const char *fmt, ...)
{
	char buf[4 * TOP_COLS];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (row_y < LINES) {
		attrset(attr);
		mvaddnstr(row_y, 0, buf, COLS);
		attrset(A_NORMAL);
	}
	row_y++;
}

/* x fitted to width columns (live.h); each call its own buffer, so a line
 * may hold several. */
#define FIT(x, width, prec) fs_live_fit((char[16]){0}, 16, (x), (width), (prec))
#define BYTES(x) fs_fmt_bytes((char[24]){0}, 24, (x))
#define RATE(x) fs_fmt_rate((char[24]){0}, 24, (x))
#define PCT(x, width) pct((char[16]){0}, 16, (x), (width))
#define NUM(x) num((char[24]){0}, 24, (x))

/* x fitted to width - 1 columns, then a %. */
static char *pct(char *out, size_t cap, double x, int width)
{
	char b[16];
	snprintf(out, cap, "%s%%", fs_live_fit(b, sizeof b, x, width - 1, 0));
	return out;
}

/* A count in a sentence: as wide as it is; - when not known. */
static char *num(char *out, size_t cap, double x)
{
	if (isfinite(x))
		snprintf(out, cap, "%.0f", x);
	else
		snprintf(out, cap, "-");
	return out;
}

/* Characters in UTF-8 s (a sequence counts one). */
static int chars_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* ---- the sections ---- */

/* The main process's name at t ("" when it was not sampled). */
static void main_comm(struct fs_q *q, double t, char *out, size_t cap)
{
	out[0] = '\0';
	sqlite3_stmt *st = fs_q_prep(q, "SELECT comm FROM proc WHERE t = ?1 AND role = 'main'");
	if (!st)
		return;
	sqlite3_bind_double(st, 1, t);
	if (fs_q_step(q, st))
		fs_text_escape(out, cap, fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

static void title(const struct top *tp, struct fs_q *q, double t)
{
	static const char right[] = "q quits";
	char left[4 * TOP_COLS], comm[128] = "";
	if (tp->pid > 0 && q)
		main_comm(q, t, comm, sizeof comm);
	if (tp->pid > 0)
		snprintf(left, sizeof left, "feedscope top  PID %d (%s)  %.1f s, every %g s", tp->pid,
			 fs_live_cut(comm, 16), t, tp->interval);
	else
		snprintf(left, sizeof left, "feedscope top  this machine  %.1f s, every %g s", t, tp->interval);
	/* "q quits" stays in sight on a narrower terminal */
	int width = COLS < TOP_COLS ? COLS : TOP_COLS;
	fs_live_cut(left, width - (int)sizeof right);
	put(A_REVERSE, "%s%*s", left, width - chars_of(left), right);
}

/* The job's cgroup, when it has a CPU quota or a memory limit (what
 * throttles a job): the limit, and how close it is. */
static void cgroup(const struct fs_metric_values *mv)
{
	const double *v = mv->v;
	bool quota = fs_metricdefs_valid(mv, FS_MD_CGROUP_CPU_QUOTA_CORES);
	bool limit = fs_metricdefs_valid(mv, FS_MD_CGROUP_MEM_LIMIT_BYTES);
	char cpu[64] = "", mem[64] = "";
	if (quota)
		snprintf(cpu, sizeof cpu, "CPU quota %s cores, throttled %s%%", FIT(v[FS_MD_CGROUP_CPU_QUOTA_CORES], 5, 2),
			 FIT(v[FS_MD_CGROUP_THROTTLED_PCT], 5, 1));
	if (limit)
		snprintf(mem, sizeof mem, "memory %s of %s", BYTES(v[FS_MD_CGROUP_MEM_USAGE_MAX_BYTES]),
			 BYTES(v[FS_MD_CGROUP_MEM_LIMIT_BYTES]));
	if (quota || limit)
		put(A_NORMAL, "CGROUP %s%s%s", cpu, quota && limit ? "  " : "", mem);
}

/* The machine over this interval; mem (once a second) over the last second. */
static void machine(const struct fs_metric_values *mv, const struct fs_metric_values *mem)
{
	const double *v = mv->v, *m = mem->v;
	put(A_NORMAL, "CPU    usr %s%%  sys %s%%  iowait %s%%  idle %s%%  steal %s%%", FIT(v[FS_MD_CPU_USER_PCT], 5, 1),
	    FIT(v[FS_MD_CPU_SYSTEM_PCT], 5, 1), FIT(v[FS_MD_CPU_IOWAIT_PCT], 5, 1), FIT(v[FS_MD_CPU_IDLE_PCT], 5, 1),
	    FIT(v[FS_MD_CPU_STEAL_PCT], 4, 1));
	put(A_NORMAL, "PSI    cpu %s%%  io %s%% (full %s%%)  memory %s%% (full %s%%)", FIT(v[FS_MD_PSI_CPU_SOME_PCT], 5, 1),
	    FIT(v[FS_MD_PSI_IO_SOME_PCT], 5, 1), FIT(v[FS_MD_PSI_IO_FULL_PCT], 5, 1),
	    FIT(v[FS_MD_PSI_MEMORY_SOME_PCT], 5, 1), FIT(v[FS_MD_PSI_MEMORY_FULL_PCT], 5, 1));
	put(A_NORMAL, "MEM    available %s  page cache %s  major faults %s/s", BYTES(m[FS_MD_MEM_AVAILABLE_MIN_BYTES]),
	    BYTES(m[FS_MD_PAGE_CACHE_MAX_BYTES]), NUM(m[FS_MD_MAJOR_FAULTS_PER_S]));
	cgroup(mv);
}

/* Why a source shows nothing: its meta line ("disabled", "unavailable:
 * why"), cut to what is left of the line. */
static void source_note(struct fs_q *q, const char *label, const char *source)
{
	char key[64], why[512], esc[2048];
	snprintf(key, sizeof key, "source.%s", source);
	fs_q_meta(q, key, why, sizeof why);
	const char *text = !why[0]                  ? "none sampled"
			   : !strcmp(why, "ok")       ? "none"
			   : !strcmp(why, "disabled") ? "not read (--no-gpu)"
						      : why;
	int room = TOP_COLS - 7;
	put(A_NORMAL, "%-6s %s", label, fs_live_cut(fs_text_escape(esc, sizeof esc, text), room));
}

/* The name of GPU index key, from its sample at t. */
static void gpu_name(struct fs_q *q, double t, const char *key, char *out, size_t cap)
{
	out[0] = '\0';
	sqlite3_stmt *st = fs_q_prep(q, "SELECT name FROM gpu WHERE t = ?1 AND gpu = ?2");
	if (!st)
		return;
	sqlite3_bind_double(st, 1, t);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	if (fs_q_step(q, st))
		fs_text_escape(out, cap, fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

static void gpus(struct top *tp, struct fs_q *q, double t)
{
	int n = fs_metricdefs_load_keyed(q, FS_MS_GPU_BY_DEVICE, tp->rows, TOP_MAX_KEYS);
	if (n <= 0) {
		source_note(q, "GPU", "gpu");
		return;
	}
#define GPU_FMT "%-6s %4s  %9s %s %-9s  %10s  %10s  %s"
	put(A_BOLD, GPU_FMT, "GPU", "util", "mem used", "/", "total", "PCIe rx", "PCIe tx", "name");
	for (int i = 0; i < n && i < TOP_MAX_GPUS; i++) {
		const double *v = tp->rows[i].v;
		char idx[16], name[256];
		snprintf(idx, sizeof idx, "  %.3s", tp->rows[i].key);
		gpu_name(q, t, tp->rows[i].key, name, sizeof name);
		put(A_NORMAL, GPU_FMT, idx, PCT(v[FS_MDK_GPU_DEV_UTIL_PCT], 4), BYTES(v[FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES]),
		    "/", BYTES(v[FS_MDK_GPU_DEV_MEM_TOTAL_BYTES]), RATE(v[FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S]),
		    RATE(v[FS_MDK_GPU_DEV_PCIE_TX_BYTES_PER_S]), fs_live_cut(name, 18));
	}
	if (n > TOP_MAX_GPUS)
		put(A_NORMAL, "      +%d more", n - TOP_MAX_GPUS);
}

/* The busiest of a keyed source (fs_metricdefs_busier), those that moved
 * anything this interval. Returns how many, at most max, first in rows. */
static int busiest(struct top *tp, struct fs_q *q, enum fs_md_source source, int max)
{
	int n = fs_metricdefs_load_keyed(q, source, tp->rows, TOP_MAX_KEYS);
	if (n <= 0)
		return 0;
	qsort(tp->rows, (size_t)n, sizeof *tp->rows, fs_metricdefs_busier);
	int k = 0;
	while (k < n && k < max && fs_metricdefs_active(&tp->rows[k]))
		k++;
	return k;
}

/* A device's or interface's name under its section's label: indented,
 * escaped, cut to the column. */
static void key_cell(char *out, size_t cap, const char *key)
{
	char esc[64];
	fs_live_cut(fs_text_escape(esc, sizeof esc, key), 8);
	snprintf(out, cap, "  %s", esc);
}

static void disks(struct top *tp, struct fs_q *q)
{
	int n = busiest(tp, q, FS_MS_DISK, TOP_MAX_DISKS);
#define DISK_FMT "%-10s %9s  %10s  %7s  %10s  %5s%s"
	put(A_BOLD, DISK_FMT, "DISK", "read MB/s", "write MB/s", "reads/s", "read await", "util", n ? "" : "  (none busy)");
	for (int i = 0; i < n; i++) {
		const double *v = tp->rows[i].v;
		char name[128];
		key_cell(name, sizeof name, tp->rows[i].key);
		put(A_NORMAL, DISK_FMT, name, FIT(v[FS_MDK_DISK_READ_BYTES_PER_S] / 1e6, 9, 1),
		    FIT(v[FS_MDK_DISK_WRITE_BYTES_PER_S] / 1e6, 10, 1), FIT(v[FS_MDK_DISK_READS_PER_S], 7, 0),
		    fs_fmt_time((char[24]){0}, 24, v[FS_MDK_DISK_READ_AWAIT_MS] / 1e3), PCT(v[FS_MDK_DISK_UTIL_PCT], 5), "");
	}
}

static void nics(struct top *tp, struct fs_q *q)
{
	int n = busiest(tp, q, FS_MS_NIC, TOP_MAX_NICS);
#define NIC_FMT "%-10s %9s  %10s  %10s%s"
	put(A_BOLD, NIC_FMT, "NET", "rx MB/s", "tx MB/s", "link", n ? "" : "  (none busy)");
	for (int i = 0; i < n; i++) {
		const double *v = tp->rows[i].v;
		char name[128];
		key_cell(name, sizeof name, tp->rows[i].key);
		put(A_NORMAL, NIC_FMT, name, FIT(v[FS_MDK_NIC_RX_BYTES_PER_S] / 1e6, 9, 1),
		    FIT(v[FS_MDK_NIC_TX_BYTES_PER_S] / 1e6, 10, 1), RATE(v[FS_MDK_NIC_SPEED_BYTES_PER_S]), "");
	}
}

/* The job's totals now, and its states over the last minute. */
static void job_totals(const struct fs_metric_values *now, const struct fs_metric_values *last)
{
	const double *v = now->v, *w = last->v;
	put(A_NORMAL, "JOB    processes %s, threads %s (R %s, D %s, S %s), CPU %s%% of a core", NUM(v[FS_MD_JOB_PROCS_MEAN]),
	    NUM(v[FS_MD_JOB_THREADS_MEAN]), NUM(v[FS_MD_JOB_THREADS_RUNNING_MEAN]), NUM(v[FS_MD_JOB_THREADS_BLOCKED_MEAN]),
	    NUM(v[FS_MD_JOB_THREADS_SLEEPING_MEAN]), NUM(v[FS_MD_JOB_CPU_PCT]));
	char workers[64] = "; no workers";
	if (fs_metricdefs_valid(last, FS_MD_WORKER_THREADS_RUNNING_PCT))
		snprintf(workers, sizeof workers, "; workers R %s%% D %s%% S %s%%", NUM(w[FS_MD_WORKER_THREADS_RUNNING_PCT]),
			 NUM(w[FS_MD_WORKER_THREADS_BLOCKED_PCT]), NUM(w[FS_MD_WORKER_THREADS_SLEEPING_PCT]));
	put(A_NORMAL, "       last %.0f s: threads R %s%% D %s%% S %s%%%s", TOP_KEEP_S, NUM(w[FS_MD_THREADS_RUNNING_PCT]),
	    NUM(w[FS_MD_THREADS_BLOCKED_PCT]), NUM(w[FS_MD_THREADS_SLEEPING_PCT]), workers);
	put(A_NORMAL, "STEPS  not seen from outside: `feedscope run` times the loop's wait for data");
}

/* The keyed row of pid in rows[n], or NULL. */
static const struct fs_metric_row *row_of(const struct fs_metric_row *rows, int n, const char *pid)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].key, pid))
			return &rows[i];
	return NULL;
}

/* The rank column: N for the process with rank N whose parent has none
 * or another (the rank itself), (N) for its descendants that inherited it
 * (DataLoader workers), - for none. */
static void rank_cell(char *out, size_t cap, double rank, double parent_rank)
{
	if (isnan(rank))
		snprintf(out, cap, "-");
	else if (rank == parent_rank)
		snprintf(out, cap, "(%.0f)", rank);
	else
		snprintf(out, cap, "%.0f", rank);
}

/* The job's processes at t, the main one first, then in pid order
 * (parents before their children, mostly); with the rank of each and of
 * its parent (the ranks table: a process's latest row). */
#define PROC_SQL                                                                       \
	"SELECT p.pid, p.ppid, p.role, p.comm,"                                        \
	" (SELECT r.rank FROM ranks r WHERE r.pid = p.pid ORDER BY r.t DESC LIMIT 1)," \
	" (SELECT r.rank FROM ranks r WHERE r.pid = p.ppid ORDER BY r.t DESC LIMIT 1)" \
	" FROM proc p WHERE p.t = ?1 ORDER BY p.role != 'main', p.pid"

#define PROC_FMT "%7s %7s %-6.6s %5s %3s %3s %3s %4s %6s %5s %5s %s"

/* One line per process of the job sampled at t, as many as the terminal
 * has rows for. The figures come from the per-process definitions over
 * this interval (q) and the last minute (q60); who it is (role, command,
 * rank) from its row. */
static void processes(struct top *tp, struct fs_q *q, struct fs_q *q60, double t)
{
	int n = fs_metricdefs_load_keyed(q, FS_MS_PROC_BY_PID, tp->rows, TOP_MAX_KEYS);
	int n60 = fs_metricdefs_load_keyed(q60, FS_MS_PROC_BY_PID, tp->rows60, TOP_MAX_KEYS);
	put(A_BOLD, PROC_FMT, "PID", "PPID", "ROLE", "RANK", "THR", "R", "D", "CPU%", "rdMB/s", "R%60s", "D%60s",
	    "COMMAND");
	double none[FS_MDK__N];
	for (int i = 0; i < FS_MDK__N; i++)
		none[i] = NAN;
	/* room for all, or for all but a last line that says how many more */
	int total = n > 0 ? n : 0, room = LINES - row_y;
	int show = total <= room ? total : room - 1;
	sqlite3_stmt *st = fs_q_prep(q, PROC_SQL);
	if (!st)
		return;
	sqlite3_bind_double(st, 1, t);
	int shown = 0;
	while (shown < show && fs_q_step(q, st)) {
		char pid[24], rank[24], name[64];
		snprintf(pid, sizeof pid, "%s", fs_q_col_text(st, 0));
		fs_text_escape(name, sizeof name, fs_q_col_text(st, 3));
		const struct fs_metric_row *r = row_of(tp->rows, n, pid), *r60 = row_of(tp->rows60, n60, pid);
		const double *v = r ? r->v : none, *w = r60 ? r60->v : none;
		rank_cell(rank, sizeof rank, fs_q_col(st, 4), fs_q_col(st, 5));
		put(A_NORMAL, PROC_FMT, pid, fs_q_col_text(st, 1), fs_q_col_text(st, 2), rank,
		    FIT(v[FS_MDK_PID_THREADS], 3, 0), FIT(v[FS_MDK_PID_THREADS_RUNNING], 3, 0),
		    FIT(v[FS_MDK_PID_THREADS_BLOCKED], 3, 0), FIT(v[FS_MDK_PID_CPU_PCT], 4, 0),
		    FIT(v[FS_MDK_PID_READ_BYTES_PER_S] / 1e6, 6, 1), FIT(w[FS_MDK_PID_THREADS_RUNNING_PCT], 5, 0),
		    FIT(w[FS_MDK_PID_THREADS_BLOCKED_PCT], 5, 0), fs_live_cut(name, 15));
		shown++;
	}
	sqlite3_finalize(st);
	if (total == 0)
		put(A_NORMAL, "  (no process sampled: PID has exited, or cannot be read)");
	else if (shown < total)
		put(A_NORMAL, "  +%d more (a taller terminal shows them)", total - shown);
}

/* The screen for the tick at t. */
static void draw(struct top *tp, double t)
{
	erase();
	row_y = 0;
	if (t <= 0) {
		title(tp, NULL, t);
		put(A_NORMAL, "(the first figures come after one interval)");
		refresh();
		return;
	}
	struct fs_q q, q60;
	fs_live_query(&tp->live, &q, t, t);
	fs_live_query(&tp->live, &q60, t - TOP_KEEP_S, t);
	struct fs_metric_values now, mem, last;
	fs_metricdefs_load(&q, &now);
	fs_metricdefs_load_from(&q60, FS_MD_FROM(FS_MS_JOB), &last);
	/* memory is sampled once a second: its last second */
	q.w0 = t - 1;
	fs_metricdefs_load_from(&q, FS_MD_FROM(FS_MS_MEM), &mem);
	q.w0 = t;
	title(tp, &q, t);
	machine(&now, &mem);
	gpus(tp, &q, t);
	disks(tp, &q);
	nics(tp, &q);
	if (tp->pid > 0) {
		job_totals(&now, &last);
		processes(tp, &q, &q60, t);
	} else {
		put(A_NORMAL, "JOB    none: `feedscope top PID` shows a job's processes and states");
	}
	fs_live_query_done(&tp->live, &q60);
	fs_live_query_done(&tp->live, &q);
	refresh();
}

static void show(struct fs_live *live, double t)
{
	struct top *tp = (struct top *)live;
	tp->last_t = t;
	draw(tp, t);
}

/* ---- keys and resizes, between ticks ---- */

static int input_fds(void *arg, int *fds, int cap)
{
	struct top *tp = arg;
	if (cap < 2)
		return 0;
	fds[0] = STDIN_FILENO;
	fds[1] = tp->winch_fd;
	return 2;
}

/* Stop the loop as a stop signal would (it is blocked, and read through
 * the loop's signalfd); the loop then takes its last tick. */
static void stop(struct top *tp)
{
	if (!tp->quit)
		raise(SIGTERM);
	tp->quit = true;
}

static void input_ready(void *arg)
{
	struct top *tp = arg;
	struct signalfd_siginfo si;
	bool resized = false;
	while (read(tp->winch_fd, &si, sizeof si) == (ssize_t)sizeof si)
		resized = true;
	if (resized) {
		struct winsize ws;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
			resizeterm(ws.ws_row, ws.ws_col);
		draw(tp, tp->last_t);
	}
	int ch;
	while ((ch = getch()) != ERR)
		if (ch == 'q' || ch == 'Q')
			stop(tp);
	/* The terminal went away: nobody is looking. */
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
	if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
		stop(tp);
}

/* ---- the terminal ---- */

/* Messages said on stderr while the screen is up (a source that failed)
 * would be drawn over; they are kept in a file and said after. */
struct held {
	FILE *file;
	int saved;
};

static void hold_stderr(struct held *h)
{
	fflush(stderr);
	h->file = tmpfile();
	h->saved = h->file ? dup(STDERR_FILENO) : -1;
	if (h->saved < 0 || dup2(fileno(h->file), STDERR_FILENO) < 0) {
		if (h->saved >= 0)
			close(h->saved);
		if (h->file)
			fclose(h->file);
		h->file = NULL; /* said as they come, then */
		h->saved = -1;
	}
}

static void release_stderr(struct held *h)
{
	if (!h->file)
		return;
	fflush(stderr);
	dup2(h->saved, STDERR_FILENO);
	close(h->saved);
	rewind(h->file);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, h->file)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(h->file);
}

/* SIGWINCH through a signalfd (blocked, so ncurses' own handler never
 * runs and the resize is handled between ticks). */
static int winch_fd(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static SCREEN *start_screen(void)
{
	setlocale(LC_ALL, ""); /* ncursesw prints the names' UTF-8 as characters */
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return NULL;
	set_term(scr);
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	return scr;
}

static void end_screen(SCREEN *scr)
{
	endwin();
	delscreen(scr);
}

static int parse(int argc, char **argv, struct top *tp, bool *no_gpu)
{
	int opt, rc;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":i:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case 'i':
			if ((rc = fs_live_parse_interval("top", optarg, &tp->interval)))
				return rc;
			break;
		case 'G':
			*no_gpu = true;
			break;
		default:
			return fs_bad_option("top", opt, argv);
		}
	}
	if (optind < argc && (rc = fs_live_parse_pid("top", argv[optind++], &tp->pid)))
		return rc;
	if (optind < argc)
		return fs_usage_error("top: unexpected argument '%s'", argv[optind]);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return fs_usage_error("top needs a terminal; use watch");
	return 0;
}

/* The recorder and the loop, with the screen up. */
static int run(struct top *tp, bool no_gpu, struct fs_loop_result *res)
{
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct fs_job job;
	struct fs_recorder *rec = fs_live_recorder(&tp->live, &paths, &job, tp->pid, no_gpu);
	if (!rec)
		return 1;
	struct fs_loop_input in = {.fds = input_fds, .ready = input_ready, .arg = tp};
	int rc = fs_live_run(rec, tp->interval, 0, tp->pid, &in, res) < 0 ? 1 : 0;
	fs_recorder_close(rec);
	return rc;
}

int fs_cmd_top(int argc, char **argv)
{
	struct top tp = {.interval = 1.0, .winch_fd = -1};
	bool no_gpu = false;
	int rc = parse(argc, argv, &tp, &no_gpu);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (fs_live_open(&tp.live, "top", TOP_KEEP_S, show) < 0)
		return 1;
	tp.rows = calloc(TOP_MAX_KEYS, sizeof *tp.rows);
	tp.rows60 = calloc(TOP_MAX_KEYS, sizeof *tp.rows60);
	tp.winch_fd = winch_fd();
	if (!tp.rows || !tp.rows60 || tp.winch_fd < 0) {
		fs_error("top: %s", tp.winch_fd < 0 ? strerror(errno) : "out of memory");
		rc = 1;
		goto out;
	}
	struct held held;
	hold_stderr(&held);
	SCREEN *scr = start_screen();
	if (!scr) {
		release_stderr(&held);
		const char *term = getenv("TERM");
		rc = fs_usage_error("top: cannot use this terminal (TERM=%s); use watch", term ? term : "");
		goto out;
	}
	struct fs_loop_result res = {0};
	rc = run(&tp, no_gpu, &res);
	end_screen(scr);
	release_stderr(&held);
	if (res.watched_exited)
		fprintf(stderr, "feedscope: top: process %d exited\n", tp.pid);
out:
	if (tp.winch_fd >= 0)
		close(tp.winch_fd);
	free(tp.rows);
	free(tp.rows60);
	fs_live_close(&tp.live);
	return rc;
}
