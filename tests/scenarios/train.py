"""The scenario suite's training job: a PyTorch DataLoader loop with an
emulated accelerator, and knobs to give it any input bottleneck on purpose.

    /usr/bin/python3 train.py --data DIR [--format npy|npy-mmap|bin|rand]
        [--samples N] [--epochs E] [--batch B] [--workers W]
        [--context default|fork|spawn|forkserver] [--persistent]
        [--decode-ms MS] [--item-sleep-ms MS] [--init-sleep-ms MS]
        [--compute-ms MS] [--ckpt-every N --ckpt-mib S --ckpt-dir DIR]
        [--busy-file PATH] [--seed S]

The dataset (made by gen_data.py):
  npy        DIR holds .npy files; each sample is one file, np.load()ed
  npy-mmap   the same, np.load(mmap_mode="r") and copied: cache misses are
             major page faults
  bin        DIR holds files (any depth; DIR/index.txt lists them, else DIR
             is walked); each sample reads one whole file
  rand       DIR is one big file; each sample is one 4 KiB pread at a random
             4 KiB-aligned offset (readahead off: POSIX_FADV_RANDOM)
A sample's "decode" burns --decode-ms of the worker's own CPU time (a busy
loop on thread_time, so a CPU quota or a busy core makes it slower in wall
time, as a real decode would be); --item-sleep-ms waits without CPU, like a
call to a remote service; --init-sleep-ms is a slow worker_init_fn.

Each training step sleeps --compute-ms (the emulated accelerator, as MLPerf
Storage and DLIO do) and adds that time to --busy-file (cumulative busy
seconds, replaced atomically, every 10 ms of a step), which the tests' fake
NVML turns into GPU utilization. Every --ckpt-every steps: torch.save() of a --ckpt-mib MiB tensor
into --ckpt-dir, fsync'd inside torch.save (the file's flush() fsyncs).

The last line on stdout is a summary with the job's own timing, measured the
way feedscope's hook measures it (wait = inside the loader's __next__,
compute = everything else in the loop body, checkpoints included):
  train: steps=N epochs=E samples=M wait_s=W compute_s=C busy_s=B ckpt_n=K
         ckpt_s=S first_wait_s=F total_s=T wait_share=X   (one line)
first_wait_s is the wait of each epoch's first step, summed.
"""
import argparse
import io
import os
import random
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def burn(seconds):
    """Burn `seconds` of this thread's CPU time."""
    if seconds <= 0:
        return 0
    end = time.thread_time() + seconds
    acc = 0
    while time.thread_time() < end:
        for k in range(200):
            acc += k * k
    return acc


def list_files(root):
    index = os.path.join(root, "index.txt")
    if os.path.exists(index):
        with open(index) as f:
            return [os.path.join(root, line.strip()) for line in f if line.strip()]
    out = []
    for d, _, files in os.walk(root):
        out.extend(os.path.join(d, f) for f in files if f != "index.txt")
    out.sort()
    return out


class Samples(Dataset):
    def __init__(self, a):
        self.fmt = a.format
        self.n = a.samples
        self.decode_s = a.decode_ms / 1000.0
        self.sleep_s = a.item_sleep_ms / 1000.0
        self.fd = -1
        if self.fmt == "rand":
            self.path = a.data
            self.pages = os.path.getsize(a.data) // 4096
        else:
            files = list_files(a.data)
            if not files:
                raise SystemExit("train.py: no files under %s" % a.data)
            random.Random(a.seed).shuffle(files)  # a fixed subset, the same every epoch
            self.files = files[: self.n] if self.n else files
            if not self.n:
                self.n = len(self.files)

    def __len__(self):
        return self.n

    def _read(self, i):
        if self.fmt == "rand":
            if self.fd < 0:  # opened in each worker after it starts
                self.fd = os.open(self.path, os.O_RDONLY)
                os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)
            off = random.randrange(self.pages) * 4096
            data = os.pread(self.fd, 4096, off)
            return len(data), data[0] if data else 0
        path = self.files[i % len(self.files)]
        if self.fmt == "npy":
            x = np.load(path)
            return x.nbytes, int(x.flat[0])
        if self.fmt == "npy-mmap":
            m = np.load(path, mmap_mode="r")
            x = np.array(m)  # touch every page
            del m
            return x.nbytes, int(x.flat[0])
        with open(path, "rb") as f:
            data = f.read()
        return len(data), data[0] if data else 0

    def __getitem__(self, i):
        nbytes, first = self._read(i)
        acc = burn(self.decode_s)
        if self.sleep_s > 0:
            time.sleep(self.sleep_s)
        return torch.tensor([nbytes, first, acc & 0xFFFF], dtype=torch.int64)


class FsyncOnFlush(io.FileIO):
    """torch.save(obj, f) ends with f.flush(): make that an fsync too."""

    def flush(self):
        super().flush()
        os.fsync(self.fileno())


BUSY_SLICE_S = 0.010


class Busy:
    """Cumulative accelerator-busy seconds in a file, replaced atomically."""

    def __init__(self, path):
        self.path = path
        self.total = 0.0
        if path:
            self._write()

    def add(self, seconds):
        self.total += seconds
        if self.path:
            self._write()

    def _write(self):
        tmp = "%s.%d.tmp" % (self.path, os.getpid())
        with open(tmp, "w") as f:
            f.write("%.6f\n" % self.total)
        os.replace(tmp, self.path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--format", choices=("npy", "npy-mmap", "bin", "rand"), default="npy")
    ap.add_argument("--samples", type=int, default=0, help="samples per epoch (0: every file)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--context", choices=("default", "fork", "spawn", "forkserver"),
                    default="default")
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--prefetch", type=int, default=2)
    ap.add_argument("--decode-ms", type=float, default=0.0)
    ap.add_argument("--item-sleep-ms", type=float, default=0.0)
    ap.add_argument("--init-sleep-ms", type=float, default=0.0)
    ap.add_argument("--compute-ms", type=float, default=20.0)
    ap.add_argument("--ckpt-every", type=int, default=0)
    ap.add_argument("--ckpt-mib", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="")
    ap.add_argument("--busy-file", default="")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.format == "rand" and not a.samples:
        ap.error("--format rand needs --samples")
    if a.ckpt_every and not (a.ckpt_dir and a.ckpt_mib):
        ap.error("--ckpt-every needs --ckpt-dir and --ckpt-mib")

    torch.set_num_threads(1)
    init_s = a.init_sleep_ms / 1000.0

    def worker_init(_):
        if init_s > 0:
            time.sleep(init_s)

    kw = {}
    if a.workers > 0:
        kw = dict(persistent_workers=a.persistent, prefetch_factor=a.prefetch,
                  worker_init_fn=worker_init)
        if a.context != "default":
            kw["multiprocessing_context"] = a.context
    g = torch.Generator()
    g.manual_seed(a.seed)
    loader = DataLoader(Samples(a), batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        generator=g, **kw)
    ckpt = torch.zeros(a.ckpt_mib * (1 << 20) // 4, dtype=torch.float32) if a.ckpt_every else None
    busy = Busy(a.busy_file)
    compute_s = a.compute_ms / 1000.0

    wait = compute = first_wait = ckpt_time = 0.0
    steps = ckpt_n = samples = 0
    t0 = time.perf_counter()
    for epoch in range(a.epochs):
        t_ask = time.perf_counter()
        for k, batch in enumerate(loader):
            t_got = time.perf_counter()
            wait += t_got - t_ask
            if k == 0:
                first_wait += t_got - t_ask
            samples += len(batch)
            # the emulated accelerator step, reported in slices so that a
            # sampler sees busy time arrive as it is spent
            t_c = time.perf_counter()
            t_end = t_c + compute_s
            while True:
                left = t_end - time.perf_counter()
                if left <= 0:
                    break
                time.sleep(min(left, BUSY_SLICE_S))
                now = time.perf_counter()
                busy.add(now - t_c)
                t_c = now
            steps += 1
            if a.ckpt_every and steps % a.ckpt_every == 0:
                t_s = time.perf_counter()
                path = os.path.join(a.ckpt_dir, "ckpt-%d.pt" % (ckpt_n % 2))
                with FsyncOnFlush(path, "w") as f:
                    torch.save({"step": steps, "weights": ckpt}, f)
                ckpt_time += time.perf_counter() - t_s
                ckpt_n += 1
            t_ask = time.perf_counter()
            compute += t_ask - t_got
    total = time.perf_counter() - t0
    share = wait / (wait + compute) if wait + compute > 0 else 0.0
    print("train: steps=%d epochs=%d samples=%d wait_s=%.3f compute_s=%.3f busy_s=%.3f "
          "ckpt_n=%d ckpt_s=%.3f first_wait_s=%.3f total_s=%.3f wait_share=%.4f"
          % (steps, a.epochs, samples, wait, compute, busy.total, ckpt_n, ckpt_time, first_wait,
             total, share))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
