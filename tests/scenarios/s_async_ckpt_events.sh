# async_ckpt_events: the async_ckpt scenario (s_async_ckpt.sh) with the
# device's own events (train.py --events on).
EVENTS=on
. "$FS_TOP/tests/scenarios/s_async_ckpt.sh"
