# nohook_ckpt_numpy: the ckpt_numpy scenario (s_ckpt_numpy.sh) recorded with the hook off
# (--no-hook): no steps, no loader configuration; the same construction and
# the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_ckpt_numpy.sh"
