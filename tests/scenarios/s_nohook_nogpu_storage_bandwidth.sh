# nohook_nogpu_storage_bandwidth: storage_bandwidth recorded with neither the
# hook nor a GPU (--no-hook --no-gpu): only thread states, CPU and the disk
# remain. Same construction as storage_bandwidth.
# Truth: the job's own wait share (train.py's summary line).
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_wait_share

mount_data
cgroup blkio
read_limit bps 40000000
cold
record run --no-hook --no-gpu -- --data "$DATA/big" --format bin --samples 280 --batch 4 \
	--workers 2 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util disk_mbps disk_util disk_req_kib wk_D cpu_busy
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.6" "input-bound"
need "disk_mbps >= 30" "reads at the limit (40 MB/s)"
need "disk_util >= 80" "the device is saturated"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
