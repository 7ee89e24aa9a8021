# nohook_main_unpickle: main_unpickle recorded with the hook off. Truth:
# the job's own wait share (train.py).
NOHOOK=1 TRUTH=job_wait_share . "$FS_TOP/tests/scenarios/s_main_unpickle.sh"
