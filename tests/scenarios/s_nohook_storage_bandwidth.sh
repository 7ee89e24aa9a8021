# nohook_storage_bandwidth: storage_bandwidth recorded with the hook off
# (--no-hook): no steps, no loader configuration; the verdict must come from
# the system signals (disk, thread states) and the GPU alone. Same
# construction as storage_bandwidth: 1 MiB files, cold, 40 MB/s read limit.
# Truth: the job's own wait share (train.py's summary line).
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_wait_share
expect_limit bytes

mount_data
cgroup blkio
read_limit bps 40000000
cold
record run --no-hook -- --data "$DATA/big" --format bin --samples 280 --batch 4 --workers 2 \
	--compute-ms 20
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util disk_mbps disk_util disk_req_kib wk_D cpu_busy
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.6" "input-bound"
need "disk_mbps >= 30" "reads at the limit (40 MB/s)"
need "disk_util >= 80" "the device is saturated"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
