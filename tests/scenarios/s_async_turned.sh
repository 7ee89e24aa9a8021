# async_turned: compute-bound on the asynchronous accelerator, with
# run-ahead (issue 35's turned case). One worker, batch 8, 1 ms a sample: a
# batch every ~16 ms from warm .npy files; the device needs 60 ms a step,
# run-ahead 2, the loop syncing every 10 steps. The host is soon two steps
# ahead and blocks inside a launch (a full launch queue), not in next(): the
# device is ~all busy by its own timeline. The truth is that timeline
# (dev_idle_in_wait_share ~0.01, ideal_speedup ~1.0x); the bounds as in
# s_async_every.sh. In three paths: the hook without device events (this
# file), with them (s_async_turned_events.sh) and no hook
# (s_nohook_async_turned.sh).
. "$FS_TOP/tests/scenarios/lib.sh"
EVENTS=${EVENTS:-off}
expect compute_bound
expect_device_clock
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 2000 --batch 8 --workers 1 \
	--item-sleep-ms 1 --compute-ms 60 --device async --run-ahead 2 --sync 10 --events "$EVENTS"
DEVICE=$DATA_DEV verdict run
twin_check
show job_dev_idle_in_wait_share job_dev_idle_share job_wait_share job_step_s job_dev_step_s job_host_step_s \
	job_ideal_speedup job_launch_blocks job_steps gpu_util cpu_busy
events_check
need "job_dev_step_s >= 0.058" "60 ms of device work a step"
need "job_dev_step_s <= 0.066" "60 ms of device work a step"
need "job_dev_idle_share <= 0.10" "the device busy by its own timeline"
need "job_wait_share <= 0.15" "the host waits inside launches, not in next()"
EV[launch_block_frac]=$(awk -v b="${EV[job_launch_blocks]:-nan}" -v n="${EV[job_steps]:-nan}" \
	'BEGIN { if (b == "nan" || n == "nan" || n + 0 <= 0) print "nan"; else printf "%.3f", b / n }')
need "launch_block_frac >= 0.5" "most launches block (run-ahead full)"
finish
