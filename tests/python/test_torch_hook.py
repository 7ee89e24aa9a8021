"""Tests of the zero-code PyTorch hook (python/feedscope/_torch.py and
python/feedscope_hook/sitecustomize.py) with real torch, against a receiving
socket bound here. Run with Debian's python3 (it has python3-torch):

    /usr/bin/python3 tests/python/test_torch_hook.py [-v]

Each case starts a fresh interpreter with the environment `feedscope run
--pytorch` gives a job. No timing is asserted.
"""
import os
import subprocess
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fsrecv import Receiver  # noqa: E402

PRELUDE = """
import os, sys, time, torch
from torch.utils.data import DataLoader, Dataset, IterableDataset
class DS(Dataset):
    def __len__(self): return 12
    def __getitem__(self, i): return i
class Outer:
    class Inner(DS): pass
"""


class HookTest(unittest.TestCase):
    def setUp(self):
        self.rx = Receiver()

    def tearDown(self):
        self.rx.close()

    def job(self, code, hook=True, markers=True, prelude=True, check=True):
        """Run CODE (after PRELUDE) in /usr/bin/python3-like sys.executable;
        returns (stdout, stderr, raw records)."""
        env = self.rx.env(hook=hook)
        if not markers:
            env.pop("FEEDSCOPE_MARKERS")
        src = (PRELUDE if prelude else "") + textwrap.dedent(code)
        p = subprocess.run([sys.executable, "-c", src], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        if check and p.returncode != 0:
            self.fail("job exited %d:\n%s" % (p.returncode, p.stderr))
        return p.stdout, p.stderr, [r.raw for r in self.rx.records()]

    def plain(self, code, prelude=True):
        """CODE's stdout without feedscope (no variables, no hook on the path)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("FEEDSCOPE_")}
        src = (PRELUDE if prelude else "") + textwrap.dedent(code)
        p = subprocess.run([sys.executable, "-c", src], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout, p.stderr

    @staticmethod
    def steps(recs, loader):
        out = []
        for r in recs:
            f = r.split(" ")
            if f[0] == "S1" and f[2] == loader:
                out.append((int(f[1]), int(f[3]), int(f[4])))
        return out

    @staticmethod
    def meta(recs):
        m = {}
        for r in recs:
            f = r.split(" ", 3)
            if f[0] == "M1":
                m.setdefault(f[2], []).append(f[3])
        return m


class TestInstall(HookTest):
    def test_import_hook_leaves_imports_alone(self):
        out, err, recs = self.job("""
            import sys, importlib.util
            print("torch at start:", "torch" in sys.modules)
            print("finders:", [type(f).__name__ for f in sys.meta_path if type(f).__module__ == "feedscope._torch"])
            print("find_spec:", importlib.util.find_spec("torch").name)   # an "is it installed?" test
            import json, torch, inspect
            from torch.utils.data import DataLoader
            print("finders after:", [f for f in sys.meta_path if type(f).__module__ == "feedscope._torch"])
            print("loader:", type(torch.__spec__.loader).__name__, torch.__loader__ is torch.__spec__.loader)
            print("patched:", DataLoader.__iter__._feedscope, torch.save is torch.serialization.save,
                  torch.save.__wrapped__.__module__)
            print("signature:", "batch_size" in inspect.signature(DataLoader.__init__).parameters)
            print("sitecustomize:", getattr(sys.modules.get("sitecustomize"), "__file__", None))
        """, prelude=False)
        plain, _ = self.plain("""
            import sys
            print(getattr(sys.modules.get("sitecustomize"), "__file__", None))
        """, prelude=False)
        self.assertEqual(out, "torch at start: False\nfinders: ['_Finder']\nfind_spec: torch\n"
                         "finders after: []\nloader: SourceFileLoader True\n"
                         "patched: True True torch.serialization\nsignature: True\n"
                         "sitecustomize: %s" % plain)
        self.assertEqual(err, "")
        self.assertEqual(recs, [])   # importing torch sends nothing

    def test_off_without_markers_or_hook_variable(self):
        code = """
            print(getattr(DataLoader.__iter__, "_feedscope", False), "feedscope._torch" in sys.modules)
            for b in DataLoader(DS(), batch_size=4): pass
        """
        out, err, recs = self.job(code, markers=False)
        self.assertEqual((out, err, recs), ("False False\n", "", []))
        out, err, recs = self.job(code, hook=False)
        self.assertEqual((out, err, recs), ("False False\n", "", []))


class TestLoaders(HookTest):
    def test_names_config_and_epochs(self):
        code = """
            from torch.utils.data import (BatchSampler, SequentialSampler, SubsetRandomSampler,
                                          DistributedSampler)
            class Stream(IterableDataset):
                def __iter__(self): return iter(range(6))
            a = DataLoader(DS(), batch_size=4, shuffle=True)
            b = DataLoader(DS(), batch_sampler=BatchSampler(SequentialSampler(range(12)), 3, False))
            c = DataLoader(Outer.Inner(), batch_size=6, sampler=SubsetRandomSampler(range(12)), drop_last=True)
            d = DataLoader(DS(), batch_size=4, sampler=DistributedSampler(DS(), num_replicas=1, rank=0, shuffle=False))
            e = DataLoader(Stream(), batch_size=2)
            f = DataLoader(DS(), batch_size=6, num_workers=2, multiprocessing_context="fork",
                           persistent_workers=True, timeout=30, prefetch_factor=3)
            for epoch in range(3):
                for loader in (a, b, c, d, e, f):
                    for batch in loader:
                        pass
            it = iter(a)
            from torch.utils.data.dataloader import _SingleProcessDataLoaderIter
            print(isinstance(it, _SingleProcessDataLoaderIter), len(it), it._num_yielded, len(a))
            print(os.getpid())
        """
        out, err, recs = self.job(code)
        plain, _ = self.plain(code)
        self.assertEqual(out.splitlines()[0], plain.splitlines()[0])
        self.assertEqual(out.splitlines()[0], "True 3 0 3")
        pid = int(out.splitlines()[1])
        self.assertEqual(err, "")
        expect_steps = {"DS": 3, "DS_2": 4, "Inner": 2, "DS_3": 3, "Stream": 3, "DS_4": 2}
        for name, n in expect_steps.items():
            self.assertEqual(self.steps(recs, name),
                             [(pid, e, k) for e in range(3) for k in range(n)], name)
        m = self.meta(recs)
        for key, values in m.items():
            self.assertEqual(len(values), 1, "%s sent %d times" % (key, len(values)))
        m = {k: v[0] for k, v in m.items()}
        self.assertEqual(m["hook.pytorch"], self.torch_version())
        want = {
            "DS": dict(num_workers="0", batch_size="4", shuffle="true", prefetch_factor="2",
                       pin_memory="false", persistent_workers="false", multiprocessing_context="default",
                       drop_last="false", timeout="0", dataset="__main__.DS", dataset_kind="map",
                       sampler="torch.utils.data.sampler.RandomSampler",
                       batch_sampler="torch.utils.data.sampler.BatchSampler"),
            "DS_2": dict(batch_size="3", shuffle="false", sampler="torch.utils.data.sampler.SequentialSampler"),
            "Inner": dict(batch_size="6", shuffle="true", drop_last="true", dataset="__main__.Outer.Inner",
                          sampler="torch.utils.data.sampler.SubsetRandomSampler"),
            "DS_3": dict(shuffle="false", sampler="torch.utils.data.distributed.DistributedSampler"),
            "Stream": dict(dataset_kind="iterable", shuffle="false", dataset="__main__.Stream"),
            "DS_4": dict(num_workers="2", multiprocessing_context="fork", persistent_workers="true",
                         timeout="30", prefetch_factor="3", batch_size="6", shuffle="false"),
        }
        for name, knobs in want.items():
            for knob, value in knobs.items():
                self.assertEqual(m.get("loader.%s.%s" % (name, knob)), value, "%s.%s" % (name, knob))
        self.assertEqual(len([k for k in m if k.startswith("loader.DS.")]), 13)

    def torch_version(self):
        return subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                              stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()

    def test_break_and_persistent_workers(self):
        out, err, recs = self.job("""
            p = DataLoader(DS(), batch_size=2, num_workers=2, multiprocessing_context="fork",
                           persistent_workers=True)
            for epoch in range(3):
                for k, batch in enumerate(p):
                    if k == 2:
                        break
            print(os.getpid())
        """)
        pid = int(out)
        self.assertEqual(self.steps(recs, "DS"), [(pid, e, k) for e in range(3) for k in range(3)])

    def test_watch_takes_over_a_loader(self):
        out, err, recs = self.job("""
            import feedscope
            loader = DataLoader(DS(), batch_size=4)
            for epoch in range(2):
                for batch in feedscope.watch(loader, name="train"):
                    pass
        """)
        self.assertEqual(len(self.steps(recs, "train")), 6)
        self.assertEqual(self.steps(recs, "DS"), [])
        m = self.meta(recs)
        self.assertEqual(m.get("loader.train.batch_size"), ["4"])
        self.assertFalse([k for k in m if k.startswith("loader.DS.")])

    def test_torch_save_is_a_checkpoint_phase(self):
        out, err, recs = self.job("""
            r = torch.save({"w": torch.zeros(2)}, "ok.pt")
            try:
                torch.save({"w": 1}, "/nonexistent/dir/x.pt")
            except Exception as e:
                print("raised", type(e).__name__)
            print(r, torch.load("ok.pt")["w"].tolist())
            os.remove("ok.pt")
        """)
        plain, _ = self.plain("""
            try:
                torch.save({"w": 1}, "/nonexistent/dir/x.pt")
            except Exception as e:
                print("raised", type(e).__name__)
        """)
        self.assertEqual(out, plain + "None [0.0, 0.0]\n")
        phases = [r.split() for r in recs if r.startswith("P1 ")]
        self.assertEqual([p[2] for p in phases], ["checkpoint", "checkpoint"])
        for p in phases:
            self.assertLessEqual(int(p[3]), int(p[4]))

    COLLECTIVES = """
        import tempfile
        import torch.distributed as dist
        from torch.distributed import all_reduce as imported_all_reduce
        store = os.path.join(tempfile.mkdtemp(), "store")
        dist.init_process_group("gloo", init_method="file://" + store, rank=0, world_size=1)
        t = torch.ones(3)
        for _ in range(3):
            dist.all_reduce(t)
        dist.distributed_c10d.all_reduce(t)
        imported_all_reduce(t)
        got = [None]
        dist.all_gather_object(got, {"a": 1})
        dist.barrier()
        try:
            dist.all_reduce("not a tensor")
        except Exception as e:
            print("raised", type(e).__name__)
        print(t.tolist(), got)
        dist.destroy_process_group()
    """

    def test_collectives_are_phases(self):
        out, err, recs = self.job(self.COLLECTIVES)
        plain, _ = self.plain(self.COLLECTIVES)
        self.assertEqual(out, plain)
        self.assertIn("raised", out)
        phases = [r.split() for r in recs if r.startswith("P1 ")]
        # 3 + 1 + 1 all_reduce, all_gather_object (its inner calls are part
        # of it), barrier, and the call that raised: one phase each
        self.assertEqual([p[2] for p in phases], ["collective"] * 8)
        for p in phases:
            self.assertLessEqual(int(p[3]), int(p[4]))
        ends = [int(p[4]) for p in phases]
        self.assertEqual(ends, sorted(ends))


    RANKED = """
        import tempfile
        import torch.distributed as dist
        store = os.path.join(tempfile.mkdtemp(), "store")
        dist.init_process_group("gloo", init_method="file://" + store, rank=0, world_size=1)
        for b in DataLoader(DS(), batch_size=2):
            pass
        for b in DataLoader(DS(), batch_size=2):
            pass
        dist.destroy_process_group()
        print("done")
    """

    def test_rank_from_torch_distributed(self):
        # no RANK variable (as under torch.multiprocessing.spawn): the rank
        # comes from torch.distributed, once per process
        out, err, recs = self.job(self.RANKED)
        self.assertEqual(out.strip(), "done")
        ranks = [r.split() for r in recs if r.startswith("M1 ") and " hook.rank." in r]
        self.assertEqual(len(ranks), 1, recs)
        pid = ranks[0][1]
        self.assertEqual(ranks[0][2:], ["hook.rank.%s" % pid, "0"])
        self.assertIn("M1 %s hook.world_size.%s 1" % (pid, pid), recs)

    def test_no_rank_without_torch_distributed(self):
        out, err, recs = self.job("""
            for b in DataLoader(DS(), batch_size=2):
                pass
        """)
        self.assertFalse([r for r in recs if " hook.rank." in r], recs)


class TestSubclassesAndFailures(HookTest):
    SUBCLASSES = """
        class SuperLoader(DataLoader):
            def __iter__(self):
                return super().__iter__()
        class GenLoader(DataLoader):
            def __iter__(self):
                for b in super().__iter__():
                    yield b
        class OwnLoader(DataLoader):
            def __iter__(self):
                for idx in self.batch_sampler:
                    yield self.collate_fn([self.dataset[i] for i in idx])
        class Plain(DataLoader):
            pass
        class DS2(DS): pass
        class DS3(DS): pass
        class DS4(DS): pass
        out = []
        for epoch in range(2):
            for cls, ds in ((SuperLoader, DS()), (GenLoader, DS2()), (OwnLoader, DS3()),
                            (OwnLoader, DS3()), (Plain, DS4())):
                out.append([b.tolist() for b in cls(ds, batch_size=5)])
        print(out)
    """

    def test_subclasses(self):
        out, err, recs = self.job(self.SUBCLASSES)
        plain, plain_err = self.plain(self.SUBCLASSES)
        self.assertEqual(out, plain)
        self.assertEqual(plain_err, "")
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^feedscope: __main__\.OwnLoader\.__iter__ does not call "
                                   r"DataLoader\.__iter__, so its steps are not timed")
        # new loader objects each epoch: each is its own loader, epoch 0
        for name in ("DS", "DS_2", "DS2", "DS2_2", "DS4", "DS4_2"):
            self.assertEqual([s[1:] for s in self.steps(recs, name)], [(0, 0), (0, 1), (0, 2)], name)
        self.assertEqual(self.steps(recs, "DS3"), [])

    def test_a_failing_hook_is_swallowed_once(self):
        code = """
            import feedscope._torch as hook
            def broken(*a):
                raise RuntimeError("injected")
            hook._register = broken
            l1, l2 = DataLoader(DS(), batch_size=5), DataLoader(DS(), batch_size=4)
            print([[b.tolist() for b in l] for e in range(2) for l in (l1, l2)])
        """
        out, err, recs = self.job(code)
        plain, _ = self.plain(code.replace("import feedscope._torch as hook", "import types; hook = types.SimpleNamespace()"))
        self.assertEqual(out, plain)
        self.assertEqual(err, "feedscope: the PyTorch hook failed (RuntimeError: injected); "
                              "the job goes on without it\n")
        self.assertEqual([r for r in recs if r.startswith("S1 ")], [])


# torch.cuda as a job with a GPU sees it, in a CPU-only torch: initialised
# (is_initialized() True), its events complete at once; the device's clock
# moves 3 ms while each batch is made. Events made are counted, with their
# keyword arguments.
FAKE_CUDA = """
import torch, time
clock = [0.0]
made = []
class FakeCudaEvent:
    def __init__(self, **kw):
        made.append(kw)
        self.t = None
    def record(self, stream=None):
        self.t = clock[0]
    def query(self):
        return True
    def elapsed_time(self, end):
        return end.t - self.t
class Slow(Dataset):
    def __len__(self): return 4
    def __getitem__(self, i):
        clock[0] += 3.0
        return i
"""


class TestDeviceTimeline(HookTest):
    """The hook's own device timeline: torch's events only where the backend
    is initialised already, never initialising it."""

    def test_a_cpu_job_is_left_alone(self):
        out, err, recs = self.job("""
            for epoch in range(2):
                for batch in DataLoader(DS(), batch_size=4):
                    pass
            print(torch.cuda.is_initialized())
        """)
        self.assertEqual(out.strip(), "False")
        self.assertEqual(err, "")
        self.assertEqual(len(self.steps(recs, "DS")) + len(self.steps(recs, "DS_2")), 6)
        self.assertFalse([r for r in recs if r.split(" ")[0] in ("S2", "D1")])
        self.assertFalse([k for k in self.meta(recs) if k.startswith("hook.device_timeline")])

    def test_torch_cuda_events_once_initialised(self):
        out, err, recs = self.job(FAKE_CUDA + textwrap.dedent("""
            torch.cuda.Event = FakeCudaEvent
            loader = DataLoader(Slow(), batch_size=1)
            for batch in loader:                # epoch 0: CUDA not up yet
                pass
            loader2 = DataLoader(Slow(), batch_size=1)
            for k, batch in enumerate(loader2):  # up during its first step
                torch.cuda.is_initialized = lambda: True
            for k, batch in enumerate(loader):  # epoch 1: from its start
                pass
            print(os.getpid(), made[0], len(made))
        """))
        self.assertEqual(err, "")
        pid, kw, n = out.split(" ", 1)[0], out.split(" ", 1)[1].rsplit(" ", 1)[0], out.split()[-1]
        self.assertEqual(kw, "{'enable_timing': True}")
        self.assertLessEqual(int(n), 2 * 4)
        kinds = [(r.split(" ")[0], r.split(" ")[2], r.split(" ")[3], r.split(" ")[4]) for r in recs
                 if r.split(" ")[0] in ("S1", "S2", "D1")]
        self.assertEqual([k for k in kinds if k[1] == "Slow" and k[2] == "0"],
                         [("S1", "Slow", "0", str(k)) for k in range(4)])
        self.assertEqual([k[0] + k[3] for k in kinds if k[1] == "Slow" and k[2] == "1"],
                         ["S20", "D10", "S21", "D11", "S22", "D12", "S23", "D13"])
        self.assertEqual([k[0] + k[3] for k in kinds if k[1] == "Slow_2"],
                         ["S10", "S21", "D11", "S22", "D12", "S23", "D13"])
        figures = [r.split(" ")[5] for r in recs if r.startswith("D1 ")]
        self.assertEqual(figures, ["3000000"] * 7)
        self.assertEqual(self.meta(recs).get("hook.device_timeline.%s" % pid), ["torch.cuda"])

    def test_other_backends_and_the_generic_event(self):
        """torch.xpu's own Event class once it is initialised; a backend
        without one (torch.hpu here) through the generic torch.Event for its
        device; nothing while neither says it is initialised."""
        out, err, recs = self.job(FAKE_CUDA + textwrap.dedent("""
            import types
            class Generic(FakeCudaEvent):
                def __init__(self, device, **kw):
                    FakeCudaEvent.__init__(self, device=str(device), **kw)
            up = {"xpu": False, "hpu": False}
            torch.xpu = types.SimpleNamespace(is_initialized=lambda: up["xpu"], Event=FakeCudaEvent)
            torch.hpu = types.SimpleNamespace(is_initialized=lambda: up["hpu"])
            torch.Event = Generic
            for batch in DataLoader(Slow(), batch_size=2):
                pass
            up["hpu"] = True
            for batch in DataLoader(Slow(), batch_size=2):
                pass
            print(os.getpid(), sorted(made[0].items()))
        """))
        self.assertEqual(err, "")
        pid, kw = out.split(" ", 1)
        self.assertEqual(kw.strip(), "[('device', 'hpu'), ('enable_timing', True)]")
        self.assertEqual([r.split(" ")[0] + r.split(" ")[2] for r in recs if r[:2] in ("S1", "S2", "D1")],
                         ["S1Slow", "S1Slow", "S2Slow_2", "D1Slow_2", "S2Slow_2", "D1Slow_2"])
        self.assertEqual(self.meta(recs).get("hook.device_timeline.%s" % pid), ["torch.Event(hpu)"])
        out, err, recs = self.job(FAKE_CUDA + textwrap.dedent("""
            import types
            torch.xpu = types.SimpleNamespace(is_initialized=lambda: True, Event=FakeCudaEvent)
            for batch in DataLoader(Slow(), batch_size=2):
                pass
            print(os.getpid())
        """))
        self.assertEqual(self.meta(recs).get("hook.device_timeline.%s" % out.strip()), ["torch.xpu"])

    def test_the_jobs_own_timeline_comes_first(self):
        out, err, recs = self.job(FAKE_CUDA + textwrap.dedent("""
            import feedscope
            torch.cuda.Event = FakeCudaEvent
            torch.cuda.is_initialized = lambda: True
            class Own(FakeCudaEvent):
                def elapsed_time(self, end):
                    return 7.0
            feedscope.device_timeline(Own, name="mine")
            for batch in DataLoader(Slow(), batch_size=2):
                pass
            feedscope.device_timeline(None)       # back to torch's
            for batch in DataLoader(Slow(), batch_size=2):
                pass
            print(os.getpid())
        """))
        self.assertEqual(err, "")
        pid = out.strip()
        figures = [(r.split(" ")[2], r.split(" ")[5]) for r in recs if r.startswith("D1 ")]
        self.assertEqual(figures, [("Slow", "7000000")] * 2 + [("Slow_2", "6000000")] * 2)
        self.assertEqual(self.meta(recs).get("hook.device_timeline.%s" % pid), ["user: mine", "torch.cuda"])


if __name__ == "__main__":
    unittest.main()
