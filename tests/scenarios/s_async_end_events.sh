# async_end_events: the async_end scenario (s_async_end.sh) with the device's
# own events (train.py --events on: feedscope.device_timeline(), each step's
# device idle inside its wait in steps.device_idle_s).
EVENTS=on
. "$FS_TOP/tests/scenarios/s_async_end.sh"
