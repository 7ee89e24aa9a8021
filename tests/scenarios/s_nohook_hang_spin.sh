# nohook_hang_spin: the hang_spin scenario (s_hang_spin.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_hang_spin.sh"
