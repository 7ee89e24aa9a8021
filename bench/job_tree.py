"""A stand-in job tree for the recorder benchmark: PROCS processes (a main
process and PROCS-1 forked workers, like a DataLoader per rank), each with
THREADS threads (the process's own included), for DURATION seconds.

    python3 job_tree.py DURATION PROCS THREADS [WAKE_MS]

What the threads do, like a training job's: most wake every WAKE_MS
(default 50 ms) and go back to sleep (queues, pin-memory and progress
threads); one in sixteen also burns a short CPU burst (0.2 ms of its own
CPU time) each wake-up (decode, collation); one in eight reads 64 KiB of a
file each wake-up (a loader reading samples, from the page cache). The job
does little on purpose (64 x 20 of them fit on 2 cores): what the recorder
costs is per thread it must look at, not per unit of work."""
import os
import sys
import threading
import time

duration = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
nprocs = int(sys.argv[2]) if len(sys.argv) > 2 else 64
nthreads = int(sys.argv[3]) if len(sys.argv) > 3 else 20
wake_s = (float(sys.argv[4]) if len(sys.argv) > 4 else 50.0) / 1e3
end = time.monotonic() + duration
data = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"job_tree-{os.getpid()}.bin")
with open(data, "wb") as f:
    f.write(os.urandom(1 << 20))


def loop(kind):
    fd = os.open(data, os.O_RDONLY) if kind == "read" else -1
    off = 0
    while time.monotonic() < end:
        if kind == "burst":
            t = time.thread_time() + 0.0002
            while time.thread_time() < t:
                pass
        elif kind == "read":
            os.pread(fd, 65536, off)
            off = (off + 65536) % (1 << 20)
        time.sleep(wake_s)
    if fd >= 0:
        os.close(fd)


def process():
    kinds = ["read" if i % 8 == 7 else "burst" if i % 16 == 3 else "sleep"
             for i in range(nthreads)]
    threads = [threading.Thread(target=loop, args=(k,)) for k in kinds[1:]]
    for t in threads:
        t.start()
    loop(kinds[0])
    for t in threads:
        t.join()


pids = []
for _ in range(nprocs - 1):
    pid = os.fork()
    if pid == 0:
        process()
        os._exit(0)
    pids.append(pid)
process()
for pid in pids:
    os.waitpid(pid, 0)
os.unlink(data)
