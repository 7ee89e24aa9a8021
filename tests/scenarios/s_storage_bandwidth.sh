# storage_bandwidth: large sequential reads from a disk at its bandwidth
# ceiling. The dataset is 1 MiB files read whole, cold (fresh mount); the
# job's reads are limited to 40 MB/s by a blkio read_bps rule on the disk
# under the loop device, so the loop device behaves as a 40 MB/s disk
# (requests queue in it: util ~100%, large requests, high await) and the
# workers sit in D state. A batch is 4 MiB, a step computes 20 ms.
# Prediction check: the same job with the limit lifted.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth
expect_limit bytes

BPS=40000000

mount_data
cgroup blkio
read_limit bps $BPS
cold
record run -- --data "$DATA/big" --format bin --samples 280 --batch 4 --workers 2 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show wait_share gpu_util disk_mbps disk_util disk_req_kib disk_await_ms wk_D wk_R cpu_busy
need "wait_share >= 0.6" "input-bound"
need "disk_mbps >= 30" "reads at the limit (40 MB/s)"
need "disk_mbps <= 44" "reads at the limit (40 MB/s)"
need "disk_util >= 80" "the device is saturated"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
before=${EV[step_mean_s]}

# The cause removed: no limit (the data is cold again: a fresh mount).
teardown
mount_data
cold
record fixed -- --data "$DATA/big" --format bin --samples 280 --batch 4 --workers 2 --compute-ms 20
DEVICE=$DATA_DEV verdict fixed
show wait_share gpu_util disk_mbps disk_util step_mean_s
result fixed_by "the read limit lifted"
result fixed_step_mean_s "${EV[step_mean_s]}"
result obtained_speedup "$(awk -v a="$before" -v b="${EV[step_mean_s]}" 'BEGIN { printf "%.2f", a / b }')"
