# latency: per-sample latency without CPU, one worker. Each sample waits
# LAT_MS for a remote service (a sleep: no CPU, no disk) on warm data; one
# worker builds a batch of BATCH in BATCH x LAT_MS = 64 ms, a step computes
# COMPUTE_MS = 20 ms, so the loop waits ~3/4 of its time (Python adds ~0.7 ms
# a sample).
# The optimum by construction: enough workers that a batch is ready when a
# step ends, workers x compute >= batch x latency: WMIN = ceil(64/20) = 4
# workers (2 are clearly too few; the verdict's num_workers suggestion,
# W x step / compute, points there from the baseline);
# the step is then the compute, a speedup of at least 64/20 = 3.2x. More
# workers than WMIN cost no time (they sleep).
# The job's own clock (train.py --step-ends, in each trial's log): every
# trial's step time and the best's speedup must be the job's own over the
# same steps (judge.py --clock), and the speedup is a recommendation.
# Truth (TUNE_TRUTH=1): the job alone at 1, 2, 4 and 8 workers.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=40 # a baseline trial's steps last >= 3 s (what a verdict needs)

BATCH=16 LAT_MS=4 COMPUTE_MS=20
WMIN=$(((BATCH * LAT_MS + COMPUTE_MS - 1) / COMPUTE_MS))
BUILT=$(awk -v b=$BATCH -v l=$LAT_MS -v c=$COMPUTE_MS 'BEGIN { printf "%.2f", b * l / c }')
result optimum ">=$WMIN workers"

mount_data
warm "$DATA/npy"
JOB=(--data "$DATA/npy" --format npy --samples 1280 --epochs 4 --batch "$BATCH" --item-sleep-ms "$LAT_MS"
	--compute-ms "$COMPUTE_MS" --workers 1 --step-ends)

if truth; then
	for w in 1 2 4 8; do truth_run w$w --workers $w; done
	truth_optimum w1 w2 w4 w8
	result truth "$(truth_line w1 w2 w4 w8)"
	opt=${OPT#w}
	[ "$opt" -ge "$WMIN" ] || die "the truth's optimum is $opt workers, the construction's >= $WMIN"
fi
tune_too || { result status PASS; exit 0; }

tune_run tune
physical tune
show wait_share cpu_busy wk_cpu wk_R disk_util
need "wait_share >= 0.6" "the baseline waits for its one worker"
need "wk_cpu <= 20" "the worker mostly sleeps"
judge tune --clock \
	--want "stopped in converged,budget" "more workers keep paying until the wait is gone" \
	--want "recommend == true" "the gain is the construction's, far beyond the noise" \
	--want "best.knobs.num_workers >= $WMIN" "workers x compute >= batch x latency" \
	--want "best.speedup >= $(awk -v b="$BUILT" 'BEGIN { printf "%.2f", 0.8 * b }')" \
	"80% of the construction's ${BUILT}x (step = compute)" \
	--want "besttrial.wait_share <= 0.15" "at the optimum the wait is gone"
