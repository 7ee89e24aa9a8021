# ckpt_write: checkpoints written without torch.save: every 30 steps the job
# writes 24 MiB of weights with a plain f.write() and os.fsync() to a private
# ext4 on its own loop device, which takes writes at 12 MB/s (a blkio
# write_bps rule in the ROOT cgroup: writeback is not done in the job's
# cgroup), removed before the device is detached. A warm, fast loader and a
# 15 ms step: each checkpoint stalls the loop ~2 s, data never keeps it
# waiting. Truth: the job's own buckets (it times each checkpoint).
# Run with the hook off by its twin s_nohook_ckpt_write.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect checkpoint_stall job_b_input
twin

mount_data
warm "$DATA/npy"
make_ckpt_dev 256
root_write_limit "$CKPT_MM" 12000000
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 960 --batch 8 --workers 2 \
	--persistent --decode-ms 1 --compute-ms 15 --ckpt-every 30 --ckpt-mib 24 --ckpt-dir "$CKPT_DIR" \
	--ckpt-mode write
DEVICE=$CKPT_DEV verdict run
show job_b_busy job_b_input job_b_ckpt gpu_util disk_wmbps_max fs_ckpt_share input_bound
twin_check
need "job_b_ckpt >= 0.5" "checkpoints take most of the loop's time"
need "job_b_input <= 0.1" "data never the problem"
finish
