# nohook_cpu_preprocess: cpu_preprocess recorded with the hook off, and built
# the other way: no quota, the machine's cores saturated. Each sample burns
# 10 ms of CPU, two workers on two cores, a 10 ms step: both cores ~100%
# busy (workers running), storage idle.
# Truth: the job's own wait share (train.py's summary line).
. "$FS_TOP/tests/scenarios/lib.sh"
expect cpu_preprocess job_wait_share

mount_data
warm "$DATA/npy"
record run --no-hook -- --data "$DATA/npy" --format npy --samples 960 --batch 8 --workers 2 \
	--decode-ms 10 --compute-ms 10
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util wk_R wk_cpu cpu_busy disk_util
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.6" "input-bound"
need "cpu_busy >= 85" "cores saturated"
need "wk_R >= 0.8" "workers running"
need "disk_util <= 5" "storage idle"
finish
