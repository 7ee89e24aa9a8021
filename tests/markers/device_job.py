"""A training loop with a device timeline of its own (feedscope.device_timeline),
for tests/integration/steps_device.sh. Its fake device says the accelerator
was idle 5 ms inside the wait of each even step and 0 ms in each odd one;
an event completes only once the loop is LAG steps past it, so a step's
figure reaches feedscope LAG steps late, and the last LAG steps of each
epoch are not complete when it ends (they go without a figure). Prints, for
each step, what it expects in the run file:

    step EPOCH STEP IDLE_S        (or "null" when its events never completed)

    python3 device_job.py MODE EPOCHS STEPS LAG
MODE: timeline (as above), none (no timeline: every figure null), kill (one
epoch; after step STEPS-1's batch the process kills itself with SIGKILL:
steps 0..STEPS-2 were sent, the last is lost as without a timeline; the
figures of the steps LAG behind were sent, the rest are null).
"""
import os
import signal
import sys
import time

import feedscope

mode, epochs, steps, lag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


class Device:
    def __init__(self):
        self.clock = 0.0        # ms
        self.progress = -1      # the loop's step count: events of steps <= progress - LAG complete
        self.violations = 0


dev = Device()


class Event:
    __slots__ = ("t", "step")

    def __init__(self):
        self.t = 0.0
        self.step = None

    def record(self):
        if self.step is not None and not self.query():
            dev.violations += 1
        self.t = dev.clock
        self.step = dev.progress + 1      # the step whose wait this event bounds

    def query(self):
        return self.step is None or self.step <= dev.progress - lag

    def elapsed_time(self, end):
        if not (self.query() and end.query()):
            dev.violations += 1
        return end.t - self.t


class Batches:
    """STEPS batches an epoch (each iter() is one)."""

    def __iter__(self):
        for k in range(steps):
            time.sleep(0.002)
            dev.clock += 5.0 if k % 2 == 0 else 0.0   # the device idles while the batch is made
            yield k


if mode != "none":
    feedscope.device_timeline(Event, name="fake")
loader = feedscope.watch(Batches(), name="train")
for epoch in range(epochs if mode != "kill" else 1):
    dev.progress = -1
    dev.clock = 0.0
    for k in loader:
        dev.progress = k
        time.sleep(0.003)
        if mode == "kill" and k == steps - 1:
            for j in range(steps - 1):
                idle = (0.005 if j % 2 == 0 else 0.0) if j <= k - 1 - lag else None
                print("step 0 %d %s" % (j, "null" if idle is None else repr(idle)))
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
    for j in range(steps):
        done = mode == "timeline" and j <= steps - 1 - lag
        print("step %d %d %s" % (epoch, j, repr(0.005 if j % 2 == 0 else 0.0) if done else "null"))
print("violations %d" % dev.violations)
