# nohook_mem_numpy: the mem_numpy scenario (s_mem_numpy.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_mem_numpy.sh"
