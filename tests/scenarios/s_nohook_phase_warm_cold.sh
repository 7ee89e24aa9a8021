# nohook_phase_warm_cold: phase_warm_cold with the hook off (no steps: the
# phases from the change points of the workers' states and the
# accelerator's use). Truth: the job's own waits per epoch (train.py).
. "$FS_TOP/tests/scenarios/lib.sh"
expect_phases "cpu_preprocess>storage_bandwidth" job_wait_share

mount_data
cgroup blkio
read_limit bps 12000000
warm "$DATA/big"
record run --no-hook -- --data "$DATA/big" --format bin --samples 96 --batch 4 --workers 2 --epochs 5 \
	--decode-ms 60 --compute-ms 20 --evict-from 2
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util disk_mbps wk_D wk_R cpu_busy job_epoch_waits
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.5" "input-bound"
finish
