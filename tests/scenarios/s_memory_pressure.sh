# memory_pressure: the page cache cannot hold the dataset, so every epoch
# reads it from storage again. 200 files of 1 MiB, 4 epochs over the same
# files; the job's memory cgroup is limited to 224 MiB (memory.limit_in_bytes)
# while its processes take ~140 MiB, leaving well under 100 MiB of cache for
# 200 MiB of data, on a machine with GiBs free. Storage is a 100 MB/s disk
# (blkio read_bps on the disk under the loop device): fine for the first,
# cold epoch of a job this size, but not for reading every epoch again.
. "$FS_TOP/tests/scenarios/lib.sh"
expect memory_pressure job_b_input
twin

mount_data
cgroup blkio memory
read_limit bps 100000000
cg_set memory memory.limit_in_bytes $((224 << 20))
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/big" --format bin --samples 200 --epochs 4 --batch 4 --workers 2 \
	--compute-ms 10
DEVICE=$DATA_DEV verdict run
twin_check
show job_b_input wait_share gpu_util mem_limit_mib mem_usage_max_mib rchar_mib storage_read_mib psi_mem majflt disk_mbps disk_util wk_D
need "job_b_input >= 0.5" "input-bound"
need "mem_usage_max_mib >= 200" "the cgroup is full"
need "storage_read_mib >= 500" "the 200 MiB are read from storage again and again"
finish
