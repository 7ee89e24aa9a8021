# epoch_start: each epoch starts with a long stall. Two non-persistent
# workers (persistent_workers=False) whose start takes 1 s (a slow
# worker_init_fn, as opening a database or loading an index would), and
# short epochs (20 steps of 20 ms, warm data): every epoch waits for its
# workers again, and between epochs the loop does not wait at all.
# Run with the hook off by its twin s_nohook_epoch_start.sh: there the
# boundaries are seen from the workers' restarts alone.
. "$FS_TOP/tests/scenarios/lib.sh"
expect epoch_start job_b_input
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 160 --epochs 6 --batch 8 --workers 2 \
	--init-sleep-ms 1000 --compute-ms 20
DEVICE=$DATA_DEV verdict run
twin_check
# the job's own share of its wait spent in each epoch's first step, and its epochs
EV[job_first_wait_frac]=$(grep '^train: ' "$S/run.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["wait_s"] > 0) printf "%.4f", v["first_wait_s"] / v["wait_s"]; else print "nan" }')
EV[job_epochs]=$(grep '^train: ' "$S/run.out" | tail -1 | sed -n 's/.* epochs=\([0-9]*\).*/\1/p')
show job_b_input job_first_wait_frac job_epochs wait_share gpu_util cpu_busy disk_util
need "job_b_input >= 0.5" "input-bound"
need "job_first_wait_frac >= 0.9" "the wait is at epoch starts"
need "job_epochs >= 6"
finish
