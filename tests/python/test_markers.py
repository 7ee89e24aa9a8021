"""Tests of the feedscope Python package (stdlib only, any Python >= 3.8).

Each case runs a small job in a fresh interpreter with the environment
`feedscope run` gives it, against a receiving socket bound here (fsrecv.py),
and checks the records exactly: formats, epochs and steps, phases, meta,
the no-op path, the channel going away, fork. No timing is asserted; times
are only checked for order (a step's compute ends before the next batch is
asked for).

    python3 tests/python/test_markers.py [-v]
"""
import os
import re
import subprocess
import sys
import textwrap
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fsrecv import PYDIR, Receiver  # noqa: E402

S1 = re.compile(r"^S1 (\d+) (\S+) (\d+) (\d+) (\d+) (\d+) (\d+)$")
P1 = re.compile(r"^P1 (\d+) (\S+) (\d+) (\d+)$")
M1 = re.compile(r"^M1 (\d+) (\S+) (.*)$")


class MarkerTest(unittest.TestCase):
    def setUp(self):
        self.rx = Receiver()

    def tearDown(self):
        self.rx.close()

    def job(self, code, markers=True, env=None, stdin=None, check=True, proc=False):
        """Run CODE in a new interpreter; returns (stdout, stderr, records)."""
        e = self.rx.env() if markers else dict(os.environ, PYTHONPATH=PYDIR)
        if not markers:
            e.pop("FEEDSCOPE_MARKERS", None)
        e.update(env or {})
        argv = [sys.executable, "-c", textwrap.dedent(code)]
        if proc:
            return subprocess.Popen(argv, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, universal_newlines=True)
        p = subprocess.run(argv, env=e, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        if check and p.returncode != 0:
            self.fail("job exited %d:\n%s" % (p.returncode, p.stderr))
        return p.stdout, p.stderr, [r.raw for r in self.rx.records()]

    def steps(self, recs, loader=None):
        """[(pid, loader, epoch, step, t, wait, compute)] of the S1 records."""
        out = []
        for r in recs:
            if r.startswith("S1 "):
                m = S1.match(r)
                self.assertIsNotNone(m, "malformed S1 record %r" % r)
                pid, name, *nums = m.groups()
                row = (int(pid), name) + tuple(int(x) for x in nums)
                if loader is None or name == loader:
                    out.append(row)
        return out

    def assertOrdered(self, steps):
        """Within an epoch: a step's batch is handed over after the previous
        step's compute ended, and T_NS grows."""
        for a, b in zip(steps, steps[1:]):
            if a[1:3] == b[1:3]:
                self.assertLessEqual(a[4] + a[6], b[4] - b[5], (a, b))


class TestSteps(MarkerTest):
    def test_record_format_and_fields(self):
        out, err, recs = self.job("""
            import os, time, feedscope
            t0 = time.monotonic_ns()
            for x in feedscope.watch(range(3), name="my loader\\tx"):
                time.sleep(0.001)
            t1 = time.monotonic_ns()
            print(os.getpid(), t0, t1, feedscope.enabled())
        """)
        pid, t0, t1, on = out.split()
        self.assertEqual(on, "True")
        self.assertEqual(err, "")
        self.assertEqual(len(recs), 4, recs)
        steps = self.steps(recs)
        for k, s in enumerate(steps):
            self.assertEqual(s[:4], (int(pid), "my_loader_x", 0, k))
            self.assertTrue(int(t0) <= s[4] - s[5] and s[4] + s[6] <= int(t1), s)
        self.assertOrdered(steps)
        # the call that raised StopIteration: an epoch_end phase after the last step
        kind, p, name, a, b = recs[3].split()
        self.assertEqual((kind, int(p), name), ("P1", int(pid), "epoch_end"))
        self.assertTrue(steps[-1][4] + steps[-1][6] <= int(a) <= int(b) <= int(t1), recs[3])

    def test_epochs_and_steps_exact(self):
        _, _, recs = self.job("""
            import feedscope
            w = feedscope.watch(range(5), name="a")
            for epoch in range(3):
                for x in w:
                    pass
            e = feedscope.watch([], name="empty")
            for x in e: pass                      # epoch 0: no steps
            for x in feedscope.watch([7], name="one"): pass
            for x in e: pass                      # epoch 1: no steps
            g = feedscope.watch((i for i in range(2)), name="gen")
            for x in g: pass                      # epoch 0: 2 steps
            for x in g: pass                      # epoch 1: exhausted, 0 steps
        """)
        a = self.steps(recs, "a")
        self.assertEqual([(s[2], s[3]) for s in a], [(e, k) for e in range(3) for k in range(5)])
        self.assertOrdered(a)
        self.assertEqual(self.steps(recs, "empty"), [])
        self.assertEqual([(s[2], s[3]) for s in self.steps(recs, "one")], [(0, 0)])
        self.assertEqual([(s[2], s[3]) for s in self.steps(recs, "gen")], [(0, 0), (0, 1)])
        # one epoch_end per epoch that ran out: a 3, empty 2, one 1, gen 2
        ends = [r for r in recs if r.split()[:1] == ["P1"] and r.split()[2] == "epoch_end"]
        self.assertEqual(len(ends), 8)
        self.assertEqual(len(recs), 15 + 1 + 2 + 8)

    def test_break_close_and_exit_keep_the_last_step(self):
        out, err, recs = self.job("""
            import feedscope
            w = feedscope.watch(range(10), name="brk")
            for epoch in range(2):
                for x in w:
                    if x == 3:
                        break                      # step 3's compute ends here
            it = iter(feedscope.watch(range(10), name="closed"))
            next(it); next(it)
            it.close()                             # step 1 ends at close()
            it.close()                             # a second close adds nothing
            kept = iter(feedscope.watch(range(10), name="kept"))
            next(kept)                             # still pending at exit
            print("ok")
        """)
        self.assertEqual(out, "ok\n")
        self.assertEqual(err, "")
        brk = self.steps(recs, "brk")
        self.assertEqual([(s[2], s[3]) for s in brk], [(e, k) for e in range(2) for k in range(4)])
        self.assertOrdered(brk)
        self.assertEqual([(s[2], s[3]) for s in self.steps(recs, "closed")], [(0, 0), (0, 1)])
        self.assertEqual([(s[2], s[3]) for s in self.steps(recs, "kept")], [(0, 0)])

    def test_errors_from_the_iterable_go_through(self):
        out, _, recs = self.job("""
            import feedscope
            class Boom(Exception): pass
            err = Boom("disk on fire")
            def batches():
                yield 1
                yield 2
                raise err
            try:
                for x in feedscope.watch(batches(), name="boom"):
                    pass
            except Boom as e:
                print("caught", e is err)
        """)
        self.assertEqual(out, "caught True\n")
        self.assertEqual([(s[2], s[3]) for s in self.steps(recs, "boom")], [(0, 0), (0, 1)])

    def test_wrapper_is_transparent(self):
        out, _, recs = self.job("""
            import feedscope
            class Loader:
                batch_size = 4
                def __init__(self): self.items = [1, 2, 3]
                def __iter__(self): return iter(self.items)
                def __len__(self): return 3
            w = feedscope.watch(Loader(), name="t")
            w.extra = "set through"
            print(len(w), w.batch_size, w.extra, w.items[1], 2 in w.items, bool(w))
            l = feedscope.watch([5, 6, 7], name="l")
            print(l[0], 6 in l, len(l), list(l), sum(l))
            it = iter(l)
            print(it.__length_hint__(), type(feedscope.watch(7)).__name__)
        """)
        self.assertEqual(out, "3 4 set through 2 True True\n5 True 3 [5, 6, 7] 18\n3 _Watched\n")
        # list(l) and sum(l) are two epochs; `in` and indexing are not
        self.assertEqual(sorted({(s[2]) for s in self.steps(recs, "l")}), [0, 1])

    def test_threads(self):
        _, _, recs = self.job("""
            import threading, time, feedscope
            def loop(name):
                w = feedscope.watch(range(200), name=name)
                for e in range(2):
                    for x in w:
                        time.sleep(0.0002)   # a step rate the test's receiver keeps up with
            ts = [threading.Thread(target=loop, args=("t%d" % i,)) for i in range(3)]
            for t in ts: t.start()
            for t in ts: t.join()
        """)
        for i in range(3):
            got = [(s[2], s[3]) for s in self.steps(recs, "t%d" % i)]
            self.assertEqual(got, [(e, k) for e in range(2) for k in range(200)])


class TestPhasesAndMeta(MarkerTest):
    def test_phases(self):
        out, err, recs = self.job("""
            import asyncio, feedscope
            with feedscope.phase("outer"):
                with feedscope.phase("inner"):
                    pass
            class Oops(Exception): pass
            try:
                with feedscope.phase("failing"):
                    raise Oops("x")
            except Oops as e:
                print("propagated", type(e).__name__)
            @feedscope.phase("eval")
            def evaluate(x):
                return x * 2
            print(evaluate(2), evaluate(3), evaluate.__name__)
            @feedscope.phase("aeval")
            async def aeval():
                await asyncio.sleep(0.001)
                return "async"
            print(asyncio.run(aeval()))
            p = feedscope.phase("reused")
            with p:
                with p:
                    pass
        """)
        self.assertEqual(out, "propagated Oops\n4 6 evaluate\nasync\n")
        self.assertEqual(err, "")
        ph = []
        for r in recs:
            m = P1.match(r)
            self.assertIsNotNone(m, r)
            ph.append((m.group(2), int(m.group(3)), int(m.group(4))))
        self.assertEqual([p[0] for p in ph],
                         ["inner", "outer", "failing", "eval", "eval", "aeval", "reused", "reused"])
        inner, outer = ph[0], ph[1]
        self.assertTrue(outer[1] <= inner[1] <= inner[2] <= outer[2])
        for name, t0, t1 in ph:
            self.assertLessEqual(t0, t1)
        self.assertTrue(ph[7][1] <= ph[6][1] <= ph[6][2] <= ph[7][2])  # inner use ends first

    def test_meta(self):
        out, _, recs = self.job("""
            import os, feedscope
            feedscope.meta("model.params", 25000000)
            feedscope.meta("amp enabled", True)
            feedscope.meta("opt", None)
            feedscope.meta("note", "two\\nlines and   spaces")
            feedscope.meta("long", "v" * 5000)
            feedscope.meta("caf\\u00e9", "\\u00e9t\\u00e9")
            feedscope.meta("user.already", 1)
            feedscope.meta("loader.dali.num_threads", 8)     # a loader the hook cannot see
            feedscope.meta("k" * 300, 1)
            print(os.getpid())
        """)
        pid = out.strip()
        self.assertEqual(recs[:4], [
            "M1 %s user.model.params 25000000" % pid,
            "M1 %s user.amp_enabled true" % pid,
            "M1 %s user.opt none" % pid,
            "M1 %s user.note two lines and   spaces" % pid,
        ])
        self.assertTrue(recs[4].startswith("M1 %s user.long vvv" % pid))
        self.assertEqual(len(recs[4]), 1024)
        self.assertEqual(recs[5:8], ["M1 %s user.caf\\xe9 \\xe9t\\xe9" % pid,
                                     "M1 %s user.already 1" % pid,
                                     "M1 %s loader.dali.num_threads 8" % pid])
        self.assertEqual(recs[8], "M1 %s user.%s 1" % (pid, "k" * 120))   # keys stay < 128 bytes
        for r in recs:
            self.assertIsNotNone(M1.match(r), r)

    def test_long_names_are_cut(self):
        _, _, recs = self.job("""
            import feedscope
            for x in feedscope.watch([1], name="n" * 500): pass
            with feedscope.phase("p" * 500): pass
        """)
        recs = [r for r in recs if " epoch_end " not in r]
        self.assertEqual(len(recs), 2)
        self.assertEqual(recs[0].split()[2], "n" * 64)
        self.assertEqual(recs[1].split()[2], "p" * 64)


class TestNoOp(MarkerTest):
    def test_nothing_happens_without_the_variable(self):
        out, err, recs = self.job("""
            import sys, feedscope
            from feedscope import _channel
            data = [1, 2, 3]
            print(feedscope.watch(data) is data, feedscope.enabled())
            with feedscope.phase("x") as p:
                pass
            f = lambda: 1
            print(feedscope.phase("y")(f) is f)
            feedscope.meta("k", "v")
            for x in feedscope.watch(range(3)): pass
            print(_channel._sock is None, "socket" in sys.modules)
        """, markers=False)
        self.assertEqual(out, "True False\nTrue\nTrue False\n")
        self.assertEqual(err, "")
        self.assertEqual(recs, [])


class TestChannel(MarkerTest):
    def test_feedscope_gone_mid_run(self):
        p = self.job("""
            import sys, feedscope
            from feedscope import _channel
            total = 0
            for x in feedscope.watch(range(2000), name="gone"):
                total += x
                if x == 100:
                    print("ready", flush=True)
                    sys.stdin.readline()          # the receiver closes meanwhile
                with feedscope.phase("p"):
                    pass
            feedscope.meta("after", 1)
            print(total, _channel._dead, feedscope.enabled())
        """, proc=True)
        self.assertEqual(p.stdout.readline(), "ready\n")
        deadline = time.monotonic() + 30
        while self.rx.steps_seen < 100 and time.monotonic() < deadline:
            time.sleep(0.01)                      # what was sent before is read
        self.rx.close_socket()
        out, err = p.communicate("go\n", timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out, "%d True False\n" % sum(range(2000)))
        self.assertEqual(err, "")   # feedscope going away is not the job's business
        steps = self.steps([r.raw for r in self.rx.records()], "gone")
        self.assertEqual([s[3] for s in steps], list(range(100)))

    def test_nobody_listening(self):
        out, err, _ = self.job("""
            import feedscope
            print(sum(x for x in feedscope.watch(range(50))), feedscope.enabled())
        """, env={"FEEDSCOPE_MARKERS": "@feedscope-nobody-%d" % os.getpid()})
        self.assertEqual((out, err), ("1225 False\n", ""))

    def test_bad_variable_warns_once(self):
        out, err, _ = self.job("""
            import feedscope
            for x in feedscope.watch(range(5)): pass
            with feedscope.phase("p"): pass
            print("fine")
        """, env={"FEEDSCOPE_MARKERS": "not-an-address"})
        self.assertEqual(out, "fine\n")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith("feedscope: FEEDSCOPE_MARKERS="), err)

    def test_fork_child_sends_with_its_own_pid(self):
        out, _, recs = self.job("""
            import os, feedscope
            for x in feedscope.watch(range(2), name="parent"): pass   # socket now open
            pending = iter(feedscope.watch(range(5), name="pending"))
            next(pending)                       # a step in flight while forking
            pid = os.fork()
            if pid == 0:
                for x in feedscope.watch(range(3), name="child"): pass
                feedscope.meta("child.pid", os.getpid())
                raise SystemExit(0)             # normal exit: atexit runs here too
            os.waitpid(pid, 0)
            pending.close()
            pid2 = os.fork()
            if pid2 == 0:                       # a child of a parent that never sent
                os._exit(0)
            os.waitpid(pid2, 0)
            print(os.getpid(), pid)
        """)
        parent, child = (int(x) for x in out.split())
        self.assertEqual({s[0] for s in self.steps(recs, "parent")}, {parent})
        self.assertEqual([(s[0], s[3]) for s in self.steps(recs, "child")],
                         [(child, 0), (child, 1), (child, 2)])
        self.assertIn("M1 %d user.child.pid %d" % (child, child), recs)
        # the parent's step in flight is the parent's, recorded once
        self.assertEqual([(s[0], s[3]) for s in self.steps(recs, "pending")], [(parent, 0)])

    def test_burst_arrives_whole(self):
        # A burst waits in the connection's send buffer (1 MiB asked for:
        # ~1300 records) until the receiver reads it; none is dropped.
        out, _, recs = self.job("""
            import feedscope
            from feedscope import _channel
            for i in range(500):
                feedscope.meta("burst.%d" % i, i)
            print(_channel.dropped)
        """)
        self.assertEqual(out, "0\n")
        self.assertEqual(len(recs), 500)

    def test_sigpipe_does_not_kill_the_job(self):
        # A job that restores SIGPIPE's default action must not die of it
        # when feedscope goes away (records are sent with MSG_NOSIGNAL).
        p = self.job("""
            import signal, sys, feedscope
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            for x in feedscope.watch(range(10)): pass
            print("ready", flush=True)
            sys.stdin.readline()
            for x in feedscope.watch(range(10)): pass
            print("survived", feedscope.enabled())
        """, proc=True)
        self.assertEqual(p.stdout.readline(), "ready\n")
        self.rx.close_socket()
        out, err = p.communicate("go\n", timeout=60)
        self.assertEqual((p.returncode, out, err), (0, "survived False\n", ""))


class TestHookEntry(MarkerTest):
    """feedscope_hook/sitecustomize.py without torch: it installs the import
    hook and leaves `sitecustomize` as it would be without it (the one it
    shadows, or none)."""
    CODE = """
        import sys
        print(getattr(sys.modules.get("sitecustomize"), "__file__", None))
        print([type(f).__name__ for f in sys.meta_path if type(f).__module__ == "feedscope._torch"])
        print("torch" in sys.modules)
    """

    def test_sitecustomize_is_the_one_it_shadows(self):
        env = self.rx.env(hook=True)
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(self.CODE)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        plain_env = {k: v for k, v in os.environ.items() if not k.startswith("FEEDSCOPE_")}
        q = subprocess.run([sys.executable, "-c", textwrap.dedent(self.CODE)], env=plain_env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        hooked, plain = p.stdout.splitlines(), q.stdout.splitlines()
        self.assertEqual(hooked[0], plain[0])            # the same sitecustomize, or none
        self.assertEqual(hooked[1:], ["['_Finder']", "False"])
        self.assertEqual(plain[1:], ["[]", "False"])


if __name__ == "__main__":
    unittest.main()
