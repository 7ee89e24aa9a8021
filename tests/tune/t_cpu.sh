# cpu: CPU-bound transforms under a 2-core quota. Warm data; each sample
# burns DECODE_MS of its worker's own CPU (train.py --decode-ms: a busy loop
# on thread_time, so a throttled or shared core makes it slower, as a real
# decode would be); a batch of BATCH is 80 ms of CPU, a step computes 10 ms;
# the job's cpu cgroup has a quota of CORES cores (cpu.cfs_quota_us), and
# the largest weight (cpu.shares), so that what else runs on the machine
# does not take its cores: the quota is what the job gets. One worker: a
# step takes ~80 ms and one core idles.
# The optimum by construction: as many workers as the quota has cores (2:
# ~40 ms a step, still CPU-bound), not more: 4 workers share the same 2
# cores (held back by the quota, or here by the 2 cores), not faster. "The
# optimum" is the cheapest setting within 3% of the fastest (tune's own
# rule: a gain under 3% is no gain): num_workers = CORES. On this 2-core VM
# the quota is also the machine; on a larger one the quota alone makes it 2.
# Truth (TUNE_TRUTH=1): the job alone at 1, 2, 4 and 8 workers, with the
# kernel's throttling counters and CPU use (cpuacct), over 160 steps after
# 16 (W workers started together stay in step: their batches arrive W at a
# time, so the window is a whole number of such bursts, past the first
# ones; the counters also hold the interpreter's start): 1 worker uses one
# core, 2 or more fill the quota; on a machine with more cores than the
# quota, 4 and 8 are throttled (here the 2 cores are the machine's too:
# never throttled, the cores themselves are full). Each setting runs twice
# and counts by its faster run: 2 and 4 workers are equal by construction,
# and on a shared 2-core machine another program's burst during one run
# makes it ~3% slower, enough to tip the 3% rule.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=40 # a baseline trial's steps last >= 3 s (what a verdict needs)

CORES=2 BATCH=4 DECODE_MS=20 COMPUTE_MS=10
result optimum "num_workers=$CORES"

mount_data
warm "$DATA/npy"
cgroup cpu cpuacct
cg_set cpu cpu.cfs_period_us 100000
cg_set cpu cpu.cfs_quota_us $((CORES * 100000))
cg_set cpu cpu.shares 262144
JOB=(--data "$DATA/npy" --format npy --samples 640 --epochs 4 --batch "$BATCH" --decode-ms "$DECODE_MS"
	--compute-ms "$COMPUTE_MS" --workers 1)

if truth; then
	for w in 1 2 4 8 1 2 4 8; do
		TRUTH_WARMUP=16 TRUTH_STEPS=160 truth_run w$w --workers $w
		if [ $w = 1 ]; then
			need "kc_cores <= 1.2" "one worker, one core"
			need "job_wait >= 0.6" "CPU-bound input"
		else
			need "kc_cores >= $(awk -v c=$CORES 'BEGIN { print 0.8 * c }')" "$w workers fill the quota"
			[ "$(nproc)" -gt $CORES ] && [ $w -gt $CORES ] && need "kc_throttled >= 20" "$w workers run into the quota"
		fi
	done
	truth_optimum w1 w2 w4 w8
	result truth "$(truth_line w1 w2 w4 w8)"
	[ "$OPT" = w$CORES ] || die "the truth's optimum is ${OPT#w} workers, the construction's $CORES"
fi
tune_too || { result status PASS; exit 0; }

tune_run tune
physical tune
show wait_share wk_R wk_cpu cg_quota cg_throttled cpu_busy disk_util
need "wait_share >= 0.6" "the baseline waits for its one worker"
need "wk_R >= 0.8" "the worker is on a CPU"
need "cg_quota >= $CORES" "the quota"
need "cg_quota <= $CORES" "the quota"
need "disk_util <= 5" "storage idle"
need "cpu_busy <= 75" "one core spare (not busy with something else on the machine)"
judge tune \
	--want "stopped in converged,budget" "past the cores a worker gains nothing" \
	--want "best.knobs.num_workers == $CORES" "workers = the quota's cores, not more" \
	--want "cheapest.num_workers == $CORES" "in tune's own trials too, the cheapest within 3% of the fastest"
