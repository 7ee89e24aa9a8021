"""A PyTorch training job with known timing, for the step-marker tests.

Each sample takes --item-ms to load (the Dataset sleeps), each training step
--compute-ms (the loop sleeps: an emulated accelerator), and each epoch ends
with torch.save(). Its stdout depends only on the arguments (the batches seen,
in order), so a run under feedscope can be compared with a plain one.

    /usr/bin/python3 torch_job.py [--workers W] [--context fork|spawn]
        [--batch B] [--item-ms MS] [--compute-ms MS] [--steps N] [--epochs E]
        [--persistent] [--variant plain|super|gen|override] [--break-at K]
        [--touch-at STEP FILE] [--fail-at INDEX] [--save-dir DIR]
"""
import argparse
import builtins
import os
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SleepyDataset(Dataset):
    """N samples; each takes ITEM_S seconds to "load"."""

    def __init__(self, n, item_s, fail_at=-1):
        self.n = n
        self.item_s = item_s
        self.fail_at = fail_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError("sample %d is corrupt" % i)
        time.sleep(self.item_s)
        return "s%d" % i   # plain strings: no shared-memory tensors between processes


class SuperLoader(DataLoader):
    """Overrides __iter__ and calls DataLoader.__iter__: timed."""

    def __iter__(self):
        return super().__iter__()


class GenLoader(DataLoader):
    """Overrides __iter__ with a generator over DataLoader.__iter__: timed."""

    def __iter__(self):
        for batch in super().__iter__():
            yield batch


class OwnLoader(DataLoader):
    """Overrides __iter__ without DataLoader.__iter__: not timed, one warning."""

    def __iter__(self):
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])


LOADERS = {"plain": DataLoader, "super": SuperLoader, "gen": GenLoader, "override": OwnLoader}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--context", choices=("fork", "spawn"), default=None)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--item-ms", type=float, default=5.0)
    ap.add_argument("--compute-ms", type=float, default=20.0)
    ap.add_argument("--steps", type=int, default=10, help="batches per epoch")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--variant", choices=sorted(LOADERS), default="plain")
    ap.add_argument("--break-at", type=int, default=-1, help="leave each epoch after this step")
    ap.add_argument("--touch-at", nargs=2, metavar=("STEP", "FILE"), default=None,
                    help="create FILE after STEP global steps, then go on")
    ap.add_argument("--fail-at", type=int, default=-1, help="sample index whose loading raises")
    ap.add_argument("--save-dir", default=".")
    a = ap.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    dataset = SleepyDataset(a.steps * a.batch, a.item_ms / 1000.0, a.fail_at)
    kwargs = {}
    if a.workers > 0:
        kwargs["multiprocessing_context"] = a.context
        kwargs["persistent_workers"] = a.persistent
    loader = LOADERS[a.variant](dataset, batch_size=a.batch, shuffle=True,
                                num_workers=a.workers, **kwargs)
    print("sitecustomize:", getattr(sys.modules.get("sitecustomize"), "__file__", None))
    print("user mark:", getattr(builtins, "USER_SITECUSTOMIZE_MARK", None))
    print("loader:", type(loader).__name__, "len", len(loader))
    compute_s = a.compute_ms / 1000.0
    done = 0
    for epoch in range(a.epochs):
        seen = []
        batches = iter(loader)
        step = -1
        while True:
            # the job's own clock of each step, to stderr (its stdout stays a
            # function of the arguments): the truth the recording is checked
            # against
            asked = time.perf_counter()
            try:
                batch = next(batches)
            except StopIteration:
                break
            step += 1
            got = time.perf_counter()
            seen.append(" ".join(batch))
            time.sleep(compute_s)  # the emulated accelerator step
            print("truth %d %d %.9f %.9f" % (epoch, step, got - asked, time.perf_counter() - got), file=sys.stderr)
            done += 1
            if a.touch_at and done == int(a.touch_at[0]):
                open(a.touch_at[1], "w").close()
            if step == a.break_at:
                break
        torch.save({"epoch": epoch, "w": torch.zeros(4)}, os.path.join(a.save_dir, "ckpt.pt"))
        print("epoch %d: %d batches: %s" % (epoch, len(seen), " | ".join(seen)))
    print("done: %d steps" % done)


if __name__ == "__main__":
    main()
