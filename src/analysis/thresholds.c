/* thresholds.c - the one table of diagnosis thresholds (docs/verdicts.md). */
#include "analysis/thresholds.h"

const struct fs_thresholds fs_thresholds = {
	.input_bound_min = 0.05,      /* TF profiler: < 5% of step time waiting is not input-bound */
	.input_bound_high = 0.20,     /* TF profiler: >= 20% is highly input-bound */
	.input_wait_floor = 0.10,     /* MLPerf Storage: accelerator utilization >= 90% passes */
	.ceiling_saturated = 0.80,    /* iostat/USE practice: >= 80% of capacity queues; throttled reads run at 90-100% of their cap */
	.metadata_time_major = 0.5,   /* most of the loaders' storage time */
	.finding_min_share = 0.05,
	.loader_blocked_io = 0.30,
	.loader_running = 0.50,
	.loader_idle = 0.60,
	.cpu_saturated_pct = 85,
	.cgroup_throttled_pct = 10,
	.psi_io_stalled_pct = 20,
	.psi_mem_stalled_pct = 10,
	.disk_busy_pct = 80,
	.large_request_bytes = 64 * 1024,
	.opens_per_sample = 0.5,
	.small_sample_bytes = 64 * 1024,
	.mem_limit_full = 0.90,
	.mem_available_low = 0.05,
	.reread_ratio = 0.5,
	.nic_saturated = 0.80,
	.nfs_rtt_slow_ms = 10,
	/* Synchronous data parallelism (DDP, Horovod): the gradients' all_reduce
	 * releases every rank at once, so step ends differ by the collective's
	 * own latency (well under a tenth of a step); ranks that do not
	 * synchronize end their steps at unrelated times (a quarter of a step
	 * apart on average). A window or a restart may cut a few steps. */
	.step_sync_skew = 0.10,
	.step_sync_match = 0.90,
	/* Issue 13 ("it stops when a step gains < 3%"); two runs of one
	 * setting differ by up to 3% on the 2-core test VM (docs/tune.md gives
	 * the runs). */
	.tune_min_gain = 0.03,
	/* Two standard errors: a gain that large comes from noise alone in
	 * about 2% of comparisons (one-sided, normal errors). */
	.tune_noise_z = 2.0,
	/* 30 samples put a sampled share of 0.5 within about +-0.09 (one
	 * standard error of a binomial share at 30). */
	.tune_min_samples = 30,
	/* A share read from thread states counts threads: one thread of a
	 * process's ~50 (a PyTorch worker: its pools and helpers) moves a
	 * tick's share by 0.02; a change of the level under that is not
	 * resolved by the samples. */
	.phase_noise_floor = 0.02,
	/* Under half, a verdict is nearer a coin toss between its cause and
	 * another than a finding (section 3 of docs/verdicts.md: confidence is
	 * the basis's weight times half to all of the margin over the
	 * runner-up): a stretch judged that way is noise around its
	 * neighbour, not a change of the bottleneck. */
	.phase_min_confidence = 0.5,
};
