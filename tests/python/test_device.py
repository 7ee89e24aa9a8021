"""Tests of the device timeline of the feedscope Python package
(feedscope.device_timeline(); docs/markers.md, "The device's own clock"),
stdlib only, any Python >= 3.8.

A fake timeline whose events complete only when the test says so (in the
order the test chooses) drives the ring: a step goes as S2 when its compute
is known, exactly as S1 does without a timeline; its D1 (the device's idle
inside its wait, from its two events) follows once both events are
complete, in step order, never before; the steps whose events are not
complete when the epoch ends, the loop is closed or the process exits go
with "D1 ... -", never waited for. The fake records every call feedscope
must never make: elapsed_time() on an event not complete, synchronize(),
wait(), record() again on an event not complete.

Most cases run in this process, with the package's sends captured as they
are made (and passed on to a receiving socket bound here); exit, fork and a
failing timeline run in a fresh interpreter.

    python3 tests/python/test_device.py [-v]
"""
import io
import os
import re
import subprocess
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fsrecv import PYDIR, Receiver  # noqa: E402

RX = Receiver()
os.environ["FEEDSCOPE_MARKERS"] = RX.address()
sys.path.insert(0, PYDIR)
import feedscope  # noqa: E402
from feedscope import _channel  # noqa: E402

S1 = re.compile(r"^S1 (\d+) (\S+) (\d+) (\d+) (\d+) (\d+) (\d+)$")
S2 = re.compile(r"^S2 (\d+) (\S+) (\d+) (\d+) (\d+) (\d+) (\d+)$")
D1 = re.compile(r"^D1 (\d+) (\S+) (\d+) (\d+) (\d+|-)$")

FAKE = r'''
class FakeDevice:
    """A device timeline driven by its user: each record() is a new entry
    (seq 0, 1, ...: a loop records the start and the end of step k's wait
    as 2k and 2k+1), complete only once complete(seq...) says so. The
    device's clock (ms) is what the events note."""

    def __init__(self):
        self.clock = 0.0
        self.recs = []          # the event of each record(), by seq
        self.made = 0           # events the factory made
        self.elapsed = 0        # elapsed_time() calls
        self.violations = []

    def factory(self):
        self.made += 1
        return FakeEvent(self)

    def complete(self, *seqs):
        for s in seqs:
            ev = self.recs[s]
            if ev.seq == s:
                ev.done = True

    def complete_through(self, last):
        self.complete(*range(last + 1))

    def step(self, k):
        """The two seqs of step K of the first epoch."""
        return (2 * k, 2 * k + 1)


class FakeEvent:
    __slots__ = ("dev", "seq", "t", "done")

    def __init__(self, dev):
        self.dev = dev
        self.seq = None
        self.t = None
        self.done = False

    def record(self, stream=None):
        if self.seq is not None and not self.done:
            self.dev.violations.append("record() again on seq %d, not complete" % self.seq)
        self.seq = len(self.dev.recs)
        self.dev.recs.append(self)
        self.t = self.dev.clock
        self.done = False

    def query(self):
        return self.seq is None or self.done   # as CUDA: an event never recorded is complete

    def elapsed_time(self, other):
        self.dev.elapsed += 1
        if not (self.query() and other.query()):
            self.dev.violations.append("elapsed_time() with seq %s/%s not complete" % (self.seq, other.seq))
        return other.t - self.t

    def synchronize(self):
        self.dev.violations.append("synchronize()")

    def wait(self, stream=None):
        self.dev.violations.append("wait()")
'''
exec(FAKE)


class Capture:
    """feedscope's sends, as they are made (then passed on)."""

    def __init__(self):
        self.recs = []
        self._real = feedscope._send

    def __enter__(self):
        def send(rec, real=self._real, recs=self.recs):
            recs.append(rec.decode("ascii"))
            real(rec)
        feedscope._send = send
        return self

    def __exit__(self, *exc):
        feedscope._send = self._real
        return False

    def take(self):
        out, self.recs[:] = list(self.recs), []
        return out


def kinds(recs):
    """[(kind, step, figure)] of S1/S2/D1 records; figure: ns, '-' or None."""
    out = []
    for r in recs:
        f = r.split(" ")
        if f[0] in ("S1", "S2"):
            out.append((f[0], int(f[4]), None))
        elif f[0] == "D1":
            out.append(("D1", int(f[4]), f[5] if f[5] == "-" else int(f[5])))
        else:
            out.append((f[0], None, None))
    return out


class DeviceTest(unittest.TestCase):
    def setUp(self):
        self.dev = FakeDevice()
        self.cap = Capture().__enter__()

    def tearDown(self):
        feedscope.device_timeline(None)
        self.cap.__exit__()
        self.assertEqual(self.dev.violations, [])

    def batches(self, n, idle_ms):
        """N batches; the device's clock moves by idle_ms(k) while batch k
        is made (between the two events of its wait)."""
        for k in range(n):
            self.dev.clock += idle_ms(k)
            yield k

    def register(self):
        feedscope.device_timeline(self.dev.factory)
        recs = self.cap.take()
        self.assertEqual(recs, ["M1 %d hook.device_timeline.%d user" % (os.getpid(), os.getpid())])


class TestRing(DeviceTest):
    def test_lag_order_and_close(self):
        self.register()
        dev, cap = self.dev, self.cap
        it = iter(feedscope.watch(self.batches(6, lambda k: 5.0 if k % 2 == 0 else 0.0), name="lag"))
        self.assertEqual(next(it), 0)
        self.assertEqual(kinds(cap.take()), [])                # step 0's compute is not known yet
        self.assertEqual(next(it), 1)
        self.assertEqual(kinds(cap.take()), [("S2", 0, None)])  # its events are not complete
        dev.complete(*dev.step(1))                               # step 1 completes first
        self.assertEqual(next(it), 2)
        self.assertEqual(kinds(cap.take()), [("S2", 1, None)])  # ... but step 0 goes first
        dev.complete(*dev.step(0))
        self.assertEqual(next(it), 3)
        self.assertEqual(kinds(cap.take()), [("S2", 2, None), ("D1", 0, 5000000), ("D1", 1, 0)])
        dev.complete(dev.step(2)[1])                             # only the end of step 2's wait
        self.assertEqual(next(it), 4)
        self.assertEqual(kinds(cap.take()), [("S2", 3, None)])
        dev.complete_through(dev.step(3)[1])
        self.assertEqual(next(it), 5)
        self.assertEqual(kinds(cap.take()), [("S2", 4, None), ("D1", 2, 5000000), ("D1", 3, 0)])
        self.assertEqual(dev.elapsed, 4)
        it.close()                                               # steps 4 and 5: not complete
        self.assertEqual(kinds(cap.take()), [("S2", 5, None), ("D1", 4, "-"), ("D1", 5, "-")])
        self.assertEqual(dev.elapsed, 4)
        it.close()
        self.assertEqual(cap.take(), [])
        # the records themselves
        recs = [r.raw for r in RX.records()]
        pid = os.getpid()
        mine = [r for r in recs if r.split(" ")[2:3] == ["lag"]]
        self.assertEqual(len(mine), 12)
        for r in mine:
            self.assertTrue(S2.match(r) or D1.match(r), r)
            self.assertEqual(int(r.split(" ")[1]), pid)
        self.assertIn("D1 %d lag 0 0 5000000" % pid, mine)

    def test_epoch_end_sends_what_is_complete_and_gives_up_the_rest(self):
        self.register()
        dev, cap = self.dev, self.cap
        got = []
        for k in feedscope.watch(self.batches(4, lambda k: 1.5), name="end"):
            got.append(k)
            if k == 3:
                dev.complete_through(dev.step(1)[1])
        self.assertEqual(got, [0, 1, 2, 3])
        recs = cap.take()
        self.assertEqual(kinds(recs), [("S2", 0, None), ("S2", 1, None), ("S2", 2, None), ("S2", 3, None),
                                       ("D1", 0, 1500000), ("D1", 1, 1500000), ("P1", None, None),
                                       ("D1", 2, "-"), ("D1", 3, "-")])
        self.assertTrue(recs[6].startswith("P1 %d epoch_end " % os.getpid()), recs[6])

    def test_without_a_timeline_steps_are_s1_as_before(self):
        cap = self.cap
        for _ in feedscope.watch(range(3), name="plain"):
            pass
        recs = cap.take()
        self.assertEqual([r.split(" ")[0] for r in recs], ["S1", "S1", "S1", "P1"])
        for r in recs[:3]:
            self.assertTrue(S1.match(r), r)
        # registered, then taken back: S1 again, nothing else
        self.register()
        feedscope.device_timeline(None)
        for _ in feedscope.watch(range(2), name="back"):
            pass
        self.assertEqual([r.split(" ")[0] for r in cap.take()], ["S1", "S1", "P1"])
        self.assertEqual(self.dev.made, 0)

    def test_events_are_reused_after_warm_up(self):
        """Events complete two steps after their step: after the first
        epoch's warm-up no event is made, in that epoch or the next ones."""
        self.register()
        dev, cap = self.dev, self.cap
        made_after = []
        for epoch in range(3):
            for k in feedscope.watch(self.batches(300, lambda k: 0.25), name="reuse"):
                dev.complete_through(len(dev.recs) - 5)   # all but the latest two steps' events
                if epoch == 0 and k == 10:
                    made_after.append(dev.made)
            dev.complete_through(len(dev.recs) - 1)
            made_after.append(dev.made)
        self.assertLessEqual(made_after[0], 2 * 5)
        self.assertEqual(made_after[1:], [made_after[0]] * 3)
        d1 = [x for x in kinds(cap.take()) if x[0] == "D1"]
        self.assertEqual(len(d1), 900)
        self.assertEqual(sum(1 for x in d1 if x[2] == 250000), 900 - 3 * 2)  # each epoch's last two: given up
        self.assertEqual([x[1] for x in d1], [k for _ in range(3) for k in range(300)])

    def test_a_device_far_behind(self):
        """Events never complete: at most RING_MAX steps wait for their
        figure; the oldest goes without (in order) and its events are never
        recorded again."""
        self.register()
        cap = self.cap
        it = iter(feedscope.watch(self.batches(200, lambda k: 1.0), name="far"))
        for k in it:
            self.assertLessEqual(len(it._fs_st.ring), feedscope.RING_MAX)
        d1 = [x for x in kinds(cap.take()) if x[0] == "D1"]
        self.assertEqual([x[1] for x in d1], list(range(200)))
        self.assertTrue(all(x[2] == "-" for x in d1))
        self.assertEqual(self.dev.elapsed, 0)

    def test_two_loops_at_once(self):
        """A loop inside another (validation inside training): each its own
        ring; D1s carry their loop's name and epoch."""
        self.register()
        dev, cap = self.dev, self.cap
        outer = feedscope.watch(self.batches(3, lambda k: 2.0), name="train")
        for k in outer:
            for j in feedscope.watch(range(2), name="val"):
                pass
        dev.complete_through(len(dev.recs) - 1)
        for _ in feedscope.watch(range(1), name="last"):
            pass
        recs = cap.take()
        val = [r for r in recs if r.startswith("D1") and " val " in r]
        train = [r for r in recs if r.startswith("D1") and " train " in r]
        self.assertEqual(len(val), 6)           # 3 epochs x 2, each given up at its end
        self.assertTrue(all(r.endswith(" -") for r in val))
        self.assertEqual([r.split(" ")[3:5] for r in train], [["0", "0"], ["0", "1"], ["0", "2"]])

    def test_a_failing_timeline_is_turned_off_once(self):
        self.register()
        dev, cap = self.dev, self.cap
        calls = {"n": 0}
        real = FakeEvent.record

        def record(ev, stream=None):
            calls["n"] += 1
            if calls["n"] == 5:                   # the start of step 2's wait
                raise RuntimeError("device lost")
            real(ev)
        FakeEvent.record = record
        err, sys.stderr = sys.stderr, io.StringIO()
        _channel._warned.discard("timeline")
        try:
            for _ in feedscope.watch(self.batches(5, lambda k: 1.0), name="fail"):
                pass
            for _ in feedscope.watch(range(2), name="after"):
                pass
            said = sys.stderr.getvalue()
        finally:
            sys.stderr = err
            FakeEvent.record = real
        self.assertEqual(said.count("\n"), 1, said)
        self.assertIn("the device timeline failed (RuntimeError: device lost)", said)
        self.assertEqual(kinds(cap.take()), [("S2", 0, None), ("S2", 1, None), ("D1", 0, "-"), ("D1", 1, "-"),
                                             ("S1", 2, None), ("S1", 3, None), ("S1", 4, None), ("P1", None, None),
                                             ("S1", 0, None), ("S1", 1, None), ("P1", None, None)])
        self.assertEqual(dev.elapsed, 0)

    def test_not_callable_is_ignored(self):
        err, sys.stderr = sys.stderr, io.StringIO()
        try:
            feedscope.device_timeline(42)
            said = sys.stderr.getvalue()
        finally:
            sys.stderr = err
        self.assertIn("not callable", said)
        for _ in feedscope.watch(range(1), name="n"):
            pass
        self.assertEqual([r.split(" ")[0] for r in self.cap.take()], ["S1", "P1"])


class TestProcess(unittest.TestCase):
    """In a fresh interpreter: exit with steps awaiting figures, a forked
    child, and no feedscope."""

    def setUp(self):
        self.rx = Receiver()

    def tearDown(self):
        self.rx.close()

    def job(self, code, markers=True):
        env = self.rx.env()
        if not markers:
            env.pop("FEEDSCOPE_MARKERS")
        p = subprocess.run([sys.executable, "-c", FAKE + textwrap.dedent(code)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout, p.stderr, [r.raw for r in self.rx.records()]

    def test_exit_sends_the_rest_without_figures(self):
        out, err, recs = self.job("""
            import os, feedscope
            dev = FakeDevice()
            feedscope.device_timeline(dev.factory, name="fake dev")
            it = iter(feedscope.watch(range(10), name="x"))
            for k in it:
                if k == 1:
                    dev.complete_through(1)     # step 0's events
                if k == 3:
                    break                       # it is kept: its last step ends at exit
            print(os.getpid(), dev.violations)
        """)
        pid, violations = out.split(" ", 1)
        self.assertEqual(violations.strip(), "[]")
        self.assertEqual(err, "")
        self.assertEqual(recs[0], "M1 %s hook.device_timeline.%s user: fake dev" % (pid, pid))
        self.assertEqual(kinds(recs[1:]), [("S2", 0, None), ("S2", 1, None), ("D1", 0, 0), ("S2", 2, None),
                                           ("S2", 3, None), ("D1", 1, "-"), ("D1", 2, "-"), ("D1", 3, "-")])

    def test_a_forked_child_has_no_timeline(self):
        out, err, recs = self.job("""
            import os, feedscope
            dev = FakeDevice()
            feedscope.device_timeline(dev.factory)
            pid = os.fork()
            if pid == 0:
                for _ in feedscope.watch(range(2), name="child"):
                    pass
                os._exit(0)
            os.waitpid(pid, 0)
            for _ in feedscope.watch(range(2), name="parent"):
                pass
            print(pid)
        """)
        child = out.strip()
        mine = [r.split(" ")[0] for r in recs if r.split(" ")[1] == child]
        self.assertEqual(mine, ["S1", "S1", "P1"])
        parent = [r.split(" ")[0] for r in recs if " parent " in r]
        self.assertEqual(parent, ["S2", "S2", "D1", "D1"])

    def test_without_feedscope_nothing(self):
        out, err, recs = self.job("""
            import feedscope
            dev = FakeDevice()
            feedscope.device_timeline(dev.factory)
            for _ in feedscope.watch(range(3)):
                pass
            print(dev.made)
        """, markers=False)
        self.assertEqual(out.strip(), "0")
        self.assertEqual(recs, [])


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        RX.close()
