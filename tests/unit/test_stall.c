/* test_stall - the stall detector (record/stall.h): the bound, a stall
 * found on steps and on the job's activity without steps, its end, the
 * hook's registrations kept out of the run file, and no signal to a
 * process whose handler is gone (the processes are fixture trees:
 * tests/fixtures/blocked/); and the phrase and Python frames the report
 * prints (render/stalls.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/thresholds.h"
#include "check.h"
#include "record/stall.h"
#include "render/stalls.h"
#include "util/clock.h"

/* What the detector passed on: rows of stalls and stall_procs, meta keys. */
struct capture {
	struct fs_sink sink;
	int starts, ends, procs, metas, stacks_keys;
	double start_t, start_from, end_t, bound;
	char python[160], phrase_kind[16];
};

static void cap_row(struct fs_sink *s, const struct fs_row *r)
{
	struct capture *c = (struct capture *)s;
	if (r->table == FS_T_STALLS && !strcmp(r->v[FS_STALLS_event].s, "start")) {
		c->starts++;
		c->start_t = r->v[FS_STALLS_t].d;
		c->start_from = r->v[FS_STALLS_t_start].d;
		c->bound = r->v[FS_STALLS_bound_s].d;
	} else if (r->table == FS_T_STALLS) {
		c->ends++;
		c->end_t = r->v[FS_STALLS_t].d;
	} else if (r->table == FS_T_STALL_PROCS) {
		c->procs++;
		snprintf(c->python, sizeof c->python, "%s", r->v[FS_STALL_PROCS_python].s);
	}
}

static void cap_meta(struct fs_sink *s, const char *key, const char *value)
{
	struct capture *c = (struct capture *)s;
	(void)value;
	c->metas++;
	c->stacks_keys += !strncmp(key, "hook.stacks.", 12);
}

static struct fs_stall *detector(struct capture *c, struct fs_paths *p, const char *root, double hang_after,
				 uint64_t start_ns)
{
	memset(c, 0, sizeof *c);
	c->sink = (struct fs_sink){.row = cap_row, .meta = cap_meta};
	memset(p, 0, sizeof *p);
	snprintf(p->proc, sizeof p->proc, "%s", root);
	struct fs_stall_opts o = {.hang_after_s = hang_after, .paths = p, .start_ns = start_ns,
				  .stacks_dir = "/nonexistent-stacks", .stacks_signal = 61};
	return fs_stall_new(&o, &c->sink);
}

static void step(struct fs_stall *d, double seconds)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_STEPS, 0);
	fs_row_real(&r, FS_STEPS_wait_s, seconds / 2);
	fs_row_real(&r, FS_STEPS_compute_s, seconds / 2);
	fs_sink_row(fs_stall_sink(d), &r);
}

static void proc_row(struct fs_stall *d, double t, int pid, const char *role, double cpu)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_PROC, t);
	fs_row_int(&r, FS_PROC_pid, pid);
	fs_row_int(&r, FS_PROC_ppid, 1);
	fs_row_text(&r, FS_PROC_role, role);
	fs_row_text(&r, FS_PROC_comm, "python3");
	fs_row_real(&r, FS_PROC_cpu_pct, cpu);
	fs_sink_row(fs_stall_sink(d), &r);
}

static void test_bound(void)
{
	const struct fs_thresholds *th = &fs_thresholds;
	CHECK_NEAR(fs_stall_bound(8, true, 1.0), 8, 1e-9);
	CHECK_NEAR(fs_stall_bound(8, false, NAN), 8, 1e-9);
	CHECK_NEAR(fs_stall_bound(0, false, NAN), th->hang_startup_s, 1e-9);
	CHECK_NEAR(fs_stall_bound(0, true, 0.05), th->hang_floor_s, 1e-9);       /* 20 x 0.05 s < 60 s */
	CHECK_NEAR(fs_stall_bound(0, true, 10), th->hang_step_multiple * 10, 1e-9); /* 200 s */
	CHECK_NEAR(fs_stall_bound(0, true, NAN), th->hang_floor_s, 1e-9);
}

/* Steps every 0.1 s, then none: a stall past max(20 x 0.1, 60) = 60 s
 * from the last, ended by the next step. The step records are timed by
 * the detector's clock: t = 0 is put 1000 s ago, so they come at ~1000. */
static void test_steps(void)
{
	struct capture c;
	struct fs_paths p;
	struct fs_stall *d = detector(&c, &p, "tests/fixtures/blocked/running/proc", 0,
				      fs_now_ns() - 1000 * FS_NS_PER_S);
	proc_row(d, 999.9, 506, "worker", 100); /* a worker at 100%: not progress */
	for (int i = 0; i < 20; i++)
		step(d, 0.1);
	fs_stall_tick(d, 1000);
	fs_stall_tick(d, 1055); /* 55 s: under the bound */
	CHECK_INT(c.starts, 0);
	fs_stall_tick(d, 1065);
	CHECK_INT(c.starts, 1);
	CHECK_NEAR(c.bound, 60, 1e-9);
	CHECK_NEAR(c.start_t, 1065, 1e-9);
	CHECK(c.start_from > 999 && c.start_from < 1001);
	fs_stall_tick(d, 1066); /* once per stall */
	CHECK_INT(c.starts, 1);
	fs_stall_tick(d, 1070); /* the stacks' wait is over: the process's row */
	CHECK_INT(c.procs, 1);
	CHECK(strstr(c.python, "not hooked") != NULL);
	CHECK_INT(c.ends, 0);
	step(d, 0.1); /* progress again */
	fs_stall_tick(d, 1071);
	CHECK_INT(c.ends, 1);
	fs_stall_finish(d, 1080);
	CHECK_INT(c.ends, 1); /* none open: no second end */
	fs_stall_free(d);
}

/* No steps: the job's activity (its main process on a CPU, its device,
 * its reads) is progress; 300 s without any is a stall; a stall still on
 * at the end is ended there. */
static void test_activity(void)
{
	struct capture c;
	struct fs_paths p;
	struct fs_stall *d = detector(&c, &p, "tests/fixtures/blocked/fifo/proc", 0, fs_now_ns());
	proc_row(d, 10, 500, "main", 80); /* the main process busy at t = 10 */
	struct fs_row g;
	fs_row_init(&g, FS_T_GPU, 20);
	fs_row_real(&g, FS_GPU_util_pct, 2); /* under 5%: not progress */
	fs_sink_row(fs_stall_sink(d), &g);
	fs_stall_tick(d, 309);
	CHECK_INT(c.starts, 0);
	fs_stall_tick(d, 311);
	CHECK_INT(c.starts, 1);
	CHECK_NEAR(c.start_from, 10, 1e-9);
	CHECK_NEAR(c.bound, fs_thresholds.hang_startup_s, 1e-9);
	fs_row_init(&g, FS_T_IO_INTERVALS, 320);
	fs_row_int(&g, FS_IO_INTERVALS_read_bytes, 0); /* a tick without reads */
	fs_sink_row(fs_stall_sink(d), &g);
	fs_stall_tick(d, 320);
	CHECK_INT(c.ends, 0);
	fs_stall_finish(d, 330);
	CHECK_INT(c.procs, 1); /* its process, once the stacks' wait was over */
	CHECK_INT(c.ends, 1);
	CHECK_NEAR(c.end_t, 330, 1e-9);
	fs_stall_free(d);
}

/* --hang-after; the hook's registration is not passed on, and a hooked
 * process whose handler is gone (fixture status: SigCgt 0) is never
 * signalled. */
static void test_hooked(void)
{
	struct capture c;
	struct fs_paths p;
	struct fs_stall *d = detector(&c, &p, "tests/fixtures/blocked/tcp/proc", 5, fs_now_ns() - 100 * FS_NS_PER_S);
	fs_sink_meta(fs_stall_sink(d), "hook.stacks.501", "61");
	fs_sink_meta(fs_stall_sink(d), "hook.pytorch", "1.13");
	CHECK_INT(c.stacks_keys, 0);
	proc_row(d, 99, 501, "worker", 0);
	step(d, 0.1);
	fs_stall_tick(d, 104);
	CHECK_INT(c.starts, 0);
	fs_stall_tick(d, 106);
	CHECK_INT(c.starts, 1);
	CHECK_NEAR(c.bound, 5, 1e-9);
	fs_stall_finish(d, 107);
	CHECK(strstr(c.python, "handler for signal 61 is gone") != NULL);
	fs_stall_free(d);
}

static void test_render(void)
{
	char out[512];
	struct fs_stall_what w = {.state = 'S', .syscall = "read", .fd = 5, .kind = "fifo", .target = "/q.fifo",
				  .wchan = "pipe_read"};
	fs_stall_phrase(out, sizeof out, &w);
	CHECK_STR(out, "S in read on fifo /q.fifo (wchan pipe_read)");
	w = (struct fs_stall_what){.state = 'S', .syscall = "recvfrom", .fd = 3, .kind = "tcp", .target = "socket:[1]",
				   .peer = "127.0.0.1:1 -> 127.0.0.1:2 (ESTABLISHED)"};
	fs_stall_phrase(out, sizeof out, &w);
	CHECK_STR(out, "S in recvfrom on tcp 127.0.0.1:1 -> 127.0.0.1:2 (ESTABLISHED)");
	w = (struct fs_stall_what){.state = 'R', .syscall = "running", .fd = -1};
	fs_stall_phrase(out, sizeof out, &w);
	CHECK_STR(out, "R running (no system call)");
	w = (struct fs_stall_what){.state = 'S', .syscall = "read", .fd = 5, .kind = "file", .target = "/a\x1b[2Jb"};
	fs_stall_phrase(out, sizeof out, &w);
	CHECK_STR(out, "S in read on file /a\\x1b[2Jb"); /* escaped for a terminal */

	const char *dump = "Thread 0x00007f8ef9c6b6c0 (most recent call first):\n"
			   "  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n\n"
			   "Current thread 0x00007f8f1cb225c0 (most recent call first):\n"
			   "  File \"/job/hangjob.py\", line 76 in hang_fifo\n"
			   "  File \"/job/hangjob.py\", line 111 in __getitem__\n"
			   "  File \"/torch/fetch.py\", line 58 in fetch\n";
	CHECK_INT(fs_stall_python_top(dump, 2, out, sizeof out), 2);
	CHECK_STR(out, "hang_fifo (hangjob.py:76) < __getitem__ (hangjob.py:111)");
	CHECK_INT(fs_stall_python_top("Thread 0x1 (most recent call first):\n  File \"a.py\", line 3 in f\n", 4, out,
				      sizeof out), 1);
	CHECK_STR(out, "f (a.py:3)");
	CHECK_INT(fs_stall_python_top("", 4, out, sizeof out), 0);
	CHECK_INT(fs_stall_python_top(NULL, 4, out, sizeof out), 0);
}

int main(void)
{
	test_bound();
	test_steps();
	test_activity();
	test_hooked();
	test_render();
	return check_exit("test_stall");
}
