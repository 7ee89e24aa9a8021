"""Tests of the hook's time per stage in DataLoader workers
(python/feedscope/_stages.py; docs/markers.md "Stages") with real torch,
against a receiving socket bound here:

    /usr/bin/python3 tests/python/test_stages.py [-v]

Each case runs a job in a fresh interpreter with the environment `feedscope
run --pytorch` gives, and checks the G1 records against what the job did:
the stages named, one call per sample, per batch; a stage's CPU within its
wall time; the batches' values identical with the hook on, off, and without
feedscope. No timing is asserted.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fsrecv import Receiver  # noqa: E402

PRELUDE = """
import os, pickle, sys, torch
from torch.utils.data import DataLoader, Dataset, IterableDataset

class Compose:                      # the shape of torchvision's, without it
    def __init__(self, transforms): self.transforms = transforms
    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

class AddOne:
    def __call__(self, x): return x + 1

class Double:
    def __call__(self, x): return x * 2

class Fail:
    def __call__(self, x):
        if x == 13: raise KeyError("thirteen")
        return x

def square(x): return x * x

class DS(Dataset):
    def __init__(self, n, transform=None):
        self.n, self.transform = n, transform
    def __len__(self): return self.n
    def __getitem__(self, i):
        return self.transform(i) if self.transform else i

def collate(batch): return torch.tensor(batch)

def run(loader):
    return [b.tolist() for b in loader]
"""


class StagesTest(unittest.TestCase):
    def setUp(self):
        self.rx = Receiver()
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.rx.close()
        self.tmp.cleanup()

    def script(self, code):
        """CODE after PRELUDE in a file (a spawned worker imports __main__ from it)."""
        path = os.path.join(self.tmp.name, "job.py")
        with open(path, "w") as f:
            f.write(PRELUDE + textwrap.dedent(code))
        return path

    def job(self, code, hook=True, extra_env=None, check=True):
        env = self.rx.env(hook=hook)
        env.update(extra_env or {})
        p = subprocess.run([sys.executable, self.script(code)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=180)
        if check and p.returncode != 0:
            self.fail("job exited %d:\n%s" % (p.returncode, p.stderr))
        return p, [r.raw for r in self.rx.records()]

    def plain(self, code):
        env = {k: v for k, v in os.environ.items() if not k.startswith("FEEDSCOPE_")}
        p = subprocess.run([sys.executable, self.script(code)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=180)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    @staticmethod
    def stages(recs):
        """{(loader, kind, name): [calls, wall_ns, cpu_ns]} summed, and the pids."""
        out, pids = {}, set()
        for r in recs:
            f = r.split(" ")
            if f[0] != "G1":
                continue
            assert len(f) == 10, r
            pids.add(int(f[1]))
            key = (f[2], f[5], f[9])
            a = out.setdefault(key, [0, 0, 0])
            for i in range(3):
                a[i] += int(f[6 + i])
        return out, pids

    def check_sane(self, st):
        for key, (calls, wall, cpu) in st.items():
            self.assertGreaterEqual(wall, 0, key)
            self.assertGreaterEqual(cpu, 0, key)

    def test_compose_per_sample(self):
        code = """
        ds = DS(24, Compose([AddOne(), Double(), square]))
        out = run(DataLoader(ds, batch_size=4, num_workers=2, collate_fn=collate))
        print(out)
        """
        p, recs = self.job(code)
        st, pids = self.stages(recs)
        self.assertEqual(len(pids), 2, "one set of records per worker")
        self.assertEqual(st[("DS", "getitem", "DS.__getitem__")][0], 24)
        self.assertEqual(st[("DS", "transform", "transform[0]:AddOne")][0], 24)
        self.assertEqual(st[("DS", "transform", "transform[1]:Double")][0], 24)
        self.assertEqual(st[("DS", "transform", "transform[2]:square")][0], 24)
        self.assertEqual(st[("DS", "collate", "collate_fn")][0], 6)
        self.assertEqual(st[("DS", "fetch", "fetch")][0], 6)
        self.assertGreaterEqual(st[("DS", "worker", "worker")][0], 2)
        self.check_sane(st)
        self.assertEqual(p.stdout, self.plain(code).stdout)  # the job's own results unchanged

    def test_spawn_and_pickling(self):
        # spawn pickles the dataset (and its transforms) into each worker;
        # inside the worker the pipeline's elements still pickle, isinstance
        # and repr as themselves
        code = """
        class Check:
            def __call__(self, x):
                t = ds_in_worker().transform.transforms
                assert isinstance(t[0], AddOne), type(t[0])
                assert type(pickle.loads(pickle.dumps(t[0]))) is AddOne
                return x
        def ds_in_worker():
            return torch.utils.data.get_worker_info().dataset
        if __name__ == "__main__":
            ds = DS(12, Compose([AddOne(), Double()]))
            print(run(DataLoader(ds, batch_size=3, num_workers=2, collate_fn=collate,
                                 multiprocessing_context="spawn")))
            ds.transform.transforms.append(square)
            print(pickle.loads(pickle.dumps(ds)).transform.transforms[0].__class__.__name__)
        """
        p, recs = self.job(code)
        st, _ = self.stages(recs)
        self.assertEqual(st[("DS", "transform", "transform[0]:AddOne")][0], 12)
        self.assertEqual(st[("DS", "getitem", "DS.__getitem__")][0], 12)
        self.assertEqual(p.stdout, self.plain(code).stdout)

    def test_exception_unchanged(self):
        code = """
        ds = DS(24, Compose([AddOne(), Fail()]))
        it = iter(DataLoader(ds, batch_size=4, num_workers=1, collate_fn=collate))
        try:
            for b in it:
                pass
        except KeyError as e:
            print("KeyError", "thirteen" in str(e))
        """
        p, recs = self.job(code)
        self.assertEqual(p.stdout, "KeyError True\n")
        self.assertEqual(p.stdout, self.plain(code).stdout)
        # (torch leaves a worker whose batch raised alive until the job
        # exits, which kills it: its last second of stages is not sent)

    def test_sequential_and_iterable(self):
        code = """
        class It(IterableDataset):
            def __init__(self):
                self.transforms = torch.nn.Sequential(torch.nn.Identity(), torch.nn.ReLU())
            def __iter__(self):
                for i in range(10):
                    yield self.transforms(torch.tensor([float(i) - 5]))
        print(run(DataLoader(It(), batch_size=5, num_workers=1)))
        """
        p, recs = self.job(code)
        st, _ = self.stages(recs)
        self.assertEqual(st[("It", "transform", "transforms[0]:Identity")][0], 10)
        self.assertEqual(st[("It", "transform", "transforms[1]:ReLU")][0], 10)
        self.assertEqual(st[("It", "getitem", "It.__iter__")][0], 11)  # 10 items, then StopIteration
        self.assertEqual(p.stdout, self.plain(code).stdout)

    def test_wrapped_dataset(self):
        code = """
        from torch.utils.data import Subset
        inner = DS(20, Compose([Double()]))
        print(run(DataLoader(Subset(inner, range(8)), batch_size=4, num_workers=1, collate_fn=collate)))
        """
        p, recs = self.job(code)
        st, _ = self.stages(recs)
        self.assertEqual(st[("Subset", "transform", "dataset.transform[0]:Double")][0], 8)
        self.assertEqual(st[("Subset", "getitem", "Subset.__getitem__")][0], 8)

    def test_off(self):
        code = """
        print(run(DataLoader(DS(8, Compose([Double()])), batch_size=4, num_workers=1, collate_fn=collate)))
        """
        for env in ({"FEEDSCOPE_STAGES": "0"},):
            p, recs = self.job(code, extra_env=env)
            self.assertFalse([r for r in recs if r.startswith("G1 ")])
        p, recs = self.job(code, hook=False)
        self.assertFalse([r for r in recs if r.startswith("G1 ")])

    def test_no_workers(self):
        code = """
        print(run(DataLoader(DS(8, Compose([Double()])), batch_size=4, num_workers=0, collate_fn=collate)))
        """
        p, recs = self.job(code)
        self.assertFalse([r for r in recs if r.startswith("G1 ")])


if __name__ == "__main__":
    unittest.main()
