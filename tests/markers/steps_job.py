"""A small training loop on the real marker API (python/feedscope), for
tests/integration/markers_peers.sh: waits until the file READY exists (at
most 20 s), then runs STEPS steps of feedscope.watch() (a 2 ms "load", a
3 ms "compute" each) and records one meta value.

    python3 steps_job.py READY STEPS
"""
import os
import sys
import time

import feedscope


def batches(n):
    for i in range(n):
        time.sleep(0.002)
        yield i


def main():
    ready, steps = sys.argv[1], int(sys.argv[2])
    deadline = time.monotonic() + 20
    while not os.path.exists(ready) and time.monotonic() < deadline:
        time.sleep(0.02)
    feedscope.meta("owner", "job")
    done = 0
    for _ in feedscope.watch(batches(steps), name="job"):
        time.sleep(0.003)
        done += 1
    print("steps_job: %d steps, markers %s" % (done, "on" if feedscope.enabled() else "off"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
