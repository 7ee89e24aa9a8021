# nohook_mem_shm: the mem_shm scenario (s_mem_shm.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_mem_shm.sh"
