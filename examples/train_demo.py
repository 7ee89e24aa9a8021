"""A small training job for `make demo`: a PyTorch DataLoader over a dataset
of .npy sample files, two worker processes, and an emulated accelerator (each
step sleeps its compute time, as MLPerf Storage and DLIO do).

    /usr/bin/python3 examples/train_demo.py [--data DIR] [--files N]
        [--sample-kib K] [--workers W] [--batch B] [--compute-ms MS] [--epochs E]
        [--decode-ms MS]

The dataset is generated on first use under --data (default build/demo-data).
"""
import argparse
import os
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class NpyFiles(Dataset):
    def __init__(self, root, decode_ms):
        self.paths = sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".npy"))
        self.decode_s = decode_ms / 1000.0

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        x = np.load(self.paths[i])
        # "Decode/augment": burn CPU for a fixed time, as a JPEG decode would.
        end = time.perf_counter() + self.decode_s
        acc = 0.0
        while time.perf_counter() < end:
            acc += float(x[:64].sum())
        return torch.from_numpy(x.astype(np.float32)), acc


def make_dataset(root, n, kib):
    os.makedirs(root, exist_ok=True)
    have = [f for f in os.listdir(root) if f.endswith(".npy")]
    if len(have) == n:
        return
    rng = np.random.default_rng(0)
    for i in range(n):
        np.save(os.path.join(root, f"sample_{i:06d}.npy"),
                rng.integers(0, 255, size=kib * 1024, dtype=np.uint8))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="build/demo-data")
    ap.add_argument("--files", type=int, default=1500)
    ap.add_argument("--sample-kib", type=int, default=128)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--compute-ms", type=float, default=25.0)
    ap.add_argument("--decode-ms", type=float, default=2.0)
    ap.add_argument("--epochs", type=int, default=2)
    a = ap.parse_args()

    make_dataset(a.data, a.files, a.sample_kib)
    torch.set_num_threads(1)
    loader = DataLoader(NpyFiles(a.data, a.decode_ms), batch_size=a.batch, shuffle=True,
                        num_workers=a.workers)
    t0 = time.perf_counter()
    wait = compute = 0.0
    steps = 0
    for epoch in range(a.epochs):
        t_ask = time.perf_counter()
        for batch, _ in loader:
            t_got = time.perf_counter()
            wait += t_got - t_ask
            time.sleep(a.compute_ms / 1000.0)  # the emulated accelerator step
            t_ask = time.perf_counter()
            compute += t_ask - t_got
            steps += 1
    total = time.perf_counter() - t0
    print(f"train_demo: {steps} steps in {total:.2f} s: waiting for data {wait:.2f} s "
          f"({100 * wait / total:.0f}%), compute {compute:.2f} s")


if __name__ == "__main__":
    main()
