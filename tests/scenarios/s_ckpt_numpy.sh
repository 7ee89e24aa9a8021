# ckpt_numpy: as ckpt_write, but each checkpoint is numpy.save() of 40 MiB
# then os.fsync(), every 20 steps of 25 ms, to a private device taking
# writes at 20 MB/s (root-cgroup write_bps rule): ~2 s per checkpoint.
# Run with the hook off by its twin s_nohook_ckpt_numpy.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect checkpoint_stall job_b_input
twin

mount_data
warm "$DATA/npy"
make_ckpt_dev 320
root_write_limit "$CKPT_MM" 20000000
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 640 --batch 8 --workers 2 \
	--persistent --decode-ms 1 --compute-ms 25 --ckpt-every 20 --ckpt-mib 40 --ckpt-dir "$CKPT_DIR" \
	--ckpt-mode numpy
DEVICE=$CKPT_DEV verdict run
show job_b_busy job_b_input job_b_ckpt gpu_util disk_wmbps_max fs_ckpt_share input_bound
twin_check
need "job_b_ckpt >= 0.5" "checkpoints take most of the loop's time"
need "job_b_input <= 0.1" "data never the problem"
finish
