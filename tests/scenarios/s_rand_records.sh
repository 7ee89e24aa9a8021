# rand_records: one big file read at random offsets, 3 records of 4 KiB per
# sample (three preads, readahead off), cold, batch 8, 2 workers, 8 ms
# step; the job's reads limited to 600 IO/s by a blkio read_iops rule on the
# disk under the loop device. (storage_latency does one read per sample at
# 400 IO/s.) Small requests, each waiting in the device: storage_latency.
# Run with the hook off by its twin s_nohook_rand_records.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_latency job_b_input
expect_limit iops
twin

mount_data
cgroup blkio
read_limit iops 600
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/rand.bin" --format rand --records 3 --samples 1400 \
	--batch 8 --workers 2 --compute-ms 8
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input gpu_util disk_rps disk_mbps disk_req_kib disk_await_ms disk_util wk_D input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "disk_req_kib <= 8" "small requests"
need "disk_rps >= 450" "reads at the limit (600/s)"
need "disk_rps <= 660" "reads at the limit (600/s)"
need "wk_D >= 0.5" "workers blocked in I/O"
finish
