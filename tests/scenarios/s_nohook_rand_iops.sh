# nohook_rand_iops: the rand_iops scenario (s_rand_iops.sh) recorded with the hook off
# (--no-hook): no steps, no loader configuration; the same construction and
# the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_rand_iops.sh"
