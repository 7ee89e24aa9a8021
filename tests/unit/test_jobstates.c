/* test_jobstates - the BPF path's arithmetic (source/jobstates.c and the
 * classification shared with bpf/jobstates.bpf.c): task states into the
 * /proc letters' buckets, a thread's totals at a read (its open interval
 * included), deltas between reads (a new thread, a reused tid, a torn read),
 * and a process's interval columns (mean threads per state). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "check.h"
#include "source/jobstates.h"
#include "source/metacalls.h"
#include "source/source.h"

#define MS 1000000ull

static void test_classify(void)
{
	CHECK_INT(fs_js_classify(0x0000, 0), FS_JS_RUNQ);    /* TASK_RUNNING: yielded, still runnable */
	CHECK_INT(fs_js_classify(0x0001, 1), FS_JS_RUNQ);    /* preempted while going to sleep */
	CHECK_INT(fs_js_classify(0x0001, 0), FS_JS_SLEEP);   /* TASK_INTERRUPTIBLE: S */
	CHECK_INT(fs_js_classify(0x2001, 0), FS_JS_SLEEP);   /* | TASK_FREEZABLE */
	CHECK_INT(fs_js_classify(0x0002, 0), FS_JS_BLOCKED); /* TASK_UNINTERRUPTIBLE: D */
	CHECK_INT(fs_js_classify(0x0102, 0), FS_JS_BLOCKED); /* TASK_KILLABLE: D */
	CHECK_INT(fs_js_classify(0x0402, 0), FS_JS_SLEEP);   /* TASK_IDLE: I, counted as sleeping */
	CHECK_INT(fs_js_classify(0x0004, 0), FS_JS_OTHER);   /* __TASK_STOPPED: T */
	CHECK_INT(fs_js_classify(0x0008, 0), FS_JS_OTHER);   /* __TASK_TRACED: t */
	CHECK_INT(fs_js_classify(0x0080, 0), FS_JS_OTHER);   /* TASK_DEAD */
	CHECK_INT(fs_js_classify(0x1000, 0), FS_JS_BLOCKED); /* TASK_RTLOCK_WAIT: D */
	CHECK_INT(fs_js_from_letter('R'), FS_JS_ONCPU); /* on a CPU or waiting for one: the next switch tells */
	CHECK_INT(fs_js_from_letter('S'), FS_JS_SLEEP);
	CHECK_INT(fs_js_from_letter('I'), FS_JS_SLEEP);
	CHECK_INT(fs_js_from_letter('D'), FS_JS_BLOCKED);
	CHECK_INT(fs_js_from_letter('T'), FS_JS_OTHER);
	CHECK_INT(fs_js_from_letter('Z'), FS_JS_OTHER);
}

static void test_totals_at(void)
{
	struct fs_js_thread t = {.state = FS_JS_BLOCKED, .iowait = 1, .since_ns = 100 * MS,
				 .iowait_ns = 3 * MS};
	t.ns[FS_JS_ONCPU] = 10 * MS;
	t.ns[FS_JS_BLOCKED] = 5 * MS;
	struct fs_js_totals a;
	fs_js_totals_at(&t, 130 * MS, &a); /* 30 ms more in D, in I/O wait */
	CHECK_INT(a.ns[FS_JS_ONCPU], 10 * MS);
	CHECK_INT(a.ns[FS_JS_BLOCKED], 35 * MS);
	CHECK_INT(a.iowait_ns, 33 * MS);
	CHECK_INT(a.run_ns, 10 * MS); /* R: on a CPU + runnable */
	fs_js_totals_at(&t, 90 * MS, &a); /* the kernel updated it after our clock read */
	CHECK_INT(a.ns[FS_JS_BLOCKED], 5 * MS);
	t.state = FS_JS_DEAD; /* exited: final */
	fs_js_totals_at(&t, 500 * MS, &a);
	CHECK_INT(a.ns[FS_JS_BLOCKED], 5 * MS);
	CHECK_INT(a.iowait_ns, 3 * MS);
}

/* A reader's split of an open stretch by the thread's execution as
 * task/TID/schedstat gives it (jobbpf.c: a thread long on a CPU, or long
 * runnable, its switch in unseen): that growth on a CPU, at most the
 * stretch, the rest runnable; a sleeping thread's stretch is left whole. */
static void test_totals_at_exec(void)
{
	struct fs_js_thread t = {.state = FS_JS_ONCPU, .since_ns = 100 * MS, .exec_ns = 40 * MS};
	t.ns[FS_JS_ONCPU] = 10 * MS;
	struct fs_js_totals a;
	fs_js_totals_at_exec(&t, 130 * MS, 64 * MS, &a); /* 24 of its 30 ms executed: 6 stolen */
	CHECK_INT(a.ns[FS_JS_ONCPU], 34 * MS);
	CHECK_INT(a.ns[FS_JS_RUNQ], 6 * MS);
	CHECK_INT(a.run_ns, 40 * MS);
	fs_js_totals_at_exec(&t, 130 * MS, 90 * MS, &a); /* more than the stretch: capped */
	CHECK_INT(a.ns[FS_JS_ONCPU], 40 * MS);
	CHECK_INT(a.ns[FS_JS_RUNQ], 0);
	fs_js_totals_at_exec(&t, 130 * MS, 30 * MS, &a); /* below exec_ns: none of it on a CPU */
	CHECK_INT(a.ns[FS_JS_ONCPU], 10 * MS);
	CHECK_INT(a.ns[FS_JS_RUNQ], 30 * MS);
	fs_js_totals_at_exec(&t, 130 * MS, ~0ull, &a); /* not read: whole, as fs_js_totals_at */
	CHECK_INT(a.ns[FS_JS_ONCPU], 40 * MS);
	CHECK_INT(a.ns[FS_JS_RUNQ], 0);
	t.state = FS_JS_RUNQ; /* its switch in unseen: it ran 12 ms of the 30 */
	fs_js_totals_at_exec(&t, 130 * MS, 52 * MS, &a);
	CHECK_INT(a.ns[FS_JS_ONCPU], 22 * MS);
	CHECK_INT(a.ns[FS_JS_RUNQ], 18 * MS);
	t.state = FS_JS_SLEEP;
	fs_js_totals_at_exec(&t, 130 * MS, 52 * MS, &a);
	CHECK_INT(a.ns[FS_JS_ONCPU], 10 * MS);
	CHECK_INT(a.ns[FS_JS_SLEEP], 30 * MS);
	CHECK_INT(a.run_ns, 10 * MS);
}

static void test_delta_columns(void)
{
	/* Two reads 100 ms apart of a process with two threads: one ran 20 ms,
	 * waited 10 ms for a CPU and slept 70; the other was in D 60 ms (40 of
	 * them in io_schedule) and slept 40. */
	struct fs_js_totals p1, c1, p2, c2, sum;
	memset(&p1, 0, sizeof p1);
	c1 = p2 = c2 = sum = p1;
	p1.ns[FS_JS_ONCPU] = p1.run_ns = 500 * MS;
	c1.ns[FS_JS_ONCPU] = 520 * MS;
	c1.ns[FS_JS_RUNQ] = 10 * MS;
	c1.run_ns = 530 * MS;
	c1.ns[FS_JS_SLEEP] = 70 * MS;
	p2.ns[FS_JS_SLEEP] = 1000 * MS;
	p2.iowait_ns = 7 * MS;
	c2.ns[FS_JS_SLEEP] = 1040 * MS;
	c2.ns[FS_JS_BLOCKED] = 60 * MS;
	c2.iowait_ns = 47 * MS;
	fs_js_totals_add_delta(&sum, &p1, &c1);
	fs_js_totals_add_delta(&sum, &p2, &c2);
	struct fs_js_columns col;
	fs_js_columns(&sum, 100 * MS, &col);
	CHECK_NEAR(col.running, 0.3, 1e-12); /* (20 + 10) / 100: R is on a CPU or runnable */
	CHECK_NEAR(col.blocked_io, 0.6, 1e-12);
	CHECK_NEAR(col.sleeping, 1.1, 1e-12);
	CHECK_NEAR(col.other, 0.0, 1e-12);
	CHECK_NEAR(col.running + col.blocked_io + col.sleeping + col.other, 2.0, 1e-12);
	CHECK_NEAR(col.run_wait_pct, 10.0, 1e-9);
	CHECK_NEAR(col.cpu_pct, 20.0, 1e-9); /* on a CPU only: waiting for one is not CPU time */
	CHECK_NEAR(col.blkio_delay_pct, 40.0, 1e-9);

	/* A thread born in the interval (no previous read): all of it counts. */
	struct fs_js_totals born = sum, s2 = sum;
	memset(&born, 0, sizeof born);
	s2 = born;
	born.ns[FS_JS_ONCPU] = born.run_ns = 25 * MS;
	born.ns[FS_JS_SLEEP] = 25 * MS;
	fs_js_totals_add_delta(&s2, NULL, &born);
	fs_js_columns(&s2, 100 * MS, &col);
	CHECK_NEAR(col.running, 0.25, 1e-12);
	CHECK_NEAR(col.sleeping, 0.25, 1e-12); /* half a thread on average: it lived half the interval */

	/* A torn read that went back a little gives no negative time. */
	struct fs_js_totals back = p1, s3 = born;
	memset(&s3, 0, sizeof s3);
	back.ns[FS_JS_ONCPU] -= 1000;
	fs_js_totals_add_delta(&s3, &p1, &back);
	CHECK_INT(s3.ns[FS_JS_ONCPU], 0);

	fs_js_columns(&sum, 0, &col);
	CHECK(isnan(col.running) && isnan(col.run_wait_pct) && isnan(col.blkio_delay_pct) && isnan(col.cpu_pct));
}

/* A thread on a CPU, read at three ticks: at the second read the open
 * stretch is counted whole as on the CPU (120 ms); the kernel then settles
 * it, 90 ms of it executing and 30 ms stolen by the hypervisor (RUNQ), and
 * the thread runs on 50 ms. Counted against what was counted (the mark),
 * the 30 ms read too high on the CPU is paid back from what accrued after:
 * over the three reads, on the CPU 140 ms and waiting 30, as the kernel
 * has them at the end, and none of it twice. */
static void test_mark_pays_back(void)
{
	struct fs_js_totals r1, r2, r3, mark, sum;
	memset(&r1, 0, sizeof r1);
	r2 = r3 = mark = sum = r1;
	r2.ns[FS_JS_ONCPU] = r2.run_ns = 120 * MS;
	r3.ns[FS_JS_ONCPU] = 140 * MS; /* 90 settled + 50 open */
	r3.ns[FS_JS_RUNQ] = 30 * MS;
	r3.run_ns = 170 * MS;
	fs_js_totals_add_delta(&sum, NULL, &r1);
	fs_js_totals_mark(&mark, &r1);
	fs_js_totals_add_delta(&sum, &mark, &r2);
	fs_js_totals_mark(&mark, &r2);
	CHECK_INT(sum.ns[FS_JS_ONCPU], 120 * MS);
	fs_js_totals_add_delta(&sum, &mark, &r3);
	fs_js_totals_mark(&mark, &r3);
	CHECK_INT(sum.ns[FS_JS_ONCPU], 140 * MS);
	CHECK_INT(sum.ns[FS_JS_RUNQ], 30 * MS);
	CHECK_INT(sum.run_ns, 170 * MS);
	CHECK_INT(mark.ns[FS_JS_ONCPU], 140 * MS);
	/* a figure below the mark adds nothing until it passes it */
	struct fs_js_totals r4 = r3;
	r4.ns[FS_JS_ONCPU] = 130 * MS;
	r4.run_ns = 160 * MS;
	fs_js_totals_add_delta(&sum, &mark, &r4);
	fs_js_totals_mark(&mark, &r4);
	CHECK_INT(sum.ns[FS_JS_ONCPU], 140 * MS);
	CHECK_INT(mark.ns[FS_JS_ONCPU], 140 * MS);
	CHECK_INT(sum.run_ns, 170 * MS);
}

/* A thread whose switch in was not seen, read at four ticks 100 ms apart:
 * at the second its record says runnable (50 ms open, read as waiting);
 * the kernel then finds it on the CPU and splits the stretch by its
 * execution: 80 ms on the CPU, none waiting; then it runs 10 ms more. The
 * 50 ms moved from waiting to the CPU cancel within running: over the
 * reads, R 90 ms and on the CPU 90, not R 140; the interval in which it
 * moved has its running (30 ms) and its CPU (80 ms: what moved onto it
 * counts there), and no negative wait. */
static void test_moved_to_cpu(void)
{
	struct fs_js_totals r1, r2, r3, r4, mark, sum, s3;
	memset(&r1, 0, sizeof r1);
	r2 = r3 = r4 = mark = sum = s3 = r1;
	r2.ns[FS_JS_RUNQ] = r2.run_ns = 50 * MS;
	r3.ns[FS_JS_ONCPU] = r3.run_ns = 80 * MS;
	r4.ns[FS_JS_ONCPU] = r4.run_ns = 90 * MS;
	fs_js_totals_add_delta(&sum, NULL, &r1);
	fs_js_totals_mark(&mark, &r1);
	fs_js_totals_add_delta(&sum, &mark, &r2);
	fs_js_totals_mark(&mark, &r2);
	fs_js_totals_add_delta(&s3, &mark, &r3);
	fs_js_totals_add_delta(&sum, &mark, &r3);
	fs_js_totals_mark(&mark, &r3);
	fs_js_totals_add_delta(&sum, &mark, &r4);
	fs_js_totals_mark(&mark, &r4);
	CHECK_INT(sum.run_ns, 90 * MS);
	CHECK_INT(sum.ns[FS_JS_ONCPU], 90 * MS);
	struct fs_js_columns col;
	fs_js_columns(&s3, 100 * MS, &col);
	CHECK_NEAR(col.running, 0.3, 1e-12);
	CHECK_NEAR(col.cpu_pct, 80.0, 1e-9);
	CHECK_NEAR(col.run_wait_pct, 0.0, 1e-12);
}

/* A record copied between two equal, even values of its seq; one being
 * written (odd) is not taken as whole. */
static void test_copy(void)
{
	struct fs_js_thread slot, out;
	memset(&slot, 0, sizeof slot);
	slot.tid = 42;
	slot.ns[FS_JS_SLEEP] = 7;
	slot.seq = 4;
	CHECK(fs_js_copy(&out, &slot, 3));
	CHECK_INT(out.tid, 42);
	CHECK_INT(out.ns[FS_JS_SLEEP], 7);
	slot.seq = 5; /* a writer stopped half way */
	CHECK(!fs_js_copy(&out, &slot, 3));
	CHECK_INT(out.tid, 42); /* the last copy, for want of a better */
}

static void test_states_parse(void)
{
	CHECK_INT(fs_js_states_parse("auto"), FS_STATES_AUTO);
	CHECK_INT(fs_js_states_parse("proc"), FS_STATES_PROC);
	CHECK_INT(fs_js_states_parse("bpf"), FS_STATES_BPF);
	CHECK_INT(fs_js_states_parse("BPF"), -1);
	CHECK_INT(fs_js_states_parse(""), -1);
	CHECK_INT(fs_js_states_parse("procs"), -1);
}

/* Time in D inside metadata calls: the open stretch of a thread blocked in
 * one counts, one blocked elsewhere does not; the column is part of D and
 * never exceeds it (marked apart, a torn read could settle them at
 * different reads). */
static void test_meta(void)
{
	struct fs_js_thread t = {.state = FS_JS_BLOCKED, .meta = 1, .since_ns = 100 * MS, .meta_ns = 4 * MS};
	t.ns[FS_JS_BLOCKED] = 6 * MS;
	struct fs_js_totals a;
	fs_js_totals_at(&t, 120 * MS, &a);
	CHECK_INT(a.ns[FS_JS_BLOCKED], 26 * MS);
	CHECK_INT(a.meta_ns, 24 * MS);
	t.meta = 0; /* blocked in a read */
	fs_js_totals_at(&t, 120 * MS, &a);
	CHECK_INT(a.meta_ns, 4 * MS);

	struct fs_js_totals prev, cur, sum;
	memset(&prev, 0, sizeof prev);
	cur = sum = prev;
	prev.ns[FS_JS_BLOCKED] = 10 * MS;
	prev.meta_ns = 8 * MS;
	cur.ns[FS_JS_BLOCKED] = 60 * MS;
	cur.meta_ns = 38 * MS;
	fs_js_totals_add_delta(&sum, &prev, &cur);
	struct fs_js_columns col;
	fs_js_columns(&sum, 100 * MS, &col);
	CHECK_NEAR(col.blocked_io, 0.5, 1e-12);
	CHECK_NEAR(col.blocked_meta, 0.3, 1e-12);
	/* more metadata time than D in one interval: clamped to D */
	sum.meta_ns = 70 * MS;
	fs_js_columns(&sum, 100 * MS, &col);
	CHECK_NEAR(col.blocked_meta, 0.5, 1e-12);
	fs_js_columns(&sum, 0, &col);
	CHECK(isnan(col.blocked_meta));
	struct fs_js_totals mark = prev;
	fs_js_totals_mark(&mark, &cur);
	CHECK_INT(mark.meta_ns, 38 * MS);
}

/* The table of metadata calls and the syscall file's first field. */
static void test_metacalls(void)
{
	CHECK(fs_metacall_is(SYS_openat));
	CHECK(fs_metacall_is(SYS_newfstatat) || fs_metacall_is(SYS_fstat));
	CHECK(fs_metacall_is(SYS_statx));
	CHECK(fs_metacall_is(SYS_getdents64));
	CHECK(fs_metacall_is(SYS_close));
	CHECK(!fs_metacall_is(SYS_read));
	CHECK(!fs_metacall_is(SYS_pread64));
	CHECK(!fs_metacall_is(SYS_mmap)); /* blocks on the address space, not on the file system */
	CHECK(!fs_metacall_is(SYS_futex));
	CHECK(!fs_metacall_is(-1)); /* outside a call: a page fault */
	const long *nr;
	size_t n = fs_metacall_list(&nr);
	CHECK(n > 20);
	for (size_t i = 0; i < n; i++)
		CHECK(nr[i] >= 0 && nr[i] < FS_METACALL_MAX && nr[i] < FS_JS_MAX_SYSCALL);
	long v = 0;
	CHECK(fs_metacall_parse("257 0xffffff9c 0x7ffd 0x0 0x0 0x0 0x0 0x7ffd1f18 0x7f3c\n", &v) && v == 257);
	CHECK(fs_metacall_parse("-1 0x7ffd1f18 0x7f3c\n", &v) && v == -1);
	CHECK(fs_metacall_parse("running\n", &v) && v == -1);
	CHECK(fs_metacall_parse("0 0x3 0x7f00 0x1000 0x0 0x0 0x0 0x1 0x2\n", &v) && v == 0);
	CHECK(!fs_metacall_parse("", &v));
	CHECK(!fs_metacall_parse("x12", &v));
	CHECK(!fs_metacall_parse("12x 0x0", &v));
}

int main(void)
{
	test_meta();
	test_metacalls();
	test_classify();
	test_totals_at();
	test_totals_at_exec();
	test_delta_columns();
	test_mark_pays_back();
	test_moved_to_cpu();
	test_copy();
	test_states_parse();
	return check_exit("test_jobstates");
}
