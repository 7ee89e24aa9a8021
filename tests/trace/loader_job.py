"""loader_job.py DATA CONTEXT [WORKERS] [PIDFILE] - one epoch of a PyTorch
DataLoader whose workers (fork or spawn) each read whole files of DATA
with open().read(). Prints how many files and bytes the batches carried
and a checksum: the same with and without the tracer. PIDFILE, if given,
gets the main process's pid (trace_loader.sh tells the regions apart by
it). Also the workload of bench/trace_loader.py.
"""
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Files(Dataset):
    def __init__(self, root):
        self.paths = sorted(os.path.join(root, f) for f in os.listdir(root))

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        with open(self.paths[i], "rb") as f:
            b = f.read()
        return torch.tensor([len(b), sum(b[:64])], dtype=torch.int64)


def main():
    root, ctx = sys.argv[1], sys.argv[2]
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w") as f:
            f.write("%d\n" % os.getpid())
    torch.set_num_threads(1)
    loader = DataLoader(Files(root), batch_size=8, num_workers=workers,
                        multiprocessing_context=ctx if workers else None)
    files = total = check = 0
    for batch in loader:
        files += len(batch)
        total += int(batch[:, 0].sum())
        check = (check * 31 + int(batch[:, 1].sum())) % 1000000007
    print("files %d bytes %d check %d" % (files, total, check))


if __name__ == "__main__":
    main()
