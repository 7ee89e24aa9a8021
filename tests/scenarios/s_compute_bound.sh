# compute_bound: the healthy case. A warm dataset of small .npy files, two
# workers with little to do, and a long accelerator step: the loader is
# always ahead, the accelerator is busy nearly all the time.
. "$FS_TOP/tests/scenarios/lib.sh"
expect compute_bound job_b_input
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 1200 --batch 8 --workers 2 \
	--persistent --decode-ms 1 --compute-ms 100
DEVICE=$DATA_DEV verdict run
twin_check
show job_b_input job_b_busy wait_share gpu_util wk_R wk_D cpu_busy disk_util disk_mbps
need "job_b_input < 0.05" "the loader must keep up"
need "gpu_util >= 85" "the accelerator must be busy"
finish
