# async_ckpt: a checkpoint while work is queued on the asynchronous
# accelerator (issue 35). A fast, warm loader (2 persistent workers, 1 ms of
# decode a sample, batch 8) and 40 ms of device work a step, run-ahead 8,
# no sync until the end: the host runs up to 8 steps ahead of the device
# and blocks in its launches. (With 20 ms a step the loader, on 2 busy
# cores, kept the host waiting in next() 5-7% of the loop while the
# device worked; NVML's 1 s bins, mostly idle around the checkpoints, then
# read that as 5 points of input wait, at the bound.)
# Every 25 steps a 32 MiB torch.save, fsync'd, to a private ext4 taking
# writes at 16 MB/s (a root-cgroup blkio write_bps rule, as in
# s_checkpoint_stall.sh): the checkpoint first syncs (the copy off the
# device waits for the queued steps: ckpt_sync_s, the device busy), then
# writes for ~2 s with the device idle. 105 steps: the checkpoints after
# steps 25, 50, 75 and 100 all fall inside the device's span (a checkpoint
# after the last step would come after the device's last work, outside the
# span its truth is measured over). checkpoint_stall. Truth from the
# job's device timeline: the device idle inside the waits for data
# (dev_idle_in_wait_share, ~0.005) and ideal_speedup (~1.49x: step /
# max(device, host) per step, the host's own time a step being its
# checkpoint writes; the report's checkpoint prediction, 1 / max(1 -
# host_io, host_io), is that same overlap) for the bounds of
# s_async_every.sh; the device idle inside the checkpoints
# (dev_idle_in_ckpt_share, ~0.67) is the buckets table's checkpoint truth
# (a figure, not a check: the job's own host-side share is ~0.77).
# In three paths: the hook without device events (this file), with them
# (s_async_ckpt_events.sh) and no hook (s_nohook_async_ckpt.sh).
. "$FS_TOP/tests/scenarios/lib.sh"
EVENTS=${EVENTS:-off}
expect checkpoint_stall
expect_device_clock
twin

mount_data
warm "$DATA/npy"
make_ckpt_dev 256
root_write_limit "$CKPT_MM" 16000000
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 840 --batch 8 --workers 2 \
	--persistent --decode-ms 1 --compute-ms 40 --device async --run-ahead 8 --sync end --events "$EVENTS" \
	--ckpt-every 25 --ckpt-mib 32 --ckpt-dir "$CKPT_DIR"
DEVICE=$CKPT_DEV verdict run
twin_check
show job_dev_idle_in_ckpt_share job_dev_idle_in_wait_share job_dev_idle_share job_b_ckpt job_ckpt_sync_s \
	job_wait_share job_ideal_speedup gpu_util fs_ckpt_share disk_wmbps_max
events_check
need "job_dev_idle_in_ckpt_share >= 0.5" "the device idle in checkpoints most of the loop"
need "job_dev_idle_in_wait_share <= 0.1" "data never the problem"
need "job_ckpt_sync_s >= 0.5" "work queued at each checkpoint (4 x up to 8 x 40 ms)"
finish
