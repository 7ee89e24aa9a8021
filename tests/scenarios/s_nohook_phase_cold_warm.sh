# nohook_phase_cold_warm: phase_cold_warm recorded with the hook off: no
# steps, so no epochs; the phases come from the change points of the
# workers' states and the accelerator's use. Truth: the job's own waits per
# epoch (train.py), its summary's wait share.
. "$FS_TOP/tests/scenarios/lib.sh"
expect_phases "storage_bandwidth>cpu_preprocess" job_wait_share

mount_data
cgroup blkio
read_limit bps 12000000
cold
record run --no-hook -- --data "$DATA/big" --format bin --samples 96 --batch 4 --workers 2 --epochs 5 \
	--decode-ms 60 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util disk_mbps wk_D wk_R cpu_busy job_epoch_waits
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.5" "input-bound"
finish
