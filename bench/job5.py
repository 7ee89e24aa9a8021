"""A stand-in training job for the recorder benchmark: a main process and 4
forked workers (5 processes), each with 2 extra threads, all doing small
reads and short sleeps for DURATION seconds (default 20)."""
import os
import sys
import threading
import time

duration = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
end = time.monotonic() + duration


def loop():
    with open("/proc/self/stat", "rb") as f:
        while time.monotonic() < end:
            f.seek(0)
            f.read()
            time.sleep(0.01)


def process():
    threads = [threading.Thread(target=loop) for _ in range(2)]
    for t in threads:
        t.start()
    loop()
    for t in threads:
        t.join()


pids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        process()
        os._exit(0)
    pids.append(pid)
process()
for pid in pids:
    os.waitpid(pid, 0)
