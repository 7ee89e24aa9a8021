# rand_iops: the rand_bytes job (s_rand_bytes.sh: random 128 KiB reads, one
# per sample, cold) on a device capped in OPERATIONS per second only: the
# job's reads are limited to 70 IO/s by a blkio read_iops rule on the disk
# under the loop device (about 9 MB/s; no limit on bytes). Its requests,
# queue depth and bytes per second look like rand_bytes'; what differs is
# which ceiling they run at. Run with the hook off by its twin
# s_nohook_rand_iops.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_latency job_b_input
expect_limit iops
twin

mount_data
cgroup blkio
read_limit iops 70
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/rand.bin" --format rand --read-kib 128 --samples 400 \
	--batch 4 --workers 2 --compute-ms 12
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input gpu_util disk_rps disk_mbps disk_req_kib disk_await_ms disk_util wk_D input_bound
twin_check
need "job_b_input >= 0.5" "input-bound"
need "disk_req_kib >= 96" "large requests"
need "disk_rps >= 50" "reads at the limit (70/s)"
need "disk_rps <= 77" "reads at the limit (70/s)"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
