"""The hang scenarios' job (tests/scenarios/s_hang_*.sh): a PyTorch
DataLoader loop with an emulated accelerator whose DataLoader worker hangs
once, on purpose, and says when and on what.

    /usr/bin/python3 hangjob.py --mode fifo|socket|spin --dir DIR
        [--steps N] [--hang-step K] [--hang-s S] [--workers W] [--batch B]
        [--compute-ms MS] [--port P] [--busy-file PATH]

Each sample reads a 64 KiB file of DIR (made at the start) and sleeps a
millisecond. The sample of step --hang-step (its first) hangs in its
worker for about --hang-s seconds:
  fifo    the worker opens DIR/hang.fifo and read()s it: the main process
          holds the other end open (so the open returns) and writes one
          byte --hang-s seconds after the worker said it blocks (it creates
          DIR/blocked first);
  socket  the worker connects to 127.0.0.1:--port (the scenario's server,
          hangserver.py, which accepts, reads the request, and answers
          nothing: it closes the connection --hang-s seconds later) and
          recv()s;
  spin    the worker spins in pure Python (no system call: time.monotonic
          is read through the vDSO) for --hang-s seconds.

Each training step sleeps --compute-ms (the emulated accelerator) and adds
it to --busy-file as train.py does (the fake NVML's utilisation).

The job's own truth, on stdout (unix times):
  hangjob: block start=T pid=P mode=M target=X   (the worker, just before)
  hangjob: block end=T pid=P                     (the worker, just after)
  hangjob: loop waited W s from T (step K)       (the main process: a wait
                                                  over 1 s, when it ends)
  hangjob: done steps=N
"""
import argparse
import os
import socket
import sys
import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset

from train import Busy  # train.py, beside this file: the fake NVML's busy file


def say(msg):
    sys.stdout.write("hangjob: %s\n" % msg)
    sys.stdout.flush()


def hang_fifo(a):
    path = os.path.join(a.dir, "hang.fifo")
    with open(path, "rb", buffering=0) as f:
        open(os.path.join(a.dir, "blocked"), "w").close()
        say("block start=%.6f pid=%d mode=fifo target=%s" % (time.time(), os.getpid(), path))
        f.read(1)


def hang_socket(a):
    s = socket.create_connection(("127.0.0.1", a.port))
    s.sendall(b"GET\n")
    say("block start=%.6f pid=%d mode=socket target=127.0.0.1:%d" % (time.time(), os.getpid(), a.port))
    while s.recv(4096):
        pass
    s.close()


def spin_transform(a):
    say("block start=%.6f pid=%d mode=spin target=spin_transform" % (time.time(), os.getpid()))
    end = time.monotonic() + a.hang_s
    n = 0
    while time.monotonic() < end:
        n += 1
    return n


class HangSet(Dataset):
    def __init__(self, a):
        self.a = a
        self.hang_index = a.hang_step * a.batch
        self.files = [os.path.join(a.dir, "item%02d.bin" % i) for i in range(16)]

    def __len__(self):
        return self.a.steps * self.a.batch

    def __getitem__(self, i):
        with open(self.files[i % len(self.files)], "rb") as f:
            data = f.read()
        time.sleep(0.001)
        if i == self.hang_index:
            {"fifo": hang_fifo, "socket": hang_socket, "spin": spin_transform}[self.a.mode](self.a)
            say("block end=%.6f pid=%d" % (time.time(), os.getpid()))
        return torch.tensor(len(data))


def fifo_writer(a, fd):
    """The main process's end of the FIFO: one byte --hang-s after the
    worker said it blocks."""
    flag = os.path.join(a.dir, "blocked")
    while not os.path.exists(flag):
        time.sleep(0.05)
    time.sleep(a.hang_s)
    os.write(fd, b"x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("fifo", "socket", "spin"), required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--hang-step", type=int, default=30)
    ap.add_argument("--hang-s", type=float, default=20.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--compute-ms", type=float, default=50.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--busy-file", default="")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    for i in range(16):
        with open(os.path.join(a.dir, "item%02d.bin" % i), "wb") as f:
            f.write(os.urandom(64 * 1024))
    if a.mode == "fifo":
        path = os.path.join(a.dir, "hang.fifo")
        if not os.path.exists(path):
            os.mkfifo(path)
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # a writer: the worker's open returns
        threading.Thread(target=fifo_writer, args=(a, fd), daemon=True).start()
    busy = Busy(a.busy_file)
    loader = DataLoader(HangSet(a), batch_size=a.batch, num_workers=a.workers)
    steps = 0
    t_ask = time.time()
    for k, batch in enumerate(loader):
        t_got = time.time()
        if t_got - t_ask > 1.0:
            say("loop waited %.3f s from %.6f (step %d)" % (t_got - t_ask, t_ask, k))
        t0 = time.perf_counter()
        end = t0 + a.compute_ms / 1000
        while True:  # the emulated accelerator, in 10 ms slices
            left = end - time.perf_counter()
            if left <= 0:
                break
            time.sleep(min(left, 0.01))
        busy.add(time.perf_counter() - t0)
        steps += 1
        t_ask = time.time()
    say("done steps=%d" % steps)


if __name__ == "__main__":
    main()
