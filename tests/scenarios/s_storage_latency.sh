# storage_latency: small random reads, each one waiting on the device, far
# below its bandwidth. The dataset is one 256 MiB file; each sample is one
# 4 KiB pread at a random offset (readahead off), cold. The job's reads are
# limited to 400 IO/s by a blkio read_iops rule on the disk under the loop
# device: every 4 KiB request waits ~2.5 ms in it (2 workers: 2 in flight),
# so the loop device shows small requests, a high await and ~1.6 MB/s: a
# device capped in operations per second only (no limit on bytes).
# Run with the hook off by its twin s_nohook_storage_latency.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_latency job_b_input
expect_limit iops
twin

mount_data
cgroup blkio
read_limit iops 400
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/rand.bin" --format rand --samples 2400 --batch 16 --workers 2 \
	--compute-ms 10
DEVICE=$DATA_DEV verdict run
show job_b_input wait_share gpu_util disk_rps disk_mbps disk_util disk_req_kib disk_await_ms disk_qd wk_D cpu_busy
twin_check
need "job_b_input >= 0.6" "input-bound"
need "disk_req_kib <= 8" "small requests"
need "disk_rps >= 300" "reads at the limit (400/s)"
need "disk_rps <= 440" "reads at the limit (400/s)"
need "disk_mbps <= 4" "far below the disk's bandwidth"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
