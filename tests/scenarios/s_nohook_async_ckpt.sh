# nohook_async_ckpt: the async_ckpt scenario (s_async_ckpt.sh) recorded with
# the hook off (--no-hook); the same construction and truth.
NOHOOK=1
. "$FS_TOP/tests/scenarios/s_async_ckpt.sh"
