# zip: one zip archive of 3000 stored members of 8 KiB, each sample a member
# picked at random and read through Python's zipfile (its local header,
# then its bytes, readahead off), cold, batch 8, 2 workers, 8 ms step; the
# job's reads limited to 500 IO/s by a blkio read_iops rule on the disk
# under the loop device. Small requests, each waiting in the device:
# storage_latency (issue 10: "random reads of zip members" flipped between
# storage_latency and storage_bandwidth).
# Run with the hook off by its twin s_nohook_zip.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_latency job_b_input
expect_limit iops
twin

mount_data
cgroup blkio
read_limit iops 500
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/members.zip" --format zip --samples 1200 \
	--batch 8 --workers 2 --compute-ms 8
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input gpu_util disk_rps disk_mbps disk_req_kib disk_await_ms disk_util wk_D input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "disk_req_kib <= 32" "small requests"
need "disk_rps >= 350" "reads at the limit (500/s)"
need "disk_rps <= 560" "reads at the limit (500/s)"
finish
