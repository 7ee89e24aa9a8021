# mmap: the dataset is one big file mapped with numpy.memmap in each worker;
# a sample copies one 512 KiB record chosen by the shuffled index (300 of the
# file's 512 records, each once): page faults, no read calls. Cold (fresh
# mount, caches dropped); the job's reads are limited to 30 MB/s by a blkio
# read_bps rule (the disk under the loop device), and fault readahead makes
# the requests large: storage_bandwidth. Batch 4, 2 workers, 20 ms step.
# Run with the hook off by its twin s_nohook_mmap.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_b_input
expect_limit bytes
twin

mount_data
cgroup blkio
read_limit bps 30000000
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/rand.bin" --format memmap --record-kib 512 --samples 300 \
	--batch 4 --workers 2 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input gpu_util disk_mbps disk_util disk_req_kib majflt rchar_mib storage_read_mib wk_D input_bound
twin_check
need "job_b_input >= 0.6" "input-bound"
need "disk_mbps >= 20" "reads at the limit (30 MB/s)"
need "disk_mbps <= 34" "reads at the limit (30 MB/s)"
need "disk_req_kib >= 64" "large requests (fault readahead)"
need "rchar_mib <= 5" "no read calls: the bytes arrive by page faults"
need "storage_read_mib >= 100" "...from storage"
finish
