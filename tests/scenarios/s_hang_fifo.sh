# hang_fifo: after 30 good steps a DataLoader worker reads a FIFO nobody
# writes (the job's main process holds its other end and writes a byte 15 s
# after the worker says it blocks). Expected: the stall found within
# --hang-after 6 s of the loop's last step, naming the worker blocked in
# read on that FIFO, with its Python stack showing hangjob.py's hang_fifo
# (hook on) or saying the stack needs the hook (hook off); the exporter's
# feedscope_stalled 1 meanwhile; the stall's end when the byte comes.
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/hanglib.sh"
twin
hang_run fifo
hang_check fifo
