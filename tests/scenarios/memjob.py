"""memjob.py - a DataLoader job for the memory scenarios (s_mem_*.sh) that
keeps its own account of its memory: each process reads its own
/proc/self/smaps_rollup (the main process at the loop's start and end, each
worker when it starts and then every 0.25 s while it loads), and the main
process prints the job's figures as one JSON line: `memjob: {...}`.

  --index list   the dataset's index is a Python list of (path, label)
                 tuples: every worker that reads an item writes its
                 reference counts, and copies the pages (copy-on-read,
                 pytorch/pytorch#13246)
  --index numpy  the same index in two numpy arrays: nothing is copied
  --sample-kib K each sample a float32 tensor of K KiB (batches go through
                 /dev/shm from the workers to the main process)
  --worker-mib M each worker holds M MiB of its own from its start (written
                 in its worker_init_fn): a flat footprint
The truth (all in bytes): growth = the job's PSS summed at the loop's end
less the main process's PSS before the workers started; workers_uss_growth
= each worker's private memory at its last reading less its first; shm =
the most /dev/shm (statvfs) held while loading, read by the main process.
"""
import argparse, json, os, sys, time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from train import hold_private  # train.py, beside this file

TRUTH_DIR = None


def rollup():
    out = {}
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            k, _, rest = line.partition(":")
            parts = rest.split()
            if len(parts) == 2 and parts[1] == "kB":
                out[k] = int(parts[0]) * 1024
    return {"pss": out.get("Pss", 0), "uss": out.get("Private_Clean", 0) + out.get("Private_Dirty", 0),
            "rss": out.get("Rss", 0)}


def note(kind):
    r = rollup()
    r["t"] = time.time()
    path = os.path.join(TRUTH_DIR, "%d.%s" % (os.getpid(), kind))
    with open(path + ".tmp", "w") as f:
        json.dump(r, f)
    os.replace(path + ".tmp", path)


class Data(Dataset):
    def __init__(self, n, index, sample_kib, work_ms):
        if index == "list":
            self.items = [("/data/train/%08d.jpg" % i, i % 1000) for i in range(n)]
        else:
            self.paths = np.array(["/data/train/%08d.jpg" % i for i in range(n)], dtype="S24")
            self.labels = np.arange(n, dtype=np.int32) % 1000
        self.index = index
        self.n = n
        self.numel = max(1, sample_kib * 256)
        self.work_s = work_ms / 1000.0
        self.last = 0.0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.index == "list":
            path, label = self.items[i]
        else:
            path, label = self.paths[i], int(self.labels[i])
        if self.work_s:
            t = time.perf_counter()
            while time.perf_counter() - t < self.work_s:
                pass
        now = time.time()
        if now - self.last >= 0.25:
            self.last = now
            note("last")
        return torch.full((self.numel,), float(label)), label


WORKER_MIB = 0
_HELD = None


def worker_init(_):
    global _HELD
    if WORKER_MIB:
        _HELD = hold_private(WORKER_MIB << 20)
    note("first")


def shm_used():
    try:
        s = os.statvfs("/dev/shm")
        return (s.f_blocks - s.f_bfree) * s.f_frsize
    except OSError:
        return None


def main():
    global TRUTH_DIR, WORKER_MIB
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", choices=["list", "numpy"], default="list")
    ap.add_argument("--items", type=int, default=1500000)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--compute-ms", type=float, default=20)
    ap.add_argument("--work-ms", type=float, default=0)
    ap.add_argument("--sample-kib", type=int, default=1)
    ap.add_argument("--worker-mib", type=int, default=0)
    ap.add_argument("--truth-dir", required=True)
    ap.add_argument("--busy-file")  # the suite's emulated accelerator: not used here
    a = ap.parse_args()
    TRUTH_DIR = a.truth_dir
    WORKER_MIB = a.worker_mib
    os.makedirs(TRUTH_DIR, exist_ok=True)
    data = Data(a.items, a.index, a.sample_kib, a.work_ms)
    start = rollup()
    shm0 = shm_used()
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        prefetch_factor=a.prefetch, worker_init_fn=worker_init, persistent_workers=True)
    t0 = time.time()
    shm_max = 0
    it = iter(loader)
    for step in range(a.steps):
        try:
            x, y = next(it)
        except StopIteration:
            it = iter(loader)
            x, y = next(it)
        time.sleep(a.compute_ms / 1000.0)
        s = shm_used()
        if s is not None:
            shm_max = max(shm_max, s)
    time.sleep(0.5)  # the workers' last readings are at most 0.25 s old
    end = rollup()
    workers = {}
    for name in os.listdir(TRUTH_DIR):
        pid, kind = name.split(".", 1)
        if kind in ("first", "last"):
            with open(os.path.join(TRUTH_DIR, name)) as f:
                workers.setdefault(pid, {})[kind] = json.load(f)
    live = [w for w in workers.values() if "last" in w]
    pss_end = end["pss"] + sum(w["last"]["pss"] for w in live)
    truth = {
        "index": a.index, "workers": len(live), "loop_s": time.time() - t0,
        "main_pss_start": start["pss"], "job_pss_end": pss_end,
        "growth": pss_end - start["pss"],
        "workers_uss_growth": sum(w["last"]["uss"] - w["first"]["uss"] for w in live if "first" in w),
        "workers_uss_end_mean": sum(w["last"]["uss"] for w in live) / max(1, len(live)),
        "shm_max": shm_max, "shm_start": shm0,
    }
    print("memjob: " + json.dumps(truth), flush=True)
    print("train: memjob index=%s workers=%d steps=%d growth=%.0f MiB" % (a.index, len(live), a.steps,
                                                                      truth["growth"] / 2**20), flush=True)
    del it, loader


if __name__ == "__main__":
    sys.exit(main())
