# ckpt_write: checkpoints written without torch.save: every 30 steps the job
# writes 24 MiB of weights with a plain f.write() and os.fsync() to a private
# ext4 on its own loop device, which takes writes at 12 MB/s (a blkio
# write_bps rule in the ROOT cgroup: writeback is not done in the job's
# cgroup), removed before the device is detached. A warm, fast loader and a
# 15 ms step: each checkpoint stalls the loop ~2 s, data never keeps it
# waiting. Truth: the job's own buckets (it times each checkpoint).
# Prediction check (hook on only): the same job with --ckpt-async (a
# snapshot of the weights, written and fsync'd by one background thread;
# the loop waits only while the previous checkpoint is still being written)
# on a fresh checkpoint device with the same 12 MB/s limit.
# Run with the hook off by its twin s_nohook_ckpt_write.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect checkpoint_stall job_b_input
twin

mount_data
warm "$DATA/npy"
make_ckpt_dev 256
root_write_limit "$CKPT_MM" 12000000
job=(--data "$DATA/npy" --format npy --samples 960 --batch 8 --workers 2 --persistent --decode-ms 1
	--compute-ms 15 --ckpt-every 30 --ckpt-mib 24 --ckpt-mode write)
record run "${HOOK_OPTS[@]}" -- "${job[@]}" --ckpt-dir "$CKPT_DIR"
DEVICE=$CKPT_DEV verdict run
show job_b_busy job_b_input job_b_ckpt gpu_util disk_wmbps_max fs_ckpt_share input_bound
twin_check
need "job_b_ckpt >= 0.5" "checkpoints take most of the loop's time"
need "job_b_input <= 0.1" "data never the problem"
finish
if [ "${NOHOOK:-0}" = 1 ]; then exit 0; fi # the fix run compares step times (the hook's)

# The cause removed: the checkpoint written by a background thread, to a
# fresh device at the same limit (the same page cache state: warm loader).
teardown
mount_data
warm "$DATA/npy"
make_ckpt_dev 256
root_write_limit "$CKPT_MM" 12000000
record fixed -- "${job[@]}" --ckpt-dir "$CKPT_DIR" --ckpt-async
DEVICE=$CKPT_DEV verdict fixed
# train_key NAME KEY: KEY's value in NAME's summary line (train.py)
train_key() { grep '^train: ' "$S/$1.out" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }
show job_b_busy job_b_input job_b_ckpt gpu_util disk_wmbps_max step_mean_s
say "the loop thread waited for the writer $(train_key fixed ckpt_wait_s) s; the job's whole loop" \
	"(the last checkpoint waited for after it, outside the steps) $(train_key run total_s) s ->" \
	"$(train_key fixed total_s) s"
# The prediction is of the loop's time (its buckets), and a background
# writer's last checkpoint is waited for after the steps: the obtained
# speedup is the job's whole loop, total_s, not its mean step.
result fixed_by "checkpoint written by a background thread (the job's whole loop, total_s)"
result step_mean_s "$(train_key run total_s)"
result fixed_step_mean_s "$(train_key fixed total_s)"
result obtained_speedup "$(speedup "$(train_key run total_s)" "$(train_key fixed total_s)")"
