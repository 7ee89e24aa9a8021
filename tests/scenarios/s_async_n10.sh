# async_n10: the async_every scenario (s_async_every.sh) with the loop syncing
# every 10 steps (a logging cadence's loss.item()): the host waits in next()
# most of the loop while the device works through what was launched; the
# device's own idle inside those waits is the truth.
SYNC=10
. "$FS_TOP/tests/scenarios/s_async_every.sh"
