# async_every: input-bound on the asynchronous accelerator (issue 35), the
# loop syncing every step. train.py --device async: a device thread runs
# the launched work in order (40 ms a step), run-ahead 2; one worker, batch
# 8, each sample sleeps 7 ms (a remote service: no CPU, no disk), so a batch
# comes every ~64 ms from warm .npy files. Cores and storage idle, the
# worker asleep: loader_parallelism. The truth is the device's own
# timeline: its idle inside the host's next() waits over its span
# (train.py's dev_idle_in_wait_share, ~0.37) and ideal_speedup (step /
# max(device, host) per step, ~1.6x); input-bound within 5 points of the
# one and the predicted speedup within 15% of the other, or the scenario
# fails (lib.sh's expect_device_clock).
# The same construction, sourcing this file: s_async_n10.sh (SYNC=10, a
# logging cadence's loss.item()) and s_async_end.sh (SYNC=end): there the
# host waits in next() ~94-100% of the loop while the device works through
# what was launched. Each of the three in three paths: the hook without
# device events (this file: the analysis puts NVML against the host's
# waits), the hook with them (s_async_*_events.sh: EVENTS=on, train.py
# --events on registers the device's events with feedscope.device_timeline,
# steps.device_idle_s), and no hook (s_nohook_async_*.sh).
. "$FS_TOP/tests/scenarios/lib.sh"
SYNC=${SYNC:-every}
EVENTS=${EVENTS:-off}
expect loader_parallelism
expect_device_clock
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 2000 --batch 8 --workers 1 \
	--item-sleep-ms 7 --compute-ms 40 --device async --run-ahead 2 --sync "$SYNC" --events "$EVENTS"
DEVICE=$DATA_DEV verdict run
twin_check
show job_dev_idle_in_wait_share job_dev_idle_share job_wait_share job_step_s job_dev_step_s job_host_step_s \
	job_ideal_speedup gpu_util wk_cpu cpu_busy disk_util
events_check
need "job_step_s >= 0.056" "a batch every ~64 ms"
need "job_step_s <= 0.076" "a batch every ~64 ms"
need "job_dev_step_s >= 0.038" "40 ms of device work a step"
need "job_dev_step_s <= 0.046" "40 ms of device work a step"
need "job_dev_idle_in_wait_share >= 0.25" "the device waits for data"
need "wk_cpu <= 20" "the worker mostly sleeps"
need "disk_util <= 5" "storage idle"
if [ "$SYNC" != every ]; then
	need "job_wait_share >= 0.8" "the host waits in next() while the device works"
fi
finish
