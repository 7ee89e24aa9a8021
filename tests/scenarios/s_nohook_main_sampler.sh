# nohook_main_sampler: main_sampler recorded with the hook off (no steps:
# the training process's CPU inside its waits is not told apart from its
# compute; what the report says without them is the figure). Truth: the
# job's own wait share (train.py).
NOHOOK=1 TRUTH=job_wait_share . "$FS_TOP/tests/scenarios/s_main_sampler.sh"
