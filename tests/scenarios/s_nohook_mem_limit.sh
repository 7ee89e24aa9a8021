# nohook_mem_limit: the mem_limit scenario (s_mem_limit.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_mem_limit.sh"
