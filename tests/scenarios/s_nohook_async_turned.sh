# nohook_async_turned: the async_turned scenario (s_async_turned.sh)
# recorded with the hook off (--no-hook); the same construction and truth.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_async_turned.sh"
