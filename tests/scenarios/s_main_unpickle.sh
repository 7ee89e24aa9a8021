# main_unpickle (issue 36): the wait is the training process unpickling
# the batches. Each sample carries an object whose unpickling burns 3 ms
# of CPU where it is unpickled (train.py --unpickle-ms: objects rebuilt
# from their bytes); the workers make them for nothing, the training
# process pays when it takes a batch off the workers' queue, inside
# next(). Three workers, warm .npy samples: they sleep. Truth: the job's
# own wait share; the verdict must be main_process, and no recommendation
# may add workers.
. "$FS_TOP/tests/scenarios/lib.sh"
expect main_process "${TRUTH:-wait_share}"
twin

mount_data
warm "$DATA/npy"
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 640 --batch 8 --workers 3 \
	--unpickle-ms 3 --compute-ms 15
verdict run
show wait_share job_wait_share gpu_util wk_R main_R cpu_busy
twin_check
need "job_wait_share >= 0.4" "input-bound"
if report_knobs run | grep -qx num_workers; then EV[verdict]="${EV[verdict]}(recommends num_workers)"; fi
finish
