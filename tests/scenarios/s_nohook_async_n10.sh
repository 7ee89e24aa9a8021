# nohook_async_n10: the async_n10 scenario (s_async_n10.sh) recorded with the
# hook off (--no-hook): no steps, NVML's busy time alone; the same
# construction and the same truth (the device's own timeline).
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_async_n10.sh"
