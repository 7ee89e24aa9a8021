# threads: threads fighting for the cores (issue 39 item 2; the oversub
# scenario's job). Two workers on the machine's 2 cores, each sample 8
# products of a 128x128 matrix on torch's intra-op threads, which each
# worker sets to the 2 cores in its own worker_init_fn (train.py
# --worker-threads 2): 2 x 2 pool threads + the trainer on 2 cores, the
# OpenMP pool's threads spinning at each barrier for a sibling that waits
# for a CPU. A batch of BATCH, a step computes COMPUTE_MS.
# The optimum by construction: one thread per worker (the verdict is
# cpu_preprocess with the oversubscription finding, whose fix is its first
# recommendation: worker_threads=1, torch.set_num_threads(1) after the
# job's own worker_init_fn). More workers do not help: the cores are full.
# Truth (TUNE_TRUTH=1): the job alone with 2 and with 1 thread per worker
# (its own --worker-threads), each twice, counted by its faster run.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=30

BATCH=4 COMPUTE_MS=20
result optimum "worker_threads=1"

mount_data
warm "$DATA/npy"
JOB=(--data "$DATA/npy" --format npy --samples 2000 --epochs 1 --batch "$BATCH" --workers 2 --matmul-n 128
	--matmul-ops 8 --compute-ms "$COMPUTE_MS" --worker-threads 2 --step-ends)

if truth; then
	for r in 1 2; do
		truth_run t2 --worker-threads 2
		truth_run t1 --worker-threads 1
	done
	truth_optimum t1 t2
	result truth "$(truth_line t1 t2)"
	[ "$OPT" = t1 ] || die "the truth's optimum is $OPT, the construction's one thread per worker"
fi
tune_too || { result status PASS; exit 0; }

tune_run tune
physical tune
show wait_share cpu_busy wk_cpu wk_R disk_util
need "wait_share >= 0.5" "the baseline waits for its workers"
need "cpu_busy >= 85" "the cores are full"
judge tune --clock \
	--want "stopped in converged,budget,no_knob_helps" "the search ends" \
	--want "best.knobs.worker_threads == 1" "one thread per worker: the oversubscription finding's fix" \
	--want "recommend == true" "the gain is the construction's, beyond the noise" \
	--want "best.speedup >= 1.3" "at least 1.3x: the pools' spinning gone"
