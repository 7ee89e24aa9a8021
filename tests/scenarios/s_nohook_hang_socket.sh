# nohook_hang_socket: the hang_socket scenario (s_hang_socket.sh) recorded with the hook off.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_hang_socket.sh"
