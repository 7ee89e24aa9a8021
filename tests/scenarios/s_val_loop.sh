# val_loop: a training loop with a validation pass after each epoch (its own
# DataLoader over 120 warm .npy files, training's batch size, 10 ms a step).
# Training reads 1 MiB files, cold, each epoch its own 110 files
# (--fresh-epochs), 2 epochs, batch 4, 20 ms step, the job's reads limited
# to 35 MB/s (blkio read_bps): the training loader's storage bandwidth is
# the bottleneck; validation is fast. Truth: the job's own buckets.
# Run with the hook off by its twin s_nohook_val_loop.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_b_input
expect_limit bytes
twin

mount_data
cgroup blkio
read_limit bps 35000000
cold
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/big" --format bin --samples 110 --epochs 2 --fresh-epochs \
	--batch 4 --workers 2 --compute-ms 20 --val-data "$DATA/npy" --val-samples 120 --val-compute-ms 10
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input job_b_val gpu_util disk_mbps disk_util disk_req_kib wk_D input_bound
twin_check
need "job_b_input >= 0.6" "the training loader is the bottleneck"
need "job_b_val <= 0.25" "validation is fast"
need "disk_mbps >= 24" "reads at the limit (35 MB/s)"
need "disk_req_kib >= 64" "large requests"
finish
