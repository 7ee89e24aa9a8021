"""A small torch.distributed job for tests/integration/trace_peers_torch.sh.

    torchrun --nproc_per_node 2 ... peers_dist.py URL SAMPLES KIB

Each rank's DataLoader (one worker) fetches SAMPLES samples of KIB KiB from
the HTTP server at URL (tests/scenarios/http_samples.py: GET URL/s/<i>),
and the rank all_reduces a 256 KiB tensor (gloo) after every batch. Each
rank prints the body bytes it fetched and the all_reduces it made.
"""
import sys
import urllib.request

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset


class HttpSamples(Dataset):
    def __init__(self, url, n, kib, rank):
        self.url, self.n, self.size, self.rank = url, n, kib * 1024, rank

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        with urllib.request.urlopen("%s/s/%d" % (self.url, self.rank * self.n + i)) as r:
            body = r.read()
        if len(body) != self.size:
            raise SystemExit("peers_dist: sample %d: %d bytes, expected %d" % (i, len(body), self.size))
        return torch.tensor(len(body))


def main():
    url, n, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    loader = DataLoader(HttpSamples(url, n, kib, rank), batch_size=1, num_workers=1)
    grad = torch.ones(65536)  # 256 KiB of float32
    body = reduces = 0
    for size in loader:
        body += int(size.sum())
        dist.all_reduce(grad)
        reduces += 1
    dist.barrier()
    dist.destroy_process_group()
    print("peers_dist: rank=%d body_bytes=%d all_reduces=%d" % (rank, body, reduces), flush=True)


if __name__ == "__main__":
    main()
