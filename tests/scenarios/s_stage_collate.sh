# stage_collate (issue 39, item 1): a slow collate_fn. Each sample costs a
# 2 ms decode in __getitem__; the collate_fn burns 30 ms a batch of 8
# (train.py --collate-ms), about two thirds of the workers' time; two
# workers under a one-core quota. Truth: the job's own timing of its
# __getitem__ and collate_fn (job_stages:). Done as stage_transform: the
# shares within 5 points, collate_fn named; hook off
# (nohook_stage_collate): the verdict right, no stage invented.
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/stagelib.sh"
expect cpu_preprocess "${TRUTH:-wait_share}"
twin

mount_data
warm "$DATA/npy"
cgroup cpu
cg_set cpu cpu.cfs_period_us 100000
cg_set cpu cpu.cfs_quota_us 100000
record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 480 --batch 8 --workers 2 \
	--decode-ms 2 --collate-ms 30 --compute-ms 10
verdict run
show wait_share job_wait_share wk_R wk_cpu cg_throttled stage_slow job_stage_share fs_stage_share stage_err_pts fs_stages_timed
twin_check
need "job_wait_share >= 0.5" "input-bound"
stage_check collate
finish
