# checkpoint_stall: the accelerator idles while checkpoints are written. A
# fast, warm loader and a 20 ms step; every 25 steps torch.save() writes a
# 32 MiB checkpoint to a private ext4 (its own loop device) and fsyncs it.
# That device takes writes at 16 MB/s: a blkio write_bps rule in the ROOT
# cgroup (writeback is not done in the job's cgroup, so only a root rule
# slows it), removed before the device is detached. Each checkpoint stalls
# the loop ~2 s; data never keeps it waiting.
. "$FS_TOP/tests/scenarios/lib.sh"
expect checkpoint_stall

mount_data
warm "$DATA/npy"
make_ckpt_dev 256
root_write_limit "$CKPT_MM" 16000000
record run -- --data "$DATA/npy" --format npy --samples 800 --batch 8 --workers 2 \
	--persistent --decode-ms 1 --compute-ms 20 --ckpt-every 25 --ckpt-mib 32 --ckpt-dir "$CKPT_DIR"
DEVICE=$CKPT_DEV verdict run
show wait_share gpu_util ckpt_n ckpt_s ckpt_share gpu_util_ckpt disk_wmbps_max
need "ckpt_n >= 4" "one checkpoint phase per torch.save"
need "ckpt_share >= 0.5" "checkpoints take most of the step time"
need "gpu_util_ckpt <= 10" "the accelerator idles during them"
need "wait_share <= 0.1" "data never the problem"
finish
