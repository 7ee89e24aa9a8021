# nohook_stage_collate: stage_collate recorded with the hook off (see
# nohook_stage_transform). Truth: the job's own wait share (train.py).
NOHOOK=1 TRUTH=job_wait_share . "$FS_TOP/tests/scenarios/s_stage_collate.sh"
