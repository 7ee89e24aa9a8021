# nohook_oversub: oversub recorded with the hook off: the finding comes
# from /proc alone (each worker's threads, their schedstat, the cores);
# without steps the verdict's accounting is the accelerator's (NVML). Truth:
# the job's own input share (train.py's summary). No fix run.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_oversub.sh"
