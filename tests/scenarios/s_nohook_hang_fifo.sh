# nohook_hang_fifo: the hang_fifo scenario (s_hang_fifo.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_hang_fifo.sh"
