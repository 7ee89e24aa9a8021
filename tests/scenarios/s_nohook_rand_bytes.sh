# nohook_rand_bytes: the rand_bytes scenario (s_rand_bytes.sh) recorded with the hook off
# (--no-hook): no steps, no loader configuration; the same construction and
# the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_rand_bytes.sh"
