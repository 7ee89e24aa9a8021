# epoch_start: each epoch starts with a long stall. Two non-persistent
# workers (persistent_workers=False) whose start takes 1 s (a slow
# worker_init_fn, as opening a database or loading an index would), and
# short epochs (20 steps of 20 ms, warm data): every epoch waits for its
# workers again, and between epochs the loop does not wait at all.
. "$FS_TOP/tests/scenarios/lib.sh"
expect epoch_start

mount_data
warm "$DATA/npy"
record run -- --data "$DATA/npy" --format npy --samples 160 --epochs 6 --batch 8 --workers 2 \
	--init-sleep-ms 1000 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show wait_share first_wait_frac epochs gpu_util cpu_busy disk_util
need "wait_share >= 0.5" "input-bound"
need "first_wait_frac >= 0.9" "the wait is at epoch starts"
need "epochs >= 6"
finish
