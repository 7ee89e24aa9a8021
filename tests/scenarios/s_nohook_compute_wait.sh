# nohook_compute_wait: the compute_wait scenario (s_compute_wait.sh) recorded with the hook off
# (--no-hook): no steps, no loader configuration; the same construction and
# the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_compute_wait.sh"
