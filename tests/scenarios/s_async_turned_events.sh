# async_turned_events: the async_turned scenario (s_async_turned.sh) with the
# device's own events (train.py --events on).
EVENTS=on
. "$FS_TOP/tests/scenarios/s_async_turned.sh"
