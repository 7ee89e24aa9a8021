/* test_memory - the memory findings (judge/memory.c) and the page copies'
 * advice (advise/memory.c) as pure functions of hand-made metrics: each
 * finding on either side of its threshold, its figures, and
 * cpu_preprocess's advice with and without the kernel copying pages. */
#include <math.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/judge/memory.h"
#include "check.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* A job of 3 workers over a 100 s loop that holds 1 GiB and adds nothing,
 * on a 16 GiB machine without a cgroup limit, /dev/shm 8 GiB. */
static struct fs_memory mem0(void)
{
	struct fs_memory m = {0};
	m.have_pss = true;
	m.window_s = 100;
	m.late_slope = NAN; /* unknown: the span's mean rate stands */
	m.job_pss_max = 1 * GIB;
	m.main_pss_max = 600 * MIB;
	m.workers_pss_max = 424 * MIB;
	m.others_pss_max = NAN;
	m.shmem_pss_max = 30 * MIB;
	m.swap_max = 0;
	m.growth = 20 * MIB;
	m.workers_uss_growth = 15 * MIB;
	m.workers_rss_growth = 14 * MIB;
	m.main_rss_growth = 5 * MIB;
	m.worker_uss_mean = 40 * MIB;
	m.workers = 3;
	m.workers_minflt = 1e5;
	m.workers_sys_s = 10;
	m.workers_cpu_s = 100;
	m.shm_used_max = 100 * MIB;
	m.shm_size = 8 * GIB;
	m.cg_limit = m.cg_usage_max = m.cg_peak = NAN;
	m.mem_total = 16 * GIB;
	m.mem_available_min = 12 * GIB;
	return m;
}

static const struct fs_mem_finding *find(const struct fs_memory_verdict *v, enum fs_mem_finding_id id)
{
	for (int i = 0; i < v->nfind; i++)
		if (v->find[i].id == id)
			return &v->find[i];
	return NULL;
}

static struct fs_memory_verdict judge(const struct fs_memory *mem)
{
	static struct fs_metrics m; /* big: not on the stack */
	memset(&m, 0, sizeof m);
	m.mem = *mem;
	struct fs_memory_verdict v;
	fs_judge_memory(&m, &fs_thresholds, &v);
	return v;
}

static void test_growth(void)
{
	struct fs_memory mem = mem0();
	struct fs_memory_verdict v = judge(&mem);
	CHECK_INT(v.nfind, 0);
	CHECK_NEAR(v.per_worker_bytes, 40 * MIB + 10 * MIB, 1); /* its USS and a third of the batches */
	CHECK(!v.page_copies);
	CHECK_NEAR(v.limit_bytes, 16 * GIB, 1);
	CHECK(!v.limit_is_cgroup);

	/* copy-on-read: the workers' USS +600 MiB, their RSS +30 MiB */
	mem.growth = 620 * MIB;
	mem.workers_uss_growth = 600 * MIB;
	mem.workers_rss_growth = 30 * MIB;
	mem.job_pss_max = 1.5 * GIB;
	v = judge(&mem);
	const struct fs_mem_finding *f = find(&v, FS_MEMF_LOADER_GROWTH);
	CHECK(f != NULL);
	if (f) {
		CHECK_NEAR(f->bytes, 620 * MIB, 1);
		CHECK_NEAR(f->rate_bytes_per_s, 6.2 * MIB, 1);
		CHECK_NEAR(f->to_limit_s, (16 * GIB - 1.5 * GIB) / (6.2 * MIB), 1e-6);
		CHECK(f->copy_on_read);
		CHECK(strstr(f->suggested, "numpy") != NULL);
		CHECK(strstr(f->why, "570 MiB less") != NULL); /* 600 - 30 */
	}
	CHECK_STR(fs_mem_finding_name(FS_MEMF_LOADER_GROWTH), "loader_memory_growth");

	/* still growing in the span's second half (4 MiB/s: 400 MiB over the
	 * 100 s span): the finding, at that rate */
	mem.late_slope = 4 * MIB;
	v = judge(&mem);
	f = find(&v, FS_MEMF_LOADER_GROWTH);
	CHECK(f != NULL);
	if (f) {
		CHECK_NEAR(f->rate_bytes_per_s, 4 * MIB, 1);
		CHECK_NEAR(f->to_limit_s, (16 * GIB - 1.5 * GIB) / (4 * MIB), 1e-6);
	}
	/* the same 620 MiB taken by the workers at their start and then held
	 * (1 MiB/s in the second half: 100 MiB over the span, under 128):
	 * grown, not growing; no finding */
	mem.late_slope = 1 * MIB;
	v = judge(&mem);
	CHECK(find(&v, FS_MEMF_LOADER_GROWTH) == NULL);
	mem.late_slope = NAN;

	/* the same growth in resident memory (allocations, not copies): a
	 * finding without the copy-on-read explanation */
	mem.workers_rss_growth = 590 * MIB;
	v = judge(&mem);
	f = find(&v, FS_MEMF_LOADER_GROWTH);
	CHECK(f && !f->copy_on_read && !strstr(f->suggested, "numpy"));

	/* under the floor (128 MiB) though a fifth of what it held: none */
	mem = mem0();
	mem.job_pss_max = 300 * MIB;
	mem.growth = 120 * MIB;
	v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_LOADER_GROWTH));
	/* over the floor but under a fifth of what it held: none */
	mem.job_pss_max = 4 * GIB;
	mem.growth = 600 * MIB; /* held 3.4 GiB at the start: 0.17 of it */
	v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_LOADER_GROWTH));
	/* not recorded: none */
	mem.growth = NAN;
	v = judge(&mem);
	CHECK_INT(v.nfind, 0);
}

static void test_shm(void)
{
	struct fs_memory mem = mem0();
	mem.shm_size = 64 * MIB;
	mem.shm_used_max = 47 * MIB; /* 73%: under three quarters */
	struct fs_memory_verdict v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_SHM_HEADROOM));
	mem.shm_used_max = 50 * MIB; /* 78% */
	v = judge(&mem);
	const struct fs_mem_finding *f = find(&v, FS_MEMF_SHM_HEADROOM);
	CHECK(f && f->bytes == 50 * MIB && f->of_bytes == 64 * MIB);
	if (f)
		CHECK(strstr(f->suggested, "128 MiB") != NULL); /* 50 / 0.75 = 67 MiB, by 64 MiB: 128 */
	/* a big /dev/shm, used far past a container's 64 MiB but not full:
	 * no finding (the text's memory section says it) */
	mem.shm_size = 8 * GIB;
	mem.shm_used_max = 300 * MIB;
	v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_SHM_HEADROOM));
	/* nothing mounted at /dev/shm: no size, no finding */
	mem.shm_size = NAN;
	v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_SHM_HEADROOM));
}

static void test_limit(void)
{
	struct fs_memory mem = mem0();
	mem.cg_limit = 1.2 * GIB; /* the job holds 1 GiB: 83% */
	mem.cg_peak = 1.1 * GIB;
	struct fs_memory_verdict v = judge(&mem);
	CHECK(v.limit_is_cgroup);
	const struct fs_mem_finding *f = find(&v, FS_MEMF_LIMIT_HEADROOM);
	CHECK(f && f->of_bytes == 1.2 * GIB);
	if (f) {
		CHECK(strstr(f->suggested, "1.25 GiB") != NULL); /* 1 GiB / 0.8, by 256 MiB */
		CHECK(strstr(f->why, "worker") != NULL);       /* or fewer workers: each holds 50 MiB */
	}
	mem.cg_limit = 1.3 * GIB; /* 77% */
	v = judge(&mem);
	CHECK(!find(&v, FS_MEMF_LIMIT_HEADROOM));
	/* no cgroup limit: the machine's memory */
	mem.cg_limit = NAN;
	mem.mem_total = 1.1 * GIB;
	v = judge(&mem);
	f = find(&v, FS_MEMF_LIMIT_HEADROOM);
	CHECK(f && !v.limit_is_cgroup && strstr(f->knob, "machine"));
}

/* cpu_preprocess with the workers' CPU in the kernel copying pages: the
 * index is the fix, not cheaper transforms; without: transforms. */
static void test_page_copies(void)
{
	static struct fs_metrics m;
	memset(&m, 0, sizeof m);
	strcpy(m.mode, "run");
	m.duration_s = m.loop_s = 100;
	m.interval_s = 0.1;
	m.ncpu = 4;
	m.have_steps = true;
	strcpy(m.loader, "train");
	m.steps = 1000;
	m.wait_s = 50;
	m.compute_s = 50;
	m.checkpoint_every_steps = m.gpu_busy_in_checkpoints = m.pcie_rx_max_bytes_per_s = NAN;
	m.num_workers = 3;
	m.have_gpu = true;
	m.ngpus = 1;
	m.gpu_busy = 0.5;
	m.have_job = true;
	m.loaders = (struct fs_states){.running = 0.9, .blocked = 0.02, .sleeping = 0.08, .cpu_cores = 1.0,
				       .samples = 3000, .procs = 3};
	m.main = (struct fs_states){.running = 0.1, .sleeping = 0.9, .cpu_cores = 0.1, .samples = 1000, .procs = 1};
	m.job_cpu_cores = 1.1;
	m.cg_quota_cores = m.cg_mem_limit_bytes = m.cg_mem_usage_max_bytes = NAN;
	m.cpu_busy_pct = 30;
	m.disk_read_bytes_per_s = 1e6;
	m.disk_util_pct = 1;
	m.nic_rx_bytes_per_s = m.nic_speed_bytes_per_s = m.nfs_read_ops_per_s = m.nfs_rtt_ms = NAN;
	m.mem = mem0();
	m.mem.workers_cpu_s = 100;
	m.mem.workers_sys_s = 20; /* a fifth in the kernel: decoding */
	m.mem.workers_minflt = 20 * 30000.0;
	m.mem.growth = 620 * MIB;
	m.mem.workers_uss_growth = 600 * MIB;
	m.mem.workers_rss_growth = 30 * MIB;
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	CHECK(!v.memory.page_copies);
	bool transforms = false, index = false;
	for (int i = 0; i < v.nrec; i++) {
		transforms |= !strcmp(v.rec[i].knob, "transforms");
		index |= !strcmp(v.rec[i].knob, "the dataset's index");
	}
	CHECK(transforms && !index);

	m.mem.workers_sys_s = 50; /* half in the kernel, 30 000 faults a kernel-second */
	m.mem.workers_minflt = 50 * 30000.0;
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK(v.memory.page_copies);
	CHECK_NEAR(v.memory.workers_sys_share, 0.5, 1e-9);
	transforms = index = false;
	for (int i = 0; i < v.nrec; i++) {
		transforms |= !strcmp(v.rec[i].knob, "transforms");
		if (!strcmp(v.rec[i].knob, "the dataset's index")) {
			index = true;
			CHECK(strstr(v.rec[i].relieves, "kernel copying pages") != NULL);
			CHECK(strstr(v.rec[i].why, "0.5 cores") != NULL); /* 50 s of kernel CPU over 100 s */
		}
	}
	CHECK(index && !transforms);
	/* the same kernel time on fresh pages (the workers' RSS grew with
	 * their USS): not copies, transforms again */
	m.mem.workers_rss_growth = 590 * MIB;
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK(!v.memory.page_copies);
}

int main(void)
{
	test_growth();
	test_shm();
	test_limit();
	test_page_copies();
	return check_exit("test_memory");
}
