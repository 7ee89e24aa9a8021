# nohook_mem_cor: the mem_cor scenario (s_mem_cor.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_mem_cor.sh"
