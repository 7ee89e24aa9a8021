/* The diagnosis as a pure function: hand-made metrics for each kind of
 * bottleneck give the expected verdict id, shares, speedup and knobs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/advise/phases.h"
#include "analysis/judge/verdict.h"
#include "check.h"

/* A 60 s run of 1000 steps with two DataLoader workers on 4 cores; steps
 * and GPU present; nothing unusual. Each case changes what it needs. */
static struct fs_metrics base(void)
{
	struct fs_metrics m;
	memset(&m, 0, sizeof m);
	strcpy(m.mode, "run");
	m.duration_s = 60;
	m.interval_s = 0.1;
	m.ncpu = 4;
	m.mem_total_bytes = 16e9;
	m.have_steps = true;
	strcpy(m.loader, "train");
	m.steps = 1000;
	m.epochs = 2;
	m.wait_s = 2;       /* 2 ms per step */
	m.compute_s = 50;   /* 50 ms per step */
	m.loop_s = 52;
	m.epoch_start_excess_s = 0;
	m.epoch_starts = 1;
	m.checkpoint_every_steps = NAN;
	m.num_workers = 2;
	m.batch_size = 32;
	m.prefetch_factor = 2;
	strcpy(m.persistent_workers, "false");
	strcpy(m.pin_memory, "true");
	m.have_gpu = true;
	m.ngpus = 1;
	m.gpu_busy = 0.95;
	m.gpu_busy_in_checkpoints = NAN;
	m.pcie_rx_max_bytes_per_s = NAN;
	m.have_job = true;
	m.loaders = (struct fs_states){.blocked = 0.05, .running = 0.15, .sleeping = 0.80, .cpu_cores = 0.3,
				       .run_wait = 0, .samples = 1200, .procs = 2};
	m.main = (struct fs_states){.blocked = 0, .running = 0.1, .sleeping = 0.9, .cpu_cores = 0.1,
				    .run_wait = 0, .samples = 600, .procs = 1};
	m.job_cpu_cores = 0.4;
	m.loader_rchar_bytes = 10e9;
	m.loader_read_bytes = 1e9;
	m.job_read_bytes = 1e9;
	m.cg_quota_cores = NAN;
	m.cg_throttled_pct = 0;
	m.cg_mem_limit_bytes = NAN;
	m.cg_mem_usage_max_bytes = NAN;
	m.cpu_busy_pct = 20;
	m.cpu_iowait_pct = 1;
	m.psi_cpu = 1;
	m.psi_io = 2;
	m.psi_io_full = 1;
	m.psi_mem = 0;
	m.mem_available_min_bytes = 10e9;
	m.cached_max_bytes = 4e9;
	m.majflt_per_s = 1;
	m.dentries_growth = 100;
	strcpy(m.disk, "nvme0n1");
	m.disk_read_bytes_per_s = 20e6;
	m.disk_util_pct = 10;
	m.disk_req_bytes = 256 * 1024;
	m.disk_await_ms = 0.5;
	m.disk_iops = 80;
	m.disk_queue_depth = 0.1;
	m.disk_read_bytes = 1e9;
	m.nic_rx_bytes_per_s = NAN;
	m.nic_speed_bytes_per_s = NAN;
	m.tcp_retrans_per_s = 0;
	m.nfs_read_ops_per_s = NAN;
	m.nfs_rtt_ms = NAN;
	return m;
}

/* Make the loop wait `wait_ms` per step of `compute_ms`. */
static void waits(struct fs_metrics *m, double wait_ms, double compute_ms)
{
	m->wait_s = wait_ms * (double)m->steps / 1000;
	m->compute_s = compute_ms * (double)m->steps / 1000;
	m->loop_s = m->wait_s + m->compute_s + m->epoch_end_s;
	m->duration_s = m->loop_s;
	m->gpu_busy = compute_ms / (wait_ms + compute_ms);
}

static struct fs_verdict diagnose(const struct fs_metrics *m)
{
	struct fs_verdict v;
	fs_diagnose(m, &fs_thresholds, &v);
	return v;
}

static bool has_knob(const struct fs_verdict *v, const char *knob)
{
	for (int i = 0; i < v->nrec; i++)
		if (!strcmp(v->rec[i].knob, knob))
			return true;
	return false;
}

static const struct fs_evidence *find_ev(const struct fs_verdict *v, const char *metric)
{
	for (int i = 0; i < v->nev; i++)
		if (!strcmp(v->ev[i].metric, metric))
			return &v->ev[i];
	return NULL;
}

static const struct fs_recommendation *knob(const struct fs_verdict *v, const char *k)
{
	for (int i = 0; i < v->nrec; i++)
		if (!strcmp(v->rec[i].knob, k))
			return &v->rec[i];
	return NULL;
}

static void test_compute_bound(void)
{
	struct fs_metrics m = base();
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "compute_bound");
	CHECK_NEAR(v.input_bound_fraction, 2.0 / 52, 1e-9);
	CHECK(v.confidence > 0.5);
	CHECK_NEAR(v.predicted_speedup, 52.0 / 50, 1e-9);
	CHECK_INT(v.nrec, 0);
}

static void test_storage(void)
{
	struct fs_metrics m = base();
	waits(&m, 75, 50); /* 60% waiting */
	m.loaders.blocked = 0.8;
	m.loaders.running = 0.1;
	m.loaders.sleeping = 0.1;
	m.disk_util_pct = 95;
	m.psi_io = 70;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	CHECK_NEAR(v.input_bound_fraction, 0.6, 1e-9);
	CHECK_NEAR(v.predicted_speedup, 125.0 / 50, 1e-9);
	CHECK(has_knob(&v, "storage"));
	CHECK(v.nev >= 3);

	m.disk_req_bytes = 4096; /* the same, in small reads */
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	CHECK(has_knob(&v, "access pattern"));
	CHECK(knob(&v, "num_workers") && !strcmp(knob(&v, "num_workers")->suggested, "4"));
	/* at its probed IOPS the device has no room for more reads in flight */
	m.disk_iops = 1000;
	m.disk_ceiling_iops = 1050;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	CHECK(!has_knob(&v, "num_workers"));
	m.disk_ceiling_iops = 20000;
	v = diagnose(&m);
	CHECK(has_knob(&v, "num_workers"));
	m.disk_ceiling_iops = NAN;

	/* The machine looked up 1.25 new names a sample, 3 KB read each: any
	 * program's lookups; alone they decide nothing. */
	m.dentries_growth = 40000; /* 32000 samples */
	m.loader_rchar_bytes = 32000 * 3000.0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	/* The loaders' own threads: 85% of their time in D inside metadata
	 * system calls (no tracer): metadata, the dentries beside it. */
	m.have_meta_calls = true;
	m.loaders.meta_calls = 0.85;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "metadata");
	CHECK(has_knob(&v, "dataset layout"));
	CHECK(find_ev(&v, "loader_meta_calls_share") && find_ev(&v, "loader_meta_calls_share")->value == 0.85);
	CHECK(find_ev(&v, "dentries_growth") != NULL);
	/* 30% of it: their reads are the wait, whatever the machine's lookups */
	m.loaders.meta_calls = 0.3;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	m.have_meta_calls = false;
	m.loaders.meta_calls = NAN;

	m = base();
	waits(&m, 75, 50);
	m.loaders.blocked = 0.8;
	m.loaders.running = 0.1;
	m.loaders.sleeping = 0.1;
	m.cg_mem_limit_bytes = 512e6;
	m.cg_mem_usage_max_bytes = 510e6;
	m.loader_read_bytes = 0.9 * m.loader_rchar_bytes;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "memory_pressure");
	CHECK(has_knob(&v, "memory limit"));

	/* The same memory limit, the loaders running (reclaiming) more than
	 * they block: still memory_pressure, as their CPU time is reclaim. */
	m.loaders.blocked = 0.35;
	m.loaders.running = 0.55;
	m.loaders.sleeping = 0.1;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "memory_pressure");
	/* Without the limit, the same states are a CPU verdict. */
	m.cg_mem_limit_bytes = NAN;
	m.cg_mem_usage_max_bytes = NAN;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	/* With it, but the data coming from the page cache: CPU as well. */
	m.cg_mem_limit_bytes = 512e6;
	m.cg_mem_usage_max_bytes = 510e6;
	m.loader_read_bytes = 0.1 * m.loader_rchar_bytes;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
}

static void test_tracer_metadata(void)
{
	/* Cached dentries (no growth), but the tracer saw a file opened per
	 * sample with 3 KiB read from each: metadata, with the tracer's words. */
	struct fs_metrics m = base();
	waits(&m, 75, 50);
	m.loaders.blocked = 0.8;
	m.loaders.running = 0.1;
	m.loaders.sleeping = 0.1;
	m.disk_req_bytes = 4096;
	m.dentries_growth = 0;
	m.have_trace = true;
	m.trace_files = 32000;
	m.trace_opens = 32000;
	m.trace_stats = 64000;
	m.trace_reads = 64000;
	m.trace_read_bytes = 32000 * 3072.0;
	m.trace_seq_reads = 32000;
	m.loader_time_s = 200;
	m.loader_io_time_s = 160;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "metadata");
	bool said_io = false, said_opens = false;
	for (int i = 0; i < v.nev; i++) {
		said_io |= !strcmp(v.ev[i].metric, "loader_io_call_share") && fabs(v.ev[i].value - 0.8) < 1e-9;
		said_opens |= !strcmp(v.ev[i].metric, "opens_per_sample") && fabs(v.ev[i].value - 1.0) < 1e-9;
	}
	CHECK(said_io);
	CHECK(said_opens);
	for (int i = 0; i < v.nmissing; i++)
		CHECK(strncmp(v.missing[i], "tracer", 6) != 0);

	/* Large files read whole: the same opens are not metadata-bound. */
	m.trace_read_bytes = 32000 * 1048576.0;
	m.disk_req_bytes = 512 * 1024;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
}

static void test_cpu(void)
{
	struct fs_metrics m = base();
	waits(&m, 50, 50);
	m.loaders.running = 0.9;
	m.loaders.blocked = 0.02;
	m.loaders.sleeping = 0.08;
	m.loaders.cpu_cores = 1.0;
	m.cg_quota_cores = 1.0;
	m.cg_throttled_pct = 60;
	m.cpu_busy_pct = 30;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	CHECK(has_knob(&v, "cgroup CPU quota"));
	CHECK(has_knob(&v, "transforms"));
	/* throttled by its own quota: more workers have no cores to run on */
	CHECK(!has_knob(&v, "num_workers"));
	/* loaders need 1 core x 100 s / 1000 steps = 100 ms of CPU per step;
	 * 3.9 cores are left: the floor (26 ms) is below compute (50 ms): 2x */
	CHECK_NEAR(v.predicted_speedup, 2.0, 1e-9);

	/* no quota, cores spare: more workers use them */
	m.cg_throttled_pct = 0;
	m.cg_quota_cores = NAN;
	v = diagnose(&m);
	CHECK(has_knob(&v, "num_workers"));
	CHECK(!has_knob(&v, "cgroup CPU quota"));

	/* all 4 cores saturated by the loaders: the CPU caps the speedup */
	m.cg_throttled_pct = 0;
	m.cg_quota_cores = NAN;
	m.loaders.cpu_cores = 3.9;
	m.cpu_busy_pct = 99;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	CHECK(v.speedup_cap[0] != '\0');
	/* the loaders' CPU per step fills the step: nothing to gain */
	CHECK_NEAR(v.predicted_speedup, 1.0, 1e-9);
	/* the loop's own process takes a core: the step cannot get shorter
	 * than the loaders' CPU over the 2.9 cores left, longer than it is now;
	 * a prediction under one is no fix: null, and the text says so */
	m.main.cpu_cores = 1.1;
	v = diagnose(&m);
	/* ... but its recommendations are changes of their own: transforms at
	 * half the CPU per sample take the loaders to 0.55 of their time
	 * (55 ms a step) and their CPU floor to 3.9 x 100 ms x 0.5 / 2.9 cores
	 * = 67.2 ms, over the 50 ms of compute: 100 / 67.2 = 1.49x, then CPU;
	 * the verdict's prediction is the best of them */
	const struct fs_recommendation *half = NULL;
	for (int i = 0; i < v.nrec; i++)
		if (!strcmp(v.rec[i].knob, "transforms"))
			half = &v.rec[i];
	CHECK(half != NULL);
	if (half) {
		CHECK_NEAR(half->speedup, 100 / (3.9 * 100 * 0.5 / 2.9), 1e-6);
		CHECK(strstr(half->then, "CPU (2.9 cores") == half->then);
		CHECK_NEAR(v.predicted_speedup, half->speedup, 1e-9);
	}
	CHECK(strstr(v.speedup_cap, "with transforms at half the CPU per sample") == v.speedup_cap);
	/* the loaders' CPU so large that halving it still leaves the floor
	 * over the step: no change gains, and only then no fix is offered */
	m.loaders.cpu_cores = 7;
	v = diagnose(&m);
	CHECK(isnan(v.predicted_speedup));
	CHECK(strstr(v.speedup_cap, "no fix to offer: the model predicts no gain (0.41x, capped by CPU") == v.speedup_cap);
	for (int i = 0; i < v.nrec; i++)
		CHECK(!(v.rec[i].speedup > 1));
}

static void test_parallelism(void)
{
	struct fs_metrics m = base();
	waits(&m, 150, 50);
	m.num_workers = 1;
	m.loaders.sleeping = 0.95;
	m.loaders.running = 0.04;
	m.loaders.blocked = 0.01;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");
	const struct fs_recommendation *r = knob(&v, "num_workers");
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(r->current, "1");
		CHECK_STR(r->suggested, "4"); /* 1 x 200 ms / 50 ms */
	}
	CHECK_NEAR(v.predicted_speedup, 4.0, 1e-9);

	/* The same idle loaders without steps or GPU: an idle pipeline is not a
	 * finding; the verdict says it cannot tell. */
	m.have_steps = false;
	m.have_gpu = false;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "undetermined");
	CHECK(isnan(v.input_bound_fraction));
	CHECK(v.nmissing >= 2);
}

static void test_checkpoint_and_epochs(void)
{
	struct fs_metrics m = base();
	m.compute_s = 50 + 20; /* checkpoints are inside the loop's compute */
	m.checkpoint_s = 20;
	m.checkpoints = 10;
	m.checkpoint_every_steps = 100;
	m.loop_s = m.wait_s + m.compute_s;
	m.gpu_busy_in_checkpoints = 0;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "checkpoint_stall");
	CHECK_NEAR(v.predicted_speedup, 72.0 / 52, 1e-9);
	CHECK(has_knob(&v, "checkpointing"));

	m = base();
	m.epochs = 10;
	m.epoch_starts = 9;
	m.epoch_start_excess_s = 9 * 2.0; /* 2 s per epoch start */
	m.epoch_end_s = 9 * 0.5;
	m.wait_s = 2 + m.epoch_start_excess_s;
	m.loop_s = m.wait_s + m.compute_s + m.epoch_end_s;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "epoch_start");
	const struct fs_recommendation *r = knob(&v, "persistent_workers");
	CHECK(r && !strcmp(r->current, "false") && !strcmp(r->suggested, "true"));
}

static void test_no_steps(void)
{
	/* hook off: the GPU says how idle the accelerator was */
	struct fs_metrics m = base();
	m.have_steps = false;
	m.steps = 0;
	m.gpu_busy = 0.3;
	m.loaders.blocked = 0.85;
	m.loaders.running = 0.05;
	m.loaders.sleeping = 0.1;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	CHECK_NEAR(v.input_bound_fraction, 0.7, 1e-9);
	CHECK_NEAR(v.predicted_speedup, 1 / 0.3, 1e-9);
	CHECK_STR(v.basis, "gpu");

	/* neither: states and the disk alone; the fraction is unknown */
	m.have_gpu = false;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	CHECK(isnan(v.input_bound_fraction));
	CHECK(isnan(v.predicted_speedup));
	CHECK(v.confidence < 0.6);
}

/* Checkpoints written by plain write + fsync (no phases): the tracer's
 * main-thread host I/O is the bucket, inside the steps' compute. */
static void test_host_io(void)
{
	struct fs_metrics m = base();
	m.compute_s = 50 + 30; /* 30 s of writes and syncs inside compute */
	m.loop_s = m.wait_s + m.compute_s;
	m.host_io_s = 30;
	m.checkpoint_s = 30;
	m.checkpoint_phase_s = 0;
	m.checkpoints = 0;
	m.gpu_busy = 50.0 / 82;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "checkpoint_stall");
	CHECK_NEAR(v.accelerator_idle_fraction, 32.0 / 82, 1e-9);
	CHECK_NEAR(v.predicted_speedup, 82.0 / 52, 1e-9);
	CHECK(has_knob(&v, "checkpointing"));
	/* the same loop with the GPU busy through the writes: not a stall */
	m.gpu_busy_in_checkpoints = 100;
	m.gpu_busy = 80.0 / 82;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "compute_bound");
	CHECK_NEAR(v.accelerator_idle_fraction, 2.0 / 82, 1e-9);
	/* no host I/O: the same compute is compute */
	m.gpu_busy_in_checkpoints = NAN;
	m.host_io_s = m.checkpoint_s = 0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "compute_bound");

	/* hook off: 70% of the run in the main thread's writes, GPU 20% busy */
	m = base();
	m.have_steps = false;
	m.steps = 0;
	m.gpu_busy = 0.2;
	m.checkpoint_s = m.host_io_s = 0.7 * m.duration_s;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "checkpoint_stall");
	CHECK_NEAR(v.accelerator_idle_fraction, 0.8, 1e-9);
	CHECK_NEAR(v.input_bound_fraction, 0.1, 1e-9);
	/* written in the background the checkpoints still take 70% of the run:
	 * that, not the 30% left, is the shortest the run can get */
	CHECK_NEAR(v.predicted_speedup, 1 / 0.7, 1e-9);
	CHECK(v.speedup_cap[0] != '\0');
	m.checkpoint_s = m.host_io_s = 0.2 * m.duration_s;
	m.gpu_busy = 0.76;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "checkpoint_stall");
	CHECK_NEAR(v.predicted_speedup, 1 / 0.8, 1e-9);
	CHECK(v.speedup_cap[0] == '\0');
	m.gpu_busy = 0.2;
	m.checkpoint_s = m.host_io_s = 0;
	v = diagnose(&m);
	CHECK(v.primary != FS_VERDICT_CHECKPOINT_STALL);
	CHECK_NEAR(v.input_bound_fraction, 0.8, 1e-9);
}

/* The loop waits 60%; the loaders' own time (io_classes) says why. */
static struct fs_metrics waiting_loaders(void)
{
	struct fs_metrics m = base();
	waits(&m, 75, 50);
	m.have_classes = true;
	m.loader_time_s = 200;
	m.loader_sock_read_s = m.loader_sock_read_bytes = 0;
	m.loader_file_read_s = m.loader_file_read_bytes = m.loader_meta_s = 0;
	m.loader_majflt = 0;
	m.loader_rchar_bytes = 1e9;
	m.loader_read_bytes = 1e9;
	m.loaders.blocked = 0.02;
	m.loaders.running = 0.08;
	m.loaders.sleeping = 0.9;
	return m;
}

static void test_attribution(void)
{
	/* socket reads: network, whatever the NIC's nominal speed */
	struct fs_metrics m = waiting_loaders();
	m.loader_sock_read_s = 170;
	m.loader_sock_read_bytes = 300e6;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "network");
	CHECK(has_knob(&v, "remote storage"));
	/* the same sleep with no socket: too few loaders */
	m.loader_sock_read_s = 0;
	m.loader_sock_read_bytes = 0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");
	/* asleep (in poll, outside read calls) with their data from sockets:
	 * the wait is on the peer */
	m.loader_sock_read_s = 2;
	m.loader_sock_read_bytes = 300e6;
	m.loader_read_bytes = 1e6;
	m.loader_file_read_bytes = 1e6;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "network");
	/* the same sockets carrying less than the files: still parallelism */
	m.loader_file_read_bytes = 400e6;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");

	/* an mmap'd dataset: D state outside any call, major faults, far more
	 * from storage than through read calls; many new dentries machine-wide
	 * do not make it metadata */
	m = waiting_loaders();
	m.loaders.blocked = 0.85;
	m.loaders.running = 0.05;
	m.loaders.sleeping = 0.1;
	m.loader_file_read_s = 2;
	m.loader_meta_s = 2;
	m.loader_rchar_bytes = 1e6;
	m.loader_read_bytes = 200e6;
	m.loader_majflt = 50000;
	m.dentries_growth = 400000;
	m.disk_req_bytes = 1e6;
	m.disk_util_pct = 96;
	struct fs_loader_shares sh;
	CHECK(fs_loader_shares(&m, &sh));
	CHECK_NEAR(sh.faults, 0.85 - 0.02, 1e-9);
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	/* hook off: a few files opened and hardly a read call (the mapping
	 * does the reading): the opens-per-read count would say metadata, the
	 * loaders' time does not */
	m.have_steps = false;
	m.have_trace = true;
	m.trace_files = 7;
	m.trace_opens = 6;
	m.trace_reads = 1;
	m.trace_read_bytes = 0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	m.have_classes = false; /* an older run file: the count rule */
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "metadata");
	m.have_classes = true;
	m.have_steps = true;
	/* no faults and the bytes came through the calls: D is unexplained */
	m.loader_majflt = 0;
	m.loader_rchar_bytes = 300e6;
	CHECK(fs_loader_shares(&m, &sh));
	CHECK_NEAR(sh.faults, 0, 1e-12);

	/* metadata calls against data reads, by time */
	m = waiting_loaders();
	m.loaders.blocked = 0.8;
	m.loaders.running = 0.05;
	m.loaders.sleeping = 0.15;
	m.disk_req_bytes = 4096;
	m.disk_util_pct = 95;
	m.loader_meta_s = 120;
	m.loader_file_read_s = 30;
	m.have_trace = true; /* the tracer's count of opens corroborates */
	m.trace_files = m.trace_opens = 32000;
	m.trace_reads = 32000;
	m.trace_read_bytes = 32000 * 3000.0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "metadata");
	bool said_opens = false;
	for (int i = 0; i < v.nev; i++)
		said_opens |= !strcmp(v.ev[i].metric, "opens_per_sample");
	CHECK(said_opens);
	m.loader_meta_s = 30;
	m.loader_file_read_s = 120;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	/* and the dentry count that made test_storage metadata decides nothing */
	m.dentries_growth = 40000;
	m.loader_rchar_bytes = 32000 * 3000.0;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");

	/* running: CPU */
	m = waiting_loaders();
	m.loaders.running = 0.9;
	m.loaders.sleeping = 0.08;
	m.loader_file_read_s = 10;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");

	/* without io_classes there is nothing to attribute */
	m.have_classes = false;
	CHECK(!fs_loader_shares(&m, &sh));
	CHECK(isnan(sh.network));
}

static double bucket_sum(const struct fs_accounting *a)
{
	double sum = 0;
	for (int b = 0; b < FS_BUCKET__N; b++)
		sum += a->share[b];
	return sum;
}

static bool has_metric(const struct fs_verdict *v, const char *metric)
{
	for (int i = 0; i < v->nev; i++)
		if (!strcmp(v->ev[i].metric, metric))
			return true;
	return false;
}

/* The accounting: buckets of one process's loop that add up to 1; the
 * trainer chosen by the metrics is the one the verdict speaks for. */
static void test_accounting(void)
{
	struct fs_metrics m = base();
	struct fs_accounting a;
	/* 100 s: 30 s waiting (5 s of it epoch starts), 70 s compute of which
	 * 20 s in collectives and 10 s writing files with the GPU idle; the GPU
	 * busy 30% of the loop's span. */
	struct fs_loop_proc L = {.pid = 7, .rank = 1, .local_rank = 1, .have_steps = true, .steps = 100,
				 .loop_s = 100, .wait_s = 30, .compute_s = 70, .epoch_excess_s = 5,
				 .collective_s = 20, .collectives = 100, .host_io_s = 10, .gpu_busy = 0.3,
				 .gpu_busy_in_host_io = 0};
	CHECK(fs_account(&m, &L, &a));
	CHECK_STR(a.basis, "steps + gpu");
	CHECK_INT(a.rank, 1);
	CHECK_NEAR(a.share[FS_BUCKET_EPOCH], 0.05, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 0.25, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_RANKS], 0.20, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0.10, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_BUSY], 0.30, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_OTHER], 0.10, 1e-9);
	CHECK_NEAR(bucket_sum(&a), 1, 1e-9);
	/* the GPU busy through the writes: that time is busy, not host I/O */
	L.gpu_busy_in_host_io = 100;
	L.gpu_busy = 0.5;
	CHECK(fs_account(&m, &L, &a));
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_BUSY], 0.5, 1e-9);
	CHECK_NEAR(bucket_sum(&a), 1, 1e-9);
	/* a background writer the loop waits on: its write time while the
	 * accelerator idles moves from other to host I/O, at most all of other */
	L.gpu_busy_in_host_io = 0;
	L.gpu_busy = 0.3;
	L.helper_write_s = 6;
	CHECK(fs_account(&m, &L, &a));
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0.16, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_OTHER], 0.04, 1e-9);
	L.helper_write_s = 60;
	CHECK(fs_account(&m, &L, &a));
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0.20, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_OTHER], 0, 1e-9);
	CHECK_NEAR(bucket_sum(&a), 1, 1e-9);
	L.helper_write_s = NAN;
	L.gpu_busy_in_host_io = 100;
	L.gpu_busy = 0.5;
	/* without a GPU signal the writes are host I/O, the rest of compute busy */
	m.have_gpu = false;
	CHECK(fs_account(&m, &L, &a));
	CHECK_STR(a.basis, "steps");
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0.1, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_BUSY], 0.4, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_OTHER], 0, 1e-9);
	/* without steps: the GPU's idle time less the host-I/O bucket is input */
	m.have_gpu = true;
	struct fs_loop_proc N = {.pid = 8, .rank = -1, .local_rank = -1, .loop_s = 100, .host_io_s = 30,
				 .gpu_busy = 0.2, .gpu_busy_in_host_io = NAN};
	CHECK(fs_account(&m, &N, &a));
	CHECK_STR(a.basis, "gpu");
	CHECK_NEAR(a.share[FS_BUCKET_BUSY], 0.2, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_HOST_IO], 0.3, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 0.5, 1e-9);
	CHECK_NEAR(bucket_sum(&a), 1, 1e-9);
	/* nothing to go on */
	m.have_gpu = false;
	CHECK(!fs_account(&m, &N, &a));
	CHECK(isnan(a.share[FS_BUCKET_BUSY]));

	/* Two ranks: rank 1 waits for its data, rank 0 waits for rank 1 in the
	 * collective; the metrics made rank 1 the trainer (loops[0]). */
	m = base();
	waits(&m, 80, 20);
	m.loaders = (struct fs_states){.blocked = 0.7, .running = 0.1, .sleeping = 0.2, .cpu_cores = 0.1,
				       .samples = 1200, .procs = 2};
	m.disk_util_pct = 99;
	m.nloops = 2;
	m.loops[0] = (struct fs_loop_proc){.pid = 11, .rank = 1, .local_rank = 1, .have_steps = true, .steps = 1000,
					   .loop_s = 100, .wait_s = 80, .compute_s = 20, .collective_s = 1,
					   .collectives = 1000, .gpu_busy = 0.19, .gpu_busy_in_host_io = NAN};
	m.loops[1] = (struct fs_loop_proc){.pid = 10, .rank = 0, .local_rank = 0, .have_steps = true, .steps = 1000,
					   .loop_s = 100, .wait_s = 1, .compute_s = 99, .collective_s = 80,
					   .collectives = 1000, .gpu_busy = 0.19, .gpu_busy_in_host_io = NAN};
	m.trainer = 0;
	m.trainer_pid = 11;
	struct fs_verdict v = diagnose(&m);
	CHECK_INT(v.nacct, 2);
	CHECK_INT(v.trainer, 0);
	CHECK_INT(v.acct[0].rank, 1);
	CHECK_NEAR(v.acct[1].share[FS_BUCKET_RANKS], 0.80, 1e-9);
	CHECK_NEAR(v.input_bound_fraction, 0.80, 1e-9);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	/* A background checkpoint writer the loop waits on: 6 s of the 10 s
	 * loop in its other threads' writes, the GPU idle then: a stall whose
	 * fix is the storage's write rate (it is asynchronous already). */
	struct fs_metrics b = base();
	waits(&b, 1, 9);
	b.steps = 1000;
	b.gpu_busy = 0.3;
	b.nloops = 1;
	b.trainer = 0;
	b.loops[0] = (struct fs_loop_proc){.pid = 5, .rank = -1, .local_rank = -1, .have_steps = true, .steps = 1000,
					   .loop_s = 10, .wait_s = 1, .compute_s = 9, .host_io_s = 0, .write_sync_s = 0,
					   .helper_write_s = 6, .gpu_busy = 0.3, .gpu_busy_in_host_io = NAN};
	v = diagnose(&b);
	CHECK_STR(fs_verdict_name(v.primary), "checkpoint_stall");
	CHECK_NEAR(v.acct[0].share[FS_BUCKET_HOST_IO], 0.6, 1e-9);
	const struct fs_recommendation *ck = knob(&v, "checkpointing");
	CHECK(ck && strstr(ck->suggested, "faster storage") && !strstr(ck->suggested, "asynchronously"));
	CHECK_NEAR(v.predicted_speedup, 1 / 0.4, 1e-9);
	/* the same writes on the loop's own thread: make them asynchronous */
	b.loops[0].host_io_s = b.loops[0].write_sync_s = 6;
	b.loops[0].helper_write_s = 0;
	v = diagnose(&b);
	ck = knob(&v, "checkpointing");
	CHECK(ck && strstr(ck->suggested, "asynchronously"));
	CHECK_NEAR(v.predicted_speedup, 1 / 0.6, 1e-9);

	/* the same job seen from rank 0 as trainer: its biggest idle bucket is
	 * the wait on the others, which no cause names */
	m.trainer = 1;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "undetermined");
	CHECK(has_metric(&v, "largest_idle_bucket"));
}

/* A storage-bound job whose limit the saturation shares name (issue 29):
 * the verdict follows the measured limit, not the request size. */
static struct fs_metrics storage_bound(void)
{
	struct fs_metrics m = base();
	waits(&m, 75, 50);
	m.loaders.blocked = 0.8;
	m.loaders.running = 0.1;
	m.loaders.sleeping = 0.1;
	m.disk_util_pct = 95;
	m.psi_io = 70;
	struct fs_saturation *s = &m.sat;
	memset(s, 0, sizeof *s);
	s->have = true;
	s->steps = true;
	s->wait_s = 75;
	for (int i = 0; i < FS_LIMIT__N; i++)
		s->ceiling[i] = s->share[i] = s->level[i] = NAN;
	return m;
}

static void set_limit(struct fs_metrics *m, enum fs_limit named, double share, enum fs_limit runner)
{
	struct fs_saturation *s = &m->sat;
	s->named = named;
	s->runner = runner;
	s->share[named] = share;
	s->share[runner] = 1 - share;
}

static void test_saturation(void)
{
	/* large requests, the IOPS ceiling reached: latency (IOPS), and no
	 * more reads in flight */
	struct fs_metrics m = storage_bound();
	m.disk_req_bytes = 128 * 1024;
	m.sat.ceiling[FS_LIMIT_IOPS] = 70;
	snprintf(m.sat.source[FS_LIMIT_IOPS], sizeof m.sat.source[0], "cgroup read limit on vda");
	set_limit(&m, FS_LIMIT_IOPS, 0.93, FS_LIMIT_NONE);
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	CHECK(has_metric(&v, "limit_share"));
	CHECK(has_metric(&v, "limit_runner_up_share"));
	CHECK(!has_knob(&v, "num_workers"));
	CHECK(has_knob(&v, "access pattern"));

	/* small requests, the byte ceiling reached: bandwidth */
	m = storage_bound();
	m.disk_req_bytes = 4096;
	m.sat.ceiling[FS_LIMIT_BYTES] = 12e6;
	set_limit(&m, FS_LIMIT_BYTES, 0.81, FS_LIMIT_NONE);
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");

	/* below every ceiling, with the device's ceilings known: latency, and
	 * more reads in flight are offered */
	m = storage_bound();
	m.disk_req_bytes = 1 << 20;
	m.sat.ceiling[FS_LIMIT_BYTES] = 2e9;
	m.sat.ceiling[FS_LIMIT_IOPS] = 5e5;
	set_limit(&m, FS_LIMIT_NONE, 0.9, FS_LIMIT_BYTES);
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_latency");
	CHECK(has_knob(&v, "num_workers"));

	/* below the only known ceiling: not decided by saturation, the request
	 * size rule stands (1 MiB: bandwidth) */
	m.sat.ceiling[FS_LIMIT_IOPS] = NAN;
	m.sat.share[FS_LIMIT_IOPS] = NAN;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "storage_bandwidth");
	CHECK(!has_metric(&v, "limit_share"));

	/* metadata named only with the tracer's call times */
	m = storage_bound();
	set_limit(&m, FS_LIMIT_METADATA, 0.7, FS_LIMIT_IOPS);
	m.sat.ceiling[FS_LIMIT_IOPS] = 400;
	v = diagnose(&m);
	CHECK(strcmp(fs_verdict_name(v.primary), "metadata") != 0); /* no io_classes: not named */
}

/* Under the input-wait floor (10%) nothing in the loader is worth a
 * change: compute_bound, no recommendation, even with the loaders asleep. */
static void test_floor(void)
{
	struct fs_metrics m = base();
	waits(&m, 4, 50); /* 7.4% waiting */
	m.loaders.sleeping = 0.9;
	m.loaders.running = 0.05;
	m.loaders.blocked = 0.05;
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "compute_bound");
	CHECK_INT(v.nrec, 0);
	CHECK_INT(v.nfind, 0);
	waits(&m, 7, 50); /* 12%: above it, the loaders' sleep is the cause */
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");
	CHECK(has_knob(&v, "num_workers"));
}

/* The workers sleep because the training process itself works inside
 * next() (its CPU while it waits, load/mainwait.c): main_process, never
 * more workers; its own what-if. The same sleeping workers with the
 * training process asleep too: loader_parallelism, as before. */
static void test_main_process(void)
{
	struct fs_metrics m = base();
	waits(&m, 150, 50);
	m.num_workers = 3;
	m.loaders.sleeping = 0.95;
	m.loaders.running = 0.04;
	m.loaders.blocked = 0.01;
	m.main_wait_cores = 0.9;
	m.main_compute_cores = 0.05;
	m.main_wait_basis = "steps";
	struct fs_verdict v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "main_process");
	CHECK(knob(&v, "num_workers") == NULL);
	CHECK(knob(&v, "sampler / collate_fn / batch contents") != NULL);
	bool said = false;
	for (int i = 0; i < v.nev; i++)
		said |= !strcmp(v.ev[i].metric, "main_cpu_in_wait_cores") && fabs(v.ev[i].value - 0.9) < 1e-9;
	CHECK(said);
	/* its work halved: 0.9 of the 150 ms wait is its own, half of that
	 * gone: a step of 200 - 67.5 = 132.5 ms, 1.51x, then the training
	 * process's own work still */
	const struct fs_recommendation *r = knob(&v, "sampler / collate_fn / batch contents");
	if (r) {
		CHECK_NEAR(r->speedup, 200 / (200 - 150 * 0.9 * 0.5), 1e-6);
		CHECK(strstr(r->then, "the training process's own work") == r->then);
	}
	/* the training process asleep while it waits: not its own work */
	m.main_wait_cores = 0.1;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");
	/* not told apart (NaN): not named */
	m.main_wait_cores = NAN;
	v = diagnose(&m);
	CHECK_STR(fs_verdict_name(v.primary), "loader_parallelism");
}

/* Phases: each candidate stretch diagnosed on its own; neighbours with one
 * cause, or a close call between two, are one phase. */
static void test_phases(void)
{
	struct fs_metrics seg[3];
	for (int k = 0; k < 3; k++) {
		seg[k] = base();
		waits(&seg[k], 50, 50);
	}
	/* 0: storage-bound loaders, 1 and 2: CPU-bound */
	seg[0].loaders.blocked = 0.8;
	seg[0].loaders.running = 0.1;
	seg[0].loaders.sleeping = 0.1;
	seg[0].disk_util_pct = 95;
	seg[0].disk_read_bytes_per_s = 100e6;
	seg[0].disk_req_bytes = 512 * 1024;
	for (int k = 1; k < 3; k++) {
		seg[k].loaders.running = 0.9;
		seg[k].loaders.blocked = 0.02;
		seg[k].loaders.sleeping = 0.08;
		seg[k].loaders.cpu_cores = 1.0;
		seg[k].cpu_busy_pct = 30;
	}
	struct fs_phase_cands c = {.n = 3};
	c.span[0] = (struct fs_phase_span){0, 10, 0, 0};
	c.span[1] = (struct fs_phase_span){10, 20, 1, 2};
	c.span[2] = (struct fs_phase_span){20, 40, 3, 6};
	snprintf(c.method, sizeof c.method, "at epoch starts");
	struct fs_verdict v = diagnose(&seg[1]);
	fs_phases(&c, &seg[1], seg, &fs_thresholds, &v);
	CHECK_INT(v.nphases, 2);
	CHECK_STR(fs_verdict_name(v.phase[0].primary), fs_verdict_name(diagnose(&seg[0]).primary));
	CHECK(v.phase[0].primary != FS_VERDICT_CPU_PREPROCESS);
	CHECK_STR(fs_verdict_name(v.phase[1].primary), "cpu_preprocess");
	/* the two CPU stretches joined: epochs 1-6, 10 s to 40 s, the steady state */
	CHECK_NEAR(v.phase[1].start_s, 10, 1e-9);
	CHECK_NEAR(v.phase[1].end_s, 40, 1e-9);
	CHECK_INT(v.phase[1].first_epoch, 1);
	CHECK_INT(v.phase[1].last_epoch, 6);
	CHECK_INT(v.steady, 1);
	/* one cause throughout: one phase, the whole run's */
	seg[0] = seg[1];
	fs_phases(&c, &seg[1], seg, &fs_thresholds, &v);
	CHECK_INT(v.nphases, 1);
	CHECK_NEAR(v.phase[0].end_s, 40, 1e-9);
	/* no candidates sought: no phases */
	struct fs_phase_cands none = {0};
	fs_phases(&none, &seg[1], NULL, &fs_thresholds, &v);
	CHECK_INT(v.nphases, 0);
}

int main(void)
{
	test_saturation();
	test_floor();
	test_accounting();
	test_host_io();
	test_attribution();
	test_compute_bound();
	test_storage();
	test_tracer_metadata();
	test_cpu();
	test_parallelism();
	test_checkpoint_and_epochs();
	test_no_steps();
	test_main_process();
	test_phases();
	return check_exit("test_verdict");
}
