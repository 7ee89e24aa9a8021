/* test_threadpool - CPU lists, Cpus_allowed_list, thread pools by name,
 * pool libraries by mapping (source/threadpool.c), and the cpuset mount
 * and membership (source/cgroup.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "source/cgroup.h"
#include "source/source.h"
#include "source/threadpool.h"
#include "store/row.h"

extern const struct fs_source_ops fs_source_threads;

static void test_cpulist(void)
{
	CHECK_INT(fs_cpulist_count("0-1\n"), 2);
	CHECK_INT(fs_cpulist_count("0"), 1);
	CHECK_INT(fs_cpulist_count("0-3,8,10-11\n"), 7);
	CHECK_INT(fs_cpulist_count(" 4-7 \n"), 4);
	/* ugly: empty (a cpuset with no CPUs yet), backwards, letters, a dangling comma or dash, huge */
	CHECK_INT(fs_cpulist_count("\n"), -1);
	CHECK_INT(fs_cpulist_count(""), -1);
	CHECK_INT(fs_cpulist_count(NULL), -1);
	CHECK_INT(fs_cpulist_count("3-1"), -1);
	CHECK_INT(fs_cpulist_count("0-x"), -1);
	CHECK_INT(fs_cpulist_count("0,"), -1);
	CHECK_INT(fs_cpulist_count("0-"), -1);
	CHECK_INT(fs_cpulist_count("0-99999999999"), -1);
	CHECK_INT(fs_cpulist_count("0 1"), -1);
}

static void test_status(void)
{
	/* a process named "a) b (c": its Name line is no key of ours */
	const char *st = "Name:\ta) b (c\nUmask:\t0022\nState:\tS (sleeping)\nThreads:\t5\n"
			 "Cpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n";
	CHECK_INT(fs_status_cpus_allowed(st), 2);
	CHECK_INT(fs_status_cpus_allowed("Name:\tx\nCpus_allowed_list:\t2,5-6\n"), 3);
	CHECK_INT(fs_status_cpus_allowed("Name:\tx\nCpus_allowed:\tff\n"), -1); /* no list: a kernel before 2.6.26 */
	CHECK_INT(fs_status_cpus_allowed("Cpus_allowed_list:\t\n"), -1);
	CHECK_INT(fs_status_cpus_allowed(""), -1);
}

static void test_pools(void)
{
	CHECK_STR(fs_tpool_name(fs_tpool_of("python3\n", "python3", true)), "main");
	CHECK_STR(fs_tpool_name(fs_tpool_of("python3\n", "python3", false)), "unnamed");
	CHECK_STR(fs_tpool_name(fs_tpool_of("omp_worker_3\n", "python3", false)), "openmp");
	CHECK_STR(fs_tpool_name(fs_tpool_of("OMP_thread\n", "python3", false)), "openmp");
	CHECK_STR(fs_tpool_name(fs_tpool_of("mkl_thread\n", "python3", false)), "mkl");
	CHECK_STR(fs_tpool_name(fs_tpool_of("pt_autograd_0\n", "pt_main_thread", false)), "torch");
	CHECK_STR(fs_tpool_name(fs_tpool_of("QueueFeederThr\n", "python3", false)), "other");
	/* a main thread renamed like a pool is still the main one; no main name known yet */
	CHECK_STR(fs_tpool_name(fs_tpool_of("omp_x", "omp_x", true)), "main");
	CHECK_STR(fs_tpool_name(fs_tpool_of("python3", NULL, false)), "other");
	/* a name that only begins like the process's is no inherited name */
	CHECK_STR(fs_tpool_name(fs_tpool_of("python3x\n", "python3", false)), "other");
	CHECK_STR(fs_tpool_name(FS_TPOOL__N), "other");
}

static void test_libs(void)
{
	char out[96];
	const char *maps =
		"55d0 r--p 00000000 fe:01 1 /usr/bin/python3.11\n"
		"7f00 r-xp 00000000 fe:01 2 /usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0\n"
		"7f01 r-xp 00000000 fe:01 3 /usr/lib/x86_64-linux-gnu/libopencv_core.so.406\n"
		"7f02 r-xp 00000000 fe:01 4 /usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13\n"
		"7f03 r-xp 00000000 fe:01 5 /usr/lib/x86_64-linux-gnu/libtbbmalloc.so.2\n"
		"7f04 rw-s 00000000 00:05 6 /dev/shm/torch_1_2 (deleted)\n"
		"7ffd rw-p 00000000 00:00 0 [stack]\n";
	/* libopencv_core is torch's own (no cv2 module), libtbbmalloc no pool */
	CHECK_STR(fs_pool_libs(maps, out, sizeof out), "gomp,torch");
	CHECK_STR(fs_pool_libs("7f 0 0 0 0 /site-packages/cv2/cv2.abi3.so\n"
			       "7f 0 0 0 0 /site-packages/numpy.libs/libopenblas64_p-r0-1.3.so\n"
			       "7f 0 0 0 0 /site-packages/torch/lib/libgomp-a34b3233.so.1\n"
			       "7f 0 0 0 0 /opt/intel/lib/libmkl_intel_thread.so.2\n"
			       "7f 0 0 0 0 /opt/intel/lib/libiomp5.so\n",
			       out, sizeof out),
		  "gomp,iomp,mkl,opencv");
	/* libopenblas64_p: not "libopenblas" then '.' or '-': its own soname is */
	CHECK_STR(fs_pool_libs("7f 0 0 0 0 /usr/lib/libopenblas.so.0\n7f 0 0 0 0 /usr/lib/libtbb.so.12\n", out, sizeof out),
		  "openblas,tbb");
	/* a directory named like a library, a name inside another's */
	CHECK_STR(fs_pool_libs("7f 0 0 0 0 /home/me/libgompish/x.so\n7f 0 0 0 0 /a/xlibgomp.so\n", out, sizeof out), "");
	CHECK_STR(fs_pool_libs("", out, sizeof out), "");
	CHECK_STR(fs_pool_libs(NULL, out, sizeof out), "");
	char small[8];
	fs_pool_libs(maps, small, sizeof small); /* cut short, still a string */
	CHECK(strlen(small) < sizeof small);
}

static void test_cpuset_mounts(void)
{
	struct fs_cg_mounts m;
	fs_cg_parse_mountinfo("34 31 0:31 /docker/abc /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
			      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n",
			      &m);
	CHECK_STR(m.cpuset_v1, "/sys/fs/cgroup/cpuset");
	CHECK_STR(m.cpuset_v1_root, "/docker/abc");
	struct fs_cg_member mb;
	CHECK(fs_cg_parse_member("3:cpuset:/docker/abc/job\n2:cpu,cpuacct:/\n0::/\n", &mb));
	CHECK_STR(mb.cpuset_v1, "/docker/abc/job");
	char dir[256];
	fs_cg_dir(dir, sizeof dir, "/host/sys/fs/cgroup/cpuset", m.cpuset_v1_root, mb.cpuset_v1);
	CHECK_STR(dir, "/host/sys/fs/cgroup/cpuset/job");
	fs_cg_dir(dir, sizeof dir, "/sys/fs/cgroup/cpuset", "/", "/");
	CHECK_STR(dir, "/sys/fs/cgroup/cpuset");
}

/* ---- the threads source on a fixture tree ---- */

static char root[128];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		snprintf(dir, sizeof dir, "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void thread(int pid, int tid, const char *comm, double run_s, double wait_s)
{
	char rel[128], text[128];
	snprintf(rel, sizeof rel, "proc/%d/task/%d/comm", pid, tid);
	put(rel, comm);
	snprintf(rel, sizeof rel, "proc/%d/task/%d/schedstat", pid, tid);
	snprintf(text, sizeof text, "%.0f %.0f 7\n", run_s * 1e9, wait_s * 1e9);
	put(rel, text);
}

struct got {
	int n;
	char pool[8][16];
	double v[8][FS_THREAD_POOLS__N];
	char libs[8][96];
};

static void got_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct got *g = (struct got *)((char *)sink + sizeof *sink);
	if (r->table != FS_T_THREAD_POOLS || g->n == 8)
		return;
	snprintf(g->pool[g->n], sizeof g->pool[0], "%s", r->v[FS_THREAD_POOLS_pool].s);
	for (int c = 0; c < FS_THREAD_POOLS__N; c++)
		if (!fs_value_num(&r->v[c], &g->v[g->n][c]))
			g->v[g->n][c] = NAN;
	const char *libs = r->v[FS_THREAD_POOLS_libs].kind == FS_V_TEXT ? r->v[FS_THREAD_POOLS_libs].s : "(null)";
	snprintf(g->libs[g->n], sizeof g->libs[0], "%s", libs);
	g->n++;
}

static int find(const struct got *g, const char *pool)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->pool[i], pool))
			return i;
	return -1;
}

static void test_source(void)
{
	snprintf(root, sizeof root, "/tmp/test_threadpool.%d", (int)getpid());
	mkdir(root, 0755);
	put("proc/self/mountinfo", "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n");
	put("sys/fs/cgroup/cpuset/job/cpuset.effective_cpus", "0-2\n");
	put("proc/500/cgroup", "3:cpuset:/job\n0::/\n");
	put("proc/500/status", "Name:\ta) b (c\nCpus_allowed_list:\t0-1,3\n");
	put("proc/500/maps", "7f r-xp 0 fe:01 2 /usr/lib/libgomp.so.1\n7f r-xp 0 fe:01 3 /usr/lib/libtorch_cpu.so\n");
	thread(500, 500, "a) b (c\n", 1.0, 0.2);
	thread(500, 501, "a) b (c\n", 1.0, 0.3);         /* the pool: named as its process */
	thread(500, 502, "QueueFeederThr\n", 0.01, 0.0);
	thread(500, 503, "omp_1\n", 0.5, 0.5);

	struct fs_paths paths;
	memset(&paths, 0, sizeof paths);
	snprintf(paths.proc, sizeof paths.proc, "%s/proc", root);
	snprintf(paths.sys, sizeof paths.sys, "%s/sys", root);
	int pids[1] = {500};
	struct fs_job job = {.root = 500, .pids = pids, .npids = 1};
	struct {
		struct fs_sink sink;
		struct got g;
	} out;
	memset(&out, 0, sizeof out);
	out.sink.row = got_row;
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &out.sink, .job = &job, .t = 1, .now_ns = 1000000000ull};
	void *st = NULL;
	char why[128];
	CHECK_INT(fs_source_threads.open(&st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(fs_source_threads.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(out.g.n, 0); /* the first read is a baseline */

	/* 0.5 s later: too soon, nothing read */
	ctx.t = 1.5, ctx.now_ns = 1500000000ull;
	thread(500, 500, "a) b (c\n", 1.4, 0.5);
	CHECK_INT(fs_source_threads.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(out.g.n, 0);

	/* 1 s after the first: the main thread ran 0.5 s and waited 0.4; the
	 * pool thread 0.4 and 0.5; the feeder 0.01 (not at work); the OpenMP
	 * thread's counter went back (a new thread with its id: 0); a thread
	 * born in the interval counts from 0; 502 is gone */
	ctx.t = 2, ctx.now_ns = 2000000000ull;
	thread(500, 500, "a) b (c\n", 1.5, 0.6);
	thread(500, 501, "a) b (c\n", 1.4, 0.8);
	thread(500, 503, "omp_1\n", 0.1, 0.0);
	thread(500, 504, "omp_2\n", 0.2, 0.1);
	char rel[256];
	snprintf(rel, sizeof rel, "%s/proc/500/task/502/schedstat", root);
	unlink(rel);
	snprintf(rel, sizeof rel, "%s/proc/500/task/502/comm", root);
	unlink(rel);
	snprintf(rel, sizeof rel, "%s/proc/500/task/502", root);
	rmdir(rel);
	CHECK_INT(fs_source_threads.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	int m = find(&out.g, "main"), u = find(&out.g, "unnamed"), o = find(&out.g, "openmp");
	CHECK(m >= 0 && u >= 0 && o >= 0);
	CHECK_INT(out.g.n, 3);
	if (m >= 0 && u >= 0 && o >= 0) {
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_cpu_pct], 50, 1e-6);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_run_wait_pct], 40, 1e-6);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_threads], 1, 0);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_active], 1, 0);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_dt_s], 1, 1e-9);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_cpus_allowed], 3, 0);
		CHECK_NEAR(out.g.v[m][FS_THREAD_POOLS_cpuset_cpus], 3, 0);
		CHECK_STR(out.g.libs[m], "gomp,torch");
		CHECK_STR(out.g.libs[u], "(null)");
		CHECK_NEAR(out.g.v[u][FS_THREAD_POOLS_cpu_pct], 40, 1e-6);
		CHECK_NEAR(out.g.v[u][FS_THREAD_POOLS_active], 1, 0);
		/* 503 went back: 0; 504 born: 0.2 + 0.1, at work */
		CHECK_NEAR(out.g.v[o][FS_THREAD_POOLS_threads], 2, 0);
		CHECK_NEAR(out.g.v[o][FS_THREAD_POOLS_cpu_pct], 20, 1e-6);
		CHECK_NEAR(out.g.v[o][FS_THREAD_POOLS_run_wait_pct], 10, 1e-6);
		CHECK_NEAR(out.g.v[o][FS_THREAD_POOLS_active], 1, 0);
	}
	CHECK(find(&out.g, "other") < 0); /* the feeder is gone */
	/* the process gone: no row, no failure */
	out.g.n = 0;
	pids[0] = 777;
	ctx.t = 3, ctx.now_ns = 3000000000ull;
	CHECK_INT(fs_source_threads.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(out.g.n, 0);
	fs_source_threads.close(st);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	test_source();
	test_cpulist();
	test_status();
	test_pools();
	test_libs();
	test_cpuset_mounts();
	return check_exit("test_threadpool");
}
