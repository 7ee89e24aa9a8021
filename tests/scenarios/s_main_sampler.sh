# main_sampler (issue 36): the wait is the training process's own work. A
# custom sampler burns 3 ms of CPU per index in the training process
# (train.py --main-cpu-ms; a DataLoader asks its sampler for a batch's
# indices inside next()); the three workers load a warm .npy sample in well
# under a millisecond and sleep. Truth: the job's own wait share; the
# verdict must be main_process, and no recommendation may add workers
# (they sleep already: a report recommending num_workers fails the run).
. "$FS_TOP/tests/scenarios/lib.sh"
expect main_process "${TRUTH:-wait_share}"
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 640 --batch 8 --workers 3 \
	--main-cpu-ms 3 --compute-ms 15
verdict run
show wait_share job_wait_share gpu_util wk_R main_R cpu_busy
twin_check
need "job_wait_share >= 0.4" "input-bound"
if report_knobs run | grep -qx num_workers; then EV[verdict]="${EV[verdict]}(recommends num_workers)"; fi
finish
