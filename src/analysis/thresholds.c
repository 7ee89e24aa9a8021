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
	/* Memory (judge/memory.c). A worker's own start-up (the interpreter
	 * touched after fork, batch buffers) and the batches the trainer maps
	 * add memory that is no leak: the numpy-index scenario (3 workers,
	 * 500 steps) added 52 MiB by its own account, 85 MiB as feedscope
	 * measures it; copy-on-read adds the size of the dataset's Python
	 * objects per worker (pytorch/pytorch#13246; issue 37: 260 MiB each
	 * in 8 s; the mem_cor scenario 280-350 MiB). A fifth of the job's
	 * memory and 128 MiB keep the first a non-finding. */
	.mem_growth_share = 0.20,
	.mem_growth_min_bytes = 128.0 * 1024 * 1024,
	/* tmpfs refuses a page past its size and the worker that maps it dies
	 * of SIGBUS ("DataLoader worker ... killed by signal: Bus error"); a
	 * quarter kept for batches larger than the mean and other users. */
	.shm_full_share = 0.75,
	/* The OOM killer acts at the limit; a fifth kept for later epochs'
	 * growth and the page cache the data reads need (Kubernetes evicts
	 * before the limit too). */
	.mem_headroom_min = 0.20,
	/* A decode/augment loop spends under 10% of its CPU in the kernel;
	 * the copy-on-read job of issue 37 spent 50%. A copy-on-write fault
	 * copies 4 KiB in a few microseconds: 20 000 faults a second of
	 * kernel time are a tenth of it or more. */
	.page_copy_sys_share = 0.30,
	.page_copy_faults_per_sys_s = 20000,
	/* Stalls. A step's time varies by a few times at most in a healthy
	 * loop (an epoch's first step with its workers' start-up, a
	 * checkpoint, a validation pass: the scenario suite's jobs, 2-8x
	 * their median); 20x is none of those. 60 s: PyTorch's own
	 * DataLoader timeout is off by default and users report hangs of
	 * minutes to hours (issue 39: pytorch/pytorch#1355, 23 h silent in
	 * RolnickLab/ami-data-companion#140); a minute of nothing is past
	 * any step of a healthy loop with a short step. 300 s at start-up:
	 * loading a model, indexing a dataset, compiling (torch.compile
	 * takes minutes on large models) come before the first step. */
	.hang_step_multiple = 20,
	.hang_floor_s = 60,
	.hang_startup_s = 300,
	/* NVML's utilisation is the share of its sample period (1/6 s to
	 * 1 s) in which a kernel ran: an idle device reads 0, a loop that
	 * launches anything reads more than a few percent. */
	.hang_device_busy_pct = 5,
	/* A training loop on the CPU keeps its process busy; a process that
	 * waits for batches (poll on the workers' queues every 5 s) uses
	 * under 1%. Half a core is neither. */
	.hang_main_cpu_pct = 50,
	/* Oversubscription (judge/threads.c). A worker whose only threads
	 * beside its main one are its queue's feeder and pin helpers has
	 * none of them at work (the oversub scenario's fix run, one thread a
	 * worker: 0.00); one OpenMP pool thread at work with it gives 1.0 (the
	 * oversub run: 1.00): half a thread is between. */
	.oversub_pool_threads = 0.5,
	/* A CPU-bound pipeline of one thread per core plus the trainer's own
	 * thread wants C + 1 CPUs of C: 1.5x at 2 cores, less beyond; half
	 * again as many runnable threads as cores is past it. */
	.oversub_ratio = 1.5,
	/* R runnable threads on C cores wait on a run queue 1 - C/R of the
	 * time under a fair scheduler: a third at 1.5x. A quarter leaves room
	 * for its unfairness, and keeps threads that want a CPU only in
	 * bursts that do not collide out. */
	.oversub_wait_share = 0.25,
	/* A fifth of the workers' time: twice a stage's even share in the
	 * issue's ten-stage pipeline (issue 39: 10 x 1 ms), and the least
	 * whose removal alone gives 1.25x to a CPU-bound loader (1 / 0.8). */
	.stage_named_share = 0.20,
	/* libjpeg's DCT scaling (PIL's Image.draft, decode_jpeg at a reduced
	 * size) decodes at 1/2 to 1/8 of the size for a fraction of the work;
	 * half the stage's CPU left is the conservative end. */
	.stage_fix_left = 0.5,
};
