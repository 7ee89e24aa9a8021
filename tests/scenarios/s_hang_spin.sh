# hang_spin: after 30 good steps a DataLoader worker spins in a transform
# (pure Python, no system call) for 15 s. Expected: the stall found within
# its bound, the worker in state R outside any system call, with its
# Python stack in hangjob.py's spin_transform (hook on). Without the hook
# the stall is found from the job's progress signals (reads, the device,
# the main process's CPU: the spinning worker's own CPU is not progress).
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/hanglib.sh"
twin
hang_run spin
hang_check spin
