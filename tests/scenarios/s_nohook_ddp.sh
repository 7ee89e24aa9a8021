# nohook_ddp: the DDP scenario (s_ddp.sh) recorded with the hook off
# (--no-hook): no steps, so no step boundaries either; the same construction
# and the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_ddp.sh"
