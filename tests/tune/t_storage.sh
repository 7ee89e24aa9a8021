# storage: sequential whole-file reads at the storage's throttled ceiling.
# 1 MiB files read whole (train.py --format bin), cold: a fresh mount, and
# the job evicts its files from the page cache as it starts (--evict), so
# every trial is cold, as a dataset far larger than memory would be. The
# job's reads are limited to BPS bytes/s by a blkio read_bps rule on the
# disk under the loop device; a batch of 4 (4 MiB: ~105 ms at 40 MB/s), a
# step computes 20 ms, 2 workers: the loop waits ~80% of its time, and the
# device is full.
# The optimum by construction: the baseline. No loader knob makes the device
# deliver more bytes: tune must stop after its baseline trial with
# "no_knob_helps", the best being the baseline.
# Truth (TUNE_TRUTH=1): the job alone at 1, 2, 4 and 8 workers, each cold
# (a fresh mount), over 80 steps (batches from 8 workers arrive in bursts:
# a short window would see the phase of a burst): no setting is more than 3%
# faster than the baseline's 2 workers.
. "$FS_TOP/tests/tune/lib.sh"
TUNE_STEPS=35 # a baseline trial's steps last >= 3 s (what a verdict needs)

BPS=40000000
result optimum "the baseline (no_knob_helps)"

# setup: the dataset freshly mounted (cold), behind the read limit
setup() {
	teardown
	mount_data
	cgroup blkio
	read_limit bps $BPS
	cold
}
JOB_ARGS() {
	JOB=(--data "$DATA/big" --format bin --samples 400 --epochs 2 --batch 4 --compute-ms 20 --workers 2 --evict)
}

if truth; then
	for w in 2 1 4 8; do
		setup
		JOB_ARGS
		TRUTH_WARMUP=10 TRUTH_STEPS=80 truth_run w$w --workers $w
		need "job_read_mbps >= 30" "reads at the limit (40 MB/s)"
		need "job_read_mbps <= 44" "reads at the limit (40 MB/s)"
		need "job_wait >= 0.6" "input-bound"
	done
	truth_optimum w1 w2 w4 w8
	result truth "$(truth_line w1 w2 w4 w8)"
	awk -v f="$FASTEST" -v b="$(truth_step w2)" \
		'BEGIN { exit !(b <= f * 1.03) }' ||
		die "the truth has a setting more than 3% faster than the baseline's: the construction is wrong"
fi
tune_too || { result status PASS; exit 0; }

setup
JOB_ARGS
tune_run tune
physical tune
show wait_share disk_mbps disk_util disk_req_kib wk_D wk_R cpu_busy
need "wait_share >= 0.6" "input-bound"
need "disk_mbps >= 30" "reads at the limit (40 MB/s)"
need "disk_mbps <= 44" "reads at the limit (40 MB/s)"
need "disk_util >= 80" "the device is saturated"
need "wk_D >= 0.5" "workers blocked in I/O"
judge tune \
	--want "stopped == no_knob_helps" "bandwidth at the device's ceiling: no loader knob helps" \
	--want "ntrials == 1" "stop at once: the baseline only" \
	--want "best.trial == 0" "the best is the baseline"
