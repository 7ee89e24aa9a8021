# epochs: many short epochs, slow worker start. Warm data; 2 workers, not
# persistent, whose start takes INIT_MS (a slow worker_init_fn, as opening a
# database or loading an index would); an epoch is 10 steps of 8 samples, a
# step computes 20 ms: each epoch first waits ~0.5 s for its workers, then
# runs ~0.2 s of steps. A trial's timed steps (5..50) cross 4 or 5 epoch
# starts: ~70 ms a step on average.
# The optimum by construction: persistent_workers=True (the workers start
# once, in the warm-up: ~20 ms a step, ~3x). More workers do not help: they
# start side by side, each as slow.
# Truth (TUNE_TRUTH=1): the job alone with 2 and 4 workers, persistent or not.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=45 # a baseline trial's steps last >= 3 s (what a verdict needs)

INIT_MS=500
result optimum "persistent_workers=True"

mount_data
warm "$DATA/npy"
JOB=(--data "$DATA/npy" --format npy --samples 80 --epochs 50 --batch 8 --init-sleep-ms "$INIT_MS"
	--compute-ms 20 --workers 2)

if truth; then
	truth_run w2 --workers 2
	need "job_wait >= 0.5" "input-bound"
	need "job_first_wait >= 0.9" "the wait is at epoch starts"
	truth_run w4 --workers 4
	truth_run w2p --workers 2 --persistent
	truth_run w4p --workers 4 --persistent
	truth_optimum w2 w4 w2p w4p
	result truth "$(truth_line w2 w4 w2p w4p)"
	case $OPT in *p) ;; *) die "the truth's optimum $OPT is not persistent: the construction is wrong" ;; esac
fi
tune_too || { result status PASS; exit 0; }

tune_run tune
physical tune
show wait_share first_wait_frac epochs gpu_util cpu_busy
need "wait_share >= 0.5" "input-bound"
need "first_wait_frac >= 0.9" "the wait is at epoch starts"
need "epochs >= 3" "several epochs in a trial"
judge tune \
	--want "stopped in converged,budget" "tune tried persistent workers and saw the gain" \
	--want "best.knobs.persistent_workers == true" "workers that outlive the epoch start once" \
	--want "best.speedup >= 2" "4 epoch starts of 0.5 s in 45 steps of 20 ms: ~3x"
