# cpu_preprocess: decoding is the bottleneck. A warm dataset of small .npy
# files; each sample burns 15 ms of its worker's CPU ("decode"); two workers;
# the job's cpu cgroup has a quota of one core (cpu.cfs_quota_us), so the
# workers run into the quota and are throttled, while storage is idle.
. "$FS_TOP/tests/scenarios/lib.sh"
expect cpu_preprocess

mount_data
warm "$DATA/npy"
cgroup cpu
cg_set cpu cpu.cfs_period_us 100000
cg_set cpu cpu.cfs_quota_us 100000
record run -- --data "$DATA/npy" --format npy --samples 480 --batch 8 --workers 2 \
	--decode-ms 15 --compute-ms 15
DEVICE=$DATA_DEV verdict run
show wait_share gpu_util wk_R wk_cpu cg_quota cg_throttled cpu_busy disk_util
need "wait_share >= 0.6" "input-bound"
need "cg_throttled >= 30" "the quota is hit"
need "wk_cpu >= 35" "workers use their share of the one-core quota"
need "disk_util <= 5" "storage idle"
finish
