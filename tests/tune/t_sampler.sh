# sampler: input wait that no loader setting relieves, which the verdict
# reads as the loaders' (issue 30: "found num_workers=6 with a measured
# speedup of 1.0x"). Warm data; 2 persistent workers that load a batch in a
# few ms; the sampler (train.py --main-sleep-ms) sleeps MAIN_MS for each
# index it draws, in the training process, where a DataLoader's sampler
# runs whatever its workers: BATCH x MAIN_MS = 32 ms of every step is spent
# inside the loader's __next__, then a step computes COMPUTE_MS = 20 ms.
# The loop waits ~60% of its time while the workers sleep with their queue
# full, so the baseline's verdict asks for more workers (loader_parallelism);
# they cannot help: the indices are drawn one by one in the training
# process.
# The optimum by construction: the job's own settings. Tune may try what
# the verdict points to; the trial measures no gain that holds (the job's
# own clock agrees, judge.py --clock; alone, 6 workers are ~1% faster than
# 2: the hand-over overlaps a little more), and tune must recommend no
# change (a trial a few % faster by the machine's noise is checked against
# a second run of the baseline first).
# Truth (TUNE_TRUTH=1): the job alone at 2, 6 and 8 workers: none more than
# 3% faster than the baseline's 2.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=60 # a baseline trial's steps last >= 3 s (what a verdict needs)

BATCH=16 MAIN_MS=2 COMPUTE_MS=20
result optimum "no change (the wait is the training process's)"

mount_data
warm "$DATA/npy"
JOB=(--data "$DATA/npy" --format npy --samples 640 --epochs 10 --batch "$BATCH" --main-sleep-ms "$MAIN_MS"
	--compute-ms "$COMPUTE_MS" --workers 2 --persistent --step-ends)

if truth; then
	for w in 2 6 8 2 6 8; do truth_run w$w --workers $w; done # each twice, by its faster run (the cpu test's reason)
	truth_optimum w2 w6 w8
	result truth "$(truth_line w2 w6 w8)"
	[ "$OPT" = w2 ] || die "the truth's optimum is ${OPT#w} workers, the construction's the baseline's 2"
fi
tune_too || { result status PASS; exit 0; }

tune_run tune
physical tune
show wait_share job_wait_share wk_cpu verdict cpu_busy
need "wait_share >= 0.5" "the loop waits (feedscope's steps)"
need "job_wait_share >= 0.5" "the loop waits (the job's own clock)"
need "wk_cpu <= 20" "the workers mostly sleep: their queue is full"
judge tune --clock \
	--want "stopped in converged,no_knob_helps,budget" "no setting gains" \
	--want "recommend == false" "no change: the wait is the sampler's, in the training process"
