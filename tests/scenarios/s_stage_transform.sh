# stage_transform (issue 39, item 1): one slow transform among several. The
# dataset's pipeline is a torchvision Compose of four transforms that burn
# CPU (train.py --stages): Resize 1 ms, RandomCrop 1 ms, GaussianBlur 10 ms,
# Normalize 1 ms a sample, after a 1 ms decode; two workers under a
# one-core quota. Truth: the job's own timing of each of its transforms
# (train.py's job_stages: line). Done when the report's stage shares are
# within 5 points of the job's own and the verdict, cpu_preprocess, names
# the slow one; hook off (nohook_stage_transform): the verdict still
# right, no stage invented, and the report says they were not timed.
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
	--decode-ms 1 --stages Resize:1,RandomCrop:1,GaussianBlur:10,Normalize:1 --compute-ms 10
verdict run
show wait_share job_wait_share wk_R wk_cpu cg_throttled stage_slow job_stage_share fs_stage_share stage_err_pts fs_stages_timed
twin_check
need "job_wait_share >= 0.5" "input-bound"
stage_check transform[2]:GaussianBlur
finish
