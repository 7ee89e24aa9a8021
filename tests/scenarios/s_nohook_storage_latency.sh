# nohook_storage_latency: the storage_latency scenario (s_storage_latency.sh) recorded with the hook off
# (--no-hook): no steps, no loader configuration; the same construction and
# the same truth (the job's own account).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_storage_latency.sh"
