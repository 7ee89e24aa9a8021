# nohook_stage_transform: stage_transform recorded with the hook off. The
# verdict must still be cpu_preprocess (from the workers' states and the
# quota); the stages cannot be timed without the hook: the report must have
# none and say so (signals missing: "stages: ..."). Truth: the job's own
# wait share (train.py).
NOHOOK=1 TRUTH=job_wait_share . "$FS_TOP/tests/scenarios/s_stage_transform.sh"
