# async_end: the async_every scenario (s_async_every.sh) with the loop syncing
# only once, after the loop: the host waits in next() nearly all the loop
# while the device works through what was launched; the device's own idle
# inside those waits is the truth.
SYNC=end
. "$FS_TOP/tests/scenarios/s_async_every.sh"
