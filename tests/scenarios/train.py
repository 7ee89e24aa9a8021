"""The scenario suite's training job: a PyTorch DataLoader loop with an
emulated accelerator, and knobs to give it any input bottleneck on purpose.

    /usr/bin/python3 train.py --data DIR [--format npy|npy-mmap|bin|rand]
        [--samples N] [--epochs E] [--batch B] [--workers W]
        [--context default|fork|spawn|forkserver] [--persistent]
        [--decode-ms MS] [--item-sleep-ms MS] [--init-sleep-ms MS] [--worker-mib M]
        [--compute-ms MS] [--ckpt-every N --ckpt-mib S --ckpt-dir DIR]
        [--busy-file PATH] [--seed S]
    broad-suite options (additive; the defaults keep the behaviour above):
        [--format http|memmap|jpeg] [--records N] [--record-kib K]
        [--netns PATH] [--ckpt-mode torch|write|numpy] [--ckpt-async]
        [--fresh-epochs]
        [--val-data DIR --val-samples N --val-compute-ms MS]
        [--dist --slow-rank R --slow-data DIR --slow-format FMT]
    tune-test options (additive, tests/tune):
        [--max-steps M] [--steady-after K] [--evict] [--step-ends]
        [--main-sleep-ms MS]
    oversubscription (additive, issue 39; s_oversub.sh):
        [--matmul-n N --matmul-ops K] [--worker-threads T]
    loader stages (additive, issue 39; s_stage_*.sh):
        [--stages NAME:MS,...] [--collate-ms MS]
    asynchronous accelerator (additive, issue 35; tests/scenarios/async_table.sh):
        [--device sync|async] [--run-ahead N] [--sync every|end|N]
        [--events on|off]

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
call to a remote service; --init-sleep-ms is a slow worker_init_fn;
--worker-mib M makes each worker hold M MiB of its own memory from its start.
--matmul-n N adds a transform of torch ops to each sample: K (--matmul-ops)
products of an NxN matrix with itself (and a tanh), on torch's intra-op
threads; --worker-threads T sets each worker's to T in its worker_init_fn
(the DataLoader sets 1 as a worker starts: a job, or a pool that ignores
it, as OpenCV's and OpenBLAS's do, sized to the machine's cores, makes it
more). 0: left as the DataLoader set it.
  http       --data is a URL prefix; sample i is GET PREFIX<i> (urllib, no
             proxy, 30 s timeout); --netns PATH: each worker joins that
             network namespace first (setns), the main process stays put
  memmap     --data is one big file, numpy.memmap'd in each worker; sample i
             copies record (i * 7919) mod (size / record) of --record-kib
             KiB: page faults, no read calls
  jpeg       DIR holds .jpg files; PIL decode + torchvision transforms
             (RandomResizedCrop 224, flip, ToTensor, Normalize)
  rand       with --records N: N random 4 KiB preads per sample (--read-kib K: K KiB each)
  zip        DATA is one zip of stored members: each sample one member,
             read through zipfile (its local header, then its bytes) from
             a file opened once per worker (readahead off: POSIX_FADV_RANDOM)
--fresh-epochs gives each epoch its own files (files[e*N:(e+1)*N]), so a
cold dataset stays cold. --val-data: after every epoch a validation pass
(its own DataLoader, npy files, --val-samples, --val-compute-ms per step).
--dist: torch.distributed (gloo, env:// as torchrun sets it), one
all_reduce of a small tensor after every step; rank --slow-rank reads
--slow-data / --slow-format instead (its own slow storage); with several
ranks, rank r > 0 adds its busy time to BUSY_FILE.r. --ddp (with --dist):
instead of that all_reduce, a one-layer model wrapped in
DistributedDataParallel, forward and backward after every step: the
gradients' all_reduce runs inside backward, in DDP's C++ reducer, where the
hook's torch.distributed wrappers do not see it (coll_s: time in backward).

Each training step sleeps --compute-ms (the emulated accelerator, as MLPerf
Storage and DLIO do) and adds that time to --busy-file (cumulative busy
seconds, replaced atomically, every 10 ms of a step), which the tests' fake
NVML turns into GPU utilization. Every --ckpt-every steps: torch.save() of a --ckpt-mib MiB tensor
into --ckpt-dir, fsync'd inside torch.save (the file's flush() fsyncs).
--ckpt-async: the loop thread takes a snapshot (a copy) of the weights and
hands it to one background thread, which writes and fsyncs it; the loop
waits only while the previous checkpoint is still being written (that wait
and the snapshot are the loop's checkpoint time), and after the loop it
waits for the last one (counted as checkpoint time too, inside total_s).

--max-steps M ends the loop after M steps in all (0: no limit), as
`feedscope tune` ends a trial; --steady-after K: the summary's steady_*
figures are over the steps after the first K (a trial's warm-up), so the
tune tests' ground truth is measured over the same steps a trial times.
--evict: before anything else, the dataset's files are dropped from the page
cache (examples/evict_cache.py), so that every run starts cold, as a dataset
far larger than memory would (the tune tests run the job many times).
--stages NAME:MS,...: the dataset holds `transform`, a torchvision Compose
of transforms each burning MS of its worker's CPU per sample (NAME one of
the classes below: Resize, RandomCrop, GaussianBlur, Normalize,
RandomFlip, ToTensor), applied after the sample's read and decode;
--collate-ms MS: a collate_fn that burns MS per batch. With either, the job
times each of its own stages in each worker (__getitem__ as a whole, each
transform, the collate, and the worker's time between batches) and ships
the figures with each batch; the main process sums them and prints
`job_stages: worker=S getitem=S collate=S transform[I]:NAME=S ...`
(seconds over the batches it took: the truth of s_stage_*.sh).
--main-sleep-ms: the sampler sleeps MS for each index it draws, in the
training process (a DataLoader's sampler runs there, whatever the workers):
input wait that no loader setting relieves.
A loop ended by SystemExit (`feedscope tune`'s hook ends a trial so, at its
next request for a batch) still prints the summary (ended=exit), then exits.
--step-ends: a line before the summary, "step_ends: E1 E2 ...", each step's
end (its compute done, the next batch not yet asked for) in seconds after
the loop's start: the job's own clock for any window of its steps.

--device async (default sync: the step's compute sleeps on the loop thread,
as described above): an emulated accelerator that runs asynchronously, as
a CUDA device does. A device thread runs the launched work in launch order,
one piece at a time, each piece as above (compute_step: sleeps in 10 ms
slices and adds each slice to --busy-file; in this mode only the device
thread writes the busy file). Each step the loop launches its --compute-ms
and goes on at once, unless --run-ahead N (default 2) launched pieces are
not yet finished (the one running included), in which case the launch
blocks until one finishes: the host then waits inside a launch (a full
launch queue), never inside next(). --sync every|N|end (default every):
after every step, after every N-th step (a logging cadence's
loss.item()), or only once after the loop, the loop waits until the device
has finished everything launched. After the loop the device is always
synced once more (whatever is queued runs to its end) before the summary.
Validation passes (--val-data) launch their steps too and sync at the end
of each pass (the metric read back). A checkpoint (--ckpt-every) with
--device async first syncs: torch.save of an accelerator's tensors (or
--ckpt-async's snapshot) copies them to the host on the stream that holds
the queued steps, so it waits for all of them; that wait is part of the
checkpoint's time (ckpt_s) and is also given as ckpt_sync_s. The copy
itself is not emulated as device work.

--events on (with --device async; default off): the device has events on
its own timeline, with torch.cuda.Event's interface (DeviceEvent):
record() puts a marker in the device's queue behind all the work launched
so far; the device thread stamps it with its clock (perf_counter, that is
CLOCK_MONOTONIC) when it reaches it: at the end of the last piece of work
ahead of it, or at once, at the record time, when the device is idle (its
queue empty). query() says whether it is stamped; a.elapsed_time(b) =
(b's stamp - a's stamp) x 1000, in ms. Markers are not work: they take no
place in the --run-ahead count and a sync does not wait for them. The job
registers the class with feedscope.device_timeline() (python/feedscope,
docs/markers.md "The device's own clock"), so that the hook records one
event just before each next() and one just after it and stores the
device's idle inside each wait (steps.device_idle_s); when the feedscope
module cannot be imported (not under `feedscope run`) it says so once on
stderr and goes on without. Under --no-hook the module is importable and
the registration made, but no loop is timed, so no event is recorded.

The last line on stdout is a summary with the job's own timing, measured the
way feedscope's hook measures it (wait = inside the loader's __next__,
compute = everything else in the loop body, checkpoints included):
  train: steps=N epochs=E samples=M wait_s=W compute_s=C busy_s=B ckpt_n=K
         ckpt_s=S first_wait_s=F total_s=T wait_share=X   (one line)
         rank=R coll_s=L val_s=V val_busy_s=VB b_busy=.. b_input=.. b_ckpt=..
         b_coll=.. b_val=.. b_other=.. ckpt_async=0|1 ckpt_wait_s=CW
         steady_steps=N steady_step_s=S steady_wall_s=SW ended=loop|exit
         (the same line, at its end)
first_wait_s is the wait of each epoch's first step, summed. steady_step_s:
the mean step (its wait + compute) over the steps after --steady-after;
steady_wall_s: the wall time from the end of step --steady-after to the end
of the last step over those steps (what lies between epochs included, as
tune's step time has it). ended: how the loop ended (its epochs or
--max-steps: loop; a SystemExit: exit).
coll_s: time inside all_reduce; val_s: the validation passes (val_busy_s of
it computing).
ckpt_wait_s: with --ckpt-async, the part of ckpt_s spent waiting for the
writer thread (the rest is taking the snapshots).
The b_* buckets are shares of total_s (the whole loop, validation included)
and add up to 1: accelerator busy in training steps, waiting for input,
checkpoints, collectives, validation passes, and the rest (b_other). (With
--device async b_busy is the device's busy time, which overlaps the host's
waits: b_busy + b_input may then exceed 1, and b_other is 0.)

At the end of the line, the accelerator's own account (both devices):
  device=sync|async run_ahead=N sync=every|end|N syncs=K launch_s=L
  launch_blocks=LB sync_s=Y ckpt_sync_s=CY dev_busy_s=.. dev_idle_s=..
  dev_idle_share=.. dev_idle_in_wait_s=.. dev_idle_in_wait_share=..
  dev_span_s=.. host_loop_s=.. loop_s=.. step_s=.. dev_step_s=..
  host_step_s=.. ideal_speedup=.. dev_idle_in_ckpt_s=..
  dev_idle_in_ckpt_share=.. events=on|off
All times on one monotonic clock (time.perf_counter, CLOCK_MONOTONIC).
t0 is the loop's start (the first step's start: just before the first
request for a batch); the device's busy intervals are the pieces of work as
the device ran them (each from its start to its end, the training steps',
validation's and checkpoints' alike); the host's waits are each training
step's time inside the loader's next() (the same intervals as wait_s).
  run_ahead, sync    the options (0 and every for the sync device)
  syncs              sync points the async device was waited at (those
                     after steps, at checkpoints and validation passes,
                     and the one after the loop); 0 for the sync device
  launch_s           host seconds inside launches (async), blocked or not;
                     launch_blocks of them had to wait for room
  sync_s             host seconds waiting for the device: inside syncs
                     (async), or running the device's work on the loop
                     thread (sync device: every step is a launch and a
                     sync at once); ckpt_sync_s is the part of it at
                     checkpoints
  dev_span_s         t0 to the end of the device's last piece of work
  dev_busy_s         busy seconds within [t0, t0 + dev_span_s]
  dev_idle_s         dev_span_s - dev_busy_s; dev_idle_share: / dev_span_s
  dev_idle_in_wait_s the seconds of the host's next() waits (clipped to the
                     span) during which the device ran nothing: the input
                     wait as the device sees it; dev_idle_in_wait_share:
                     / dev_span_s (what input_bound_fraction should be)
  host_loop_s        t0 to the host's end of the loop (after its last step
                     and the final sync; an async checkpoint writer's last
                     wait, inside total_s, is not in it)
  loop_s             max(dev_span_s, host_loop_s): the loop's span
  step_s             loop_s / steps: the mean step
  dev_step_s         the device's busy seconds in training steps / steps
  host_step_s        the host's own time per step: (host_loop_s - wait_s -
                     launch_s - sync_s) / steps (Python, collectives,
                     checkpoint writes, validation passes' loading)
  ideal_speedup      step_s / max(dev_step_s, host_step_s): the mean step's
                     speedup if the input were free (the loop then goes as
                     fast as the slower of the device and the host's own
                     work)
  dev_idle_in_ckpt_s the seconds of the loop thread's checkpoints (each
                     from the start of Checkpoints.save, its sync
                     included, to its end; clipped to the span, so a
                     checkpoint after the device's last work is not in
                     it) during which the device ran nothing;
                     dev_idle_in_ckpt_share: / dev_span_s (the
                     checkpoints' share as the device sees it)
  events             --events: whether device events were registered with
                     feedscope (off when asked for but feedscope could not
                     be imported)
"""
import argparse
import collections
import io
import os
import random
import sys
import threading
import time

import ctypes
import urllib.request

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

CLONE_NEWNET = 0x40000000


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


class StageClock:
    """A worker's own account of its stages (--stages, --collate-ms): seconds
    per stage since the last batch it shipped, and the worker's time since."""

    def __init__(self):
        self.pid = os.getpid()
        self.s = {}
        self.t_ship = time.perf_counter()

    def add(self, key, seconds):
        self.s[key] = self.s.get(key, 0.0) + seconds

    def ship(self):
        now = time.perf_counter()
        out, self.s = self.s, {}
        out["worker"] = now - self.t_ship
        self.t_ship = now
        return out


_CLOCK = None


def clock():
    global _CLOCK
    if _CLOCK is None or _CLOCK.pid != os.getpid():
        _CLOCK = StageClock()
    return _CLOCK


class Burn:
    """A transform that burns its CPU time, timing itself."""

    def __init__(self, ms, key):
        self.s, self.key = ms / 1000.0, key

    def __call__(self, x):
        t0 = time.perf_counter()
        burn(self.s)
        clock().add(self.key, time.perf_counter() - t0)
        return x


class Resize(Burn):
    pass


class RandomCrop(Burn):
    pass


class GaussianBlur(Burn):
    pass


class Normalize(Burn):
    pass


class RandomFlip(Burn):
    pass


class ToTensor(Burn):
    pass


STAGE_CLASSES = {c.__name__: c for c in (Resize, RandomCrop, GaussianBlur, Normalize, RandomFlip, ToTensor)}


def make_pipeline(spec):
    from torchvision import transforms
    steps = []
    for i, item in enumerate(x for x in spec.split(",") if x):
        name, ms = item.split(":")
        steps.append(STAGE_CLASSES[name](float(ms), "transform[%d]:%s" % (i, name)))
    return transforms.Compose(steps)


class StageCollate:
    """--collate-ms: burns MS per batch, collates the tensors, and ships the
    worker's stage figures with the batch."""

    def __init__(self, ms):
        self.s = ms / 1000.0

    def __call__(self, batch):
        from torch.utils.data import default_collate
        t0 = time.perf_counter()
        burn(self.s)
        x = default_collate(batch)
        c = clock()
        c.add("collate", time.perf_counter() - t0)
        return x, c.ship()


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
        # --stages: the pipeline (a torchvision Compose); --collate-ms too:
        # the job times its own stages (StageClock)
        self.transform = make_pipeline(a.stages) if a.stages else None
        self.timed = bool(a.stages) or a.collate_ms >= 0
        self.decode_s = a.decode_ms / 1000.0
        self.matmul_n, self.matmul_ops = a.matmul_n, a.matmul_ops
        self.sleep_s = a.item_sleep_ms / 1000.0
        # a slow sample every --stall-every samples this worker loads (its
        # own count: a persistent worker's is the job's sample order)
        self.stall_every = a.stall_every
        self.stall_s = a.stall_ms / 1000.0
        self.loaded = 0
        self.fd = -1
        self.records = max(1, a.records)
        self.epoch = 0
        self.evict_from = a.evict_from
        self.unpickle_s = a.unpickle_ms / 1000.0
        self.fresh = a.fresh_epochs
        self.mm = None
        self.opener = None
        self.tf = None
        if self.fmt == "http":
            self.url = a.data
            if not self.n:
                raise SystemExit("train.py: --format http needs --samples")
        elif self.fmt == "memmap":
            self.path = a.data
            self.rec = a.record_kib * 1024
            self.nrec = os.path.getsize(a.data) // self.rec
            if not self.n or self.nrec < 1:
                raise SystemExit("train.py: --format memmap needs --samples and a file >= one record")
        elif self.fmt == "rand":
            self.path = a.data
            self.read_bytes = a.read_kib * 1024
            self.pages = os.path.getsize(a.data) // self.read_bytes
        elif self.fmt == "zip":
            import zipfile
            self.path = a.data
            with zipfile.ZipFile(a.data) as z:
                self.members = z.namelist()
            self.zf = None
            if not self.n:
                self.n = len(self.members)
        else:
            files = list_files(a.data)
            if not files:
                raise SystemExit("train.py: no files under %s" % a.data)
            random.Random(a.seed).shuffle(files)  # a fixed subset, the same every epoch
            if self.fresh and self.n:
                if self.n * a.epochs > len(files):
                    raise SystemExit("train.py: --fresh-epochs needs %d files, %s has %d"
                                     % (self.n * a.epochs, a.data, len(files)))
                self.files = files[: self.n * a.epochs]
            else:
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
            total = first = 0
            for _ in range(self.records):
                off = random.randrange(self.pages) * self.read_bytes
                data = os.pread(self.fd, self.read_bytes, off)
                total += len(data)
                first = data[0] if data else 0
            return total, first
        if self.fmt == "zip":
            if self.zf is None:  # opened in each worker after it starts
                import zipfile
                f = open(self.path, "rb")
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_RANDOM)
                self.zf = zipfile.ZipFile(f)
            data = self.zf.read(self.members[random.randrange(len(self.members))])
            return len(data), data[0] if data else 0
        if self.fmt == "http":
            return self._fetch(i)
        if self.fmt == "memmap":
            if self.mm is None:  # mapped in each worker after it starts
                self.mm = np.memmap(self.path, dtype=np.uint8, mode="r")
            r = (i * 7919) % self.nrec
            x = np.array(self.mm[r * self.rec:(r + 1) * self.rec])  # page faults
            return x.nbytes, int(x[0])
        if self.fresh:
            i = self.epoch * self.n + i
        path = self.files[i % len(self.files)]
        if 0 <= self.evict_from <= self.epoch:
            fd = os.open(path, os.O_RDONLY)  # the dataset no longer fits in the page cache
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        if self.fmt == "jpeg":
            return self._decode(path)
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

    def _fetch(self, i):
        if self.opener is None:
            self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with self.opener.open("%s%d" % (self.url, i), timeout=30) as r:
            data = r.read()
        if not data:
            raise RuntimeError("train.py: empty answer for sample %d" % i)
        return len(data), data[0]

    def _decode(self, path):
        if self.tf is None:
            from torchvision import transforms  # only jobs that decode JPEGs need it
            self.tf = transforms.Compose([
                transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                transforms.ToTensor(),
                transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
        from PIL import Image
        with Image.open(path) as im:
            x = self.tf(im.convert("RGB"))
        return os.path.getsize(path), int(x[0, 0, 0].item() * 100) & 0xFF

    def __getitem__(self, i):
        if self.transform is None and not self.timed:
            return self._item(i)
        t0 = time.perf_counter()
        x = self._item(i)
        if self.transform is not None:
            x = self.transform(x)
        clock().add("getitem", time.perf_counter() - t0)
        return x

    def _item(self, i):
        nbytes, first = self._read(i)
        acc = burn(self.decode_s)
        if self.matmul_n > 0:
            m = torch.randn(self.matmul_n, self.matmul_n, generator=torch.Generator().manual_seed(i))
            for _ in range(self.matmul_ops):
                m = torch.tanh(m @ m / self.matmul_n)
            acc += int(m.sum().item() * 1000) & 0xFF
        if self.sleep_s > 0:
            time.sleep(self.sleep_s)
        self.loaded += 1
        if self.stall_every and self.loaded % self.stall_every == 0:
            time.sleep(self.stall_s)
        x = torch.tensor([nbytes, first, acc & 0xFFFF], dtype=torch.int64)
        if self.unpickle_s > 0:
            return x, Heavy(self.unpickle_s)
        return x


class FsyncOnFlush(io.FileIO):
    """torch.save(obj, f) ends with f.flush(): make that an fsync too."""

    def flush(self):
        super().flush()
        os.fsync(self.fileno())


def save_checkpoint(mode, path, step, weights):
    """One checkpoint, fsync'd before it returns: torch.save (the file's
    flush fsyncs), plain f.write + os.fsync, or numpy.save + os.fsync."""
    if mode == "torch":
        with FsyncOnFlush(path, "w") as f:
            torch.save({"step": step, "weights": weights}, f)
        return
    with open(path, "wb") as f:
        if mode == "write":
            f.write(weights.numpy().tobytes())
        else:
            np.save(f, weights.numpy())
        f.flush()
        os.fsync(f.fileno())


class CkptWriter:
    """--ckpt-async: one background thread that writes and fsyncs one
    checkpoint at a time (save_checkpoint). A failed write is raised again
    on the loop thread, by the next submit() or by close()."""

    def __init__(self, mode):
        self.mode = mode
        self.job = None
        self.error = None
        self.cv = threading.Condition()
        self.closing = False
        self.thread = threading.Thread(target=self._run, name="ckpt-writer", daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            with self.cv:
                while self.job is None and not self.closing:
                    self.cv.wait()
                if self.job is None:
                    return
                path, step, snap = self.job
            try:
                save_checkpoint(self.mode, path, step, snap)
            except BaseException as e:  # handed to the loop thread
                with self.cv:
                    self.error = e
            with self.cv:
                self.job = None
                self.cv.notify_all()

    def wait(self):
        """Wait until no checkpoint is being written; raise a failed one."""
        with self.cv:
            while self.job is not None:
                self.cv.wait()
            if self.error is not None:
                e, self.error = self.error, None
                raise e

    def submit(self, path, step, snapshot):
        """Wait for the previous checkpoint, then hand this one over (the
        writer owns `snapshot` from here on)."""
        self.wait()
        with self.cv:
            self.job = (path, step, snapshot)
            self.cv.notify_all()

    def close(self):
        """Wait for the last checkpoint and end the thread."""
        self.wait()
        with self.cv:
            self.closing = True
            self.cv.notify_all()
        self.thread.join()


class Checkpoints:
    """The job's checkpoints, every --ckpt-every steps: written on the loop
    thread, or (--ckpt-async) from a snapshot by a CkptWriter. Counts them
    and the loop thread's seconds in them (n, seconds, wait_s)."""

    def __init__(self, a, rank, world):
        self.a, self.rank, self.world = a, rank, world
        self.weights = torch.zeros(a.ckpt_mib * (1 << 20) // 4, dtype=torch.float32)
        self.writer = CkptWriter(a.ckpt_mode) if a.ckpt_async else None
        self.n = 0
        self.seconds = self.wait_s = 0.0
        self.dev = None  # --device async: the device to sync with first
        self.sync_s = 0.0
        self.intervals = []  # (start, end) of each save() on the loop thread

    def _path(self):
        mode = self.a.ckpt_mode
        ext = "pt" if mode == "torch" else ("npy" if mode == "numpy" else "bin")
        name = "ckpt-%d.%s" % (self.n % 2, ext) if self.world == 1 else \
            "ckpt-r%d-%d.%s" % (self.rank, self.n % 2, ext)
        return os.path.join(self.a.ckpt_dir, name)

    def save(self, step):
        t_s = time.perf_counter()
        if self.dev is not None:
            # torch.save (or a snapshot) of weights on an accelerator first
            # copies them to the host, on the stream that holds the queued
            # steps: the copy, and so the checkpoint, waits for them all
            self.sync_s += self.dev.sync()
        if self.writer is None:
            save_checkpoint(self.a.ckpt_mode, self._path(), step, self.weights)
        else:
            snap = self.weights.clone()  # the bytes as they are at this step
            t_w = time.perf_counter()
            self.writer.submit(self._path(), step, snap)
            self.wait_s += time.perf_counter() - t_w
        t_e = time.perf_counter()
        self.seconds += t_e - t_s
        self.intervals.append((t_s, t_e))
        self.n += 1

    def close(self):
        """After the loop: wait for the last asynchronous checkpoint."""
        if self.writer is not None:
            t_w = time.perf_counter()
            self.writer.close()
            dt = time.perf_counter() - t_w
            self.wait_s += dt
            self.seconds += dt


def join_netns(path):
    """Move this thread into the network namespace at PATH (a DataLoader
    worker, before its first request)."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns %s" % path)
    finally:
        os.close(fd)


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


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--format", choices=("npy", "npy-mmap", "bin", "rand", "http", "memmap", "jpeg", "zip"),
                    default="npy")
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
    ap.add_argument("--matmul-n", type=int, default=0,
                    help="a transform of --matmul-ops NxN matrix products per sample (torch's intra-op threads)")
    ap.add_argument("--matmul-ops", type=int, default=8)
    ap.add_argument("--worker-threads", type=int, default=0,
                    help="torch.set_num_threads(T) in each worker's worker_init_fn (0: the DataLoader's 1)")
    ap.add_argument("--worker-mib", type=int, default=0,
                    help="each worker holds this many MiB of its own (written in its worker_init_fn)")
    ap.add_argument("--stall-every", type=int, default=0,
                    help="every N-th sample a worker loads sleeps --stall-ms more (a slow sample)")
    ap.add_argument("--stall-ms", type=float, default=0.0)
    ap.add_argument("--stages", default="", help="NAME:MS,...: a Compose of CPU-burning transforms")
    ap.add_argument("--collate-ms", type=float, default=-1.0,
                    help="a collate_fn that burns MS per batch (0: no burn, still timed)")
    ap.add_argument("--main-sleep-ms", type=float, default=0.0,
                    help="each index the sampler draws sleeps MS in the training process")
    ap.add_argument("--compute-ms", type=float, default=20.0)
    ap.add_argument("--ckpt-every", type=int, default=0)
    ap.add_argument("--ckpt-mib", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="")
    ap.add_argument("--ckpt-mode", choices=("torch", "write", "numpy"), default="torch")
    ap.add_argument("--ckpt-async", action="store_true",
                    help="write checkpoints from a snapshot in a background thread")
    ap.add_argument("--busy-file", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--records", type=int, default=1, help="rand: reads per sample")
    ap.add_argument("--read-kib", type=int, default=4, help="rand: KiB per read (aligned to its size)")
    ap.add_argument("--record-kib", type=int, default=256, help="memmap: KiB per sample")
    ap.add_argument("--netns", default="", help="workers join this network namespace")
    ap.add_argument("--fresh-epochs", action="store_true")
    ap.add_argument("--val-data", default="")
    ap.add_argument("--val-samples", type=int, default=0)
    ap.add_argument("--val-compute-ms", type=float, default=5.0)
    ap.add_argument("--dist", action="store_true")
    ap.add_argument("--ddp", action="store_true")
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-data", default="")
    ap.add_argument("--slow-format", default="")
    ap.add_argument("--max-steps", type=int, default=0, help="end after M steps in all")
    ap.add_argument("--steady-after", type=int, default=0,
                    help="steady_* figures over the steps after the first K")
    ap.add_argument("--evict", action="store_true", help="drop the dataset from the page cache first")
    ap.add_argument("--evict-from", type=int, default=-1,
                    help="from epoch K on, each file is dropped from the page cache before it is read "
                         "(the dataset outgrew the page cache: every read goes to the storage)")
    ap.add_argument("--main-cpu-ms", type=float, default=0.0,
                    help="each index the sampler draws burns MS of CPU in the training process")
    ap.add_argument("--unpickle-ms", type=float, default=0.0,
                    help="each sample carries an object whose unpickling burns MS of CPU where it is "
                         "unpickled: the training process, inside next() (a batch of heavy Python objects)")
    ap.add_argument("--step-ends", action="store_true",
                    help="print each step's end (s since the loop's start) before the summary")
    ap.add_argument("--device", choices=("sync", "async"), default="sync",
                    help="the emulated accelerator: on the host thread (sync) or a device thread "
                         "with a launch queue (async)")
    ap.add_argument("--run-ahead", type=int, default=2,
                    help="async: launched steps not yet finished before a launch blocks")
    ap.add_argument("--sync", default="every",
                    help="async: wait for the device every step (every), every N steps (N), "
                         "or only after the loop (end)")
    ap.add_argument("--events", choices=("on", "off"), default="off",
                    help="async: register the device's events with feedscope.device_timeline()")
    a = ap.parse_args()
    if a.ddp and not a.dist:
        ap.error("--ddp needs --dist")
    if a.format == "rand" and not a.samples:
        ap.error("--format rand needs --samples")
    if a.ckpt_every and not (a.ckpt_dir and a.ckpt_mib):
        ap.error("--ckpt-every needs --ckpt-dir and --ckpt-mib")
    if a.ckpt_async and not a.ckpt_every:
        ap.error("--ckpt-async needs --ckpt-every")
    if a.netns and a.workers < 1:
        ap.error("--netns needs --workers >= 1 (the workers join it)")
    if a.val_data and a.val_samples < 1:
        ap.error("--val-data needs --val-samples")
    if a.slow_rank >= 0 and not (a.dist and a.slow_data):
        ap.error("--slow-rank needs --dist and --slow-data")
    if a.sync == "every":
        a.sync_n = 1
    elif a.sync == "end":
        a.sync_n = 0
    else:
        try:
            a.sync_n = int(a.sync)
        except ValueError:
            a.sync_n = -1
        if a.sync_n < 1:
            ap.error("--sync takes every, end or a whole number >= 1, not %r" % a.sync)
    if a.run_ahead < 1:
        ap.error("--run-ahead must be >= 1")
    if a.events == "on" and a.device != "async":
        ap.error("--events on needs --device async")
    if a.device == "sync" and a.sync_n != 1:
        ap.error("--sync %s needs --device async (the sync device waits every step)" % a.sync)
    return a


def evict_dataset(path):
    """Drop the dataset's files from the page cache (every run starts cold)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
    import evict_cache  # one definition of eviction: the demo's
    for f in evict_cache.files([path]):
        evict_cache.evict(f)


_WORKER_HELD = None


def hold_private(nbytes):
    """nbytes of the calling process's own memory, every page written:
    resident and private (--worker-mib here, memjob.py's too)."""
    b = bytearray(nbytes)
    b[::4096] = b"x" * len(b[::4096])
    return b


def make_loader(a, ds, seed):
    init_s = a.init_sleep_ms / 1000.0
    netns = a.netns
    held = a.worker_mib << 20
    threads = a.worker_threads

    def worker_init(_):
        if threads > 0:
            torch.set_num_threads(threads)
        if netns:
            join_netns(netns)
        if held:
            global _WORKER_HELD
            _WORKER_HELD = hold_private(held)
        if init_s > 0:
            time.sleep(init_s)

    kw = {}
    if a.workers > 0:
        kw = dict(persistent_workers=a.persistent, prefetch_factor=a.prefetch,
                  worker_init_fn=worker_init)
        if a.context != "default":
            kw["multiprocessing_context"] = a.context
    g = torch.Generator()
    g.manual_seed(seed)
    if a.unpickle_ms > 0:
        kw["collate_fn"] = collate_with_objects
    elif a.stages or a.collate_ms >= 0:
        kw["collate_fn"] = StageCollate(max(a.collate_ms, 0.0))
    if a.main_cpu_ms > 0:
        kw["sampler"] = SlowSampler(ds, a.main_cpu_ms / 1000.0, g, cpu=True)
    elif a.main_sleep_ms > 0:
        kw["sampler"] = SlowSampler(ds, a.main_sleep_ms / 1000.0, g)
    else:
        kw["shuffle"] = True
        kw["generator"] = g
    return DataLoader(ds, batch_size=a.batch, num_workers=a.workers, **kw)


class SlowSampler(torch.utils.data.RandomSampler):
    """--main-sleep-ms: each index drawn costs a sleep in the process that
    draws it, the training process (a DataLoader's sampler runs there,
    however many workers load): input wait that no loader knob relieves."""

    def __init__(self, ds, sleep_s, g, cpu=False):
        super().__init__(ds, generator=g)
        self.sleep_s = sleep_s
        self.cpu = cpu  # --main-cpu-ms: burn the CPU instead (a costly custom sampler)

    def __iter__(self):
        for i in super().__iter__():
            if self.cpu:
                burn(self.sleep_s)
            else:
                time.sleep(self.sleep_s)
            yield i


class Heavy:
    """--unpickle-ms: an object whose unpickling costs CPU where it is
    unpickled (as objects rebuilt from their bytes do): a worker makes it
    for nothing, the training process pays for it when it takes the batch
    off the workers' queue, inside next()."""

    def __init__(self, s):
        self.s = s

    def __reduce__(self):
        return (rebuild_heavy, (self.s,))


def rebuild_heavy(s):
    burn(s)
    return Heavy(s)


def collate_with_objects(batch):
    """The tensors collated as usual, the objects kept as a list."""
    from torch.utils.data import default_collate
    return default_collate([b[0] for b in batch]), [b[1] for b in batch]


def compute_step(busy, seconds):
    """The emulated accelerator step, reported in slices so that a sampler
    sees busy time arrive as it is spent. Returns the busy seconds added."""
    t_c = t0 = time.perf_counter()
    t_end = t_c + seconds
    while True:
        left = t_end - time.perf_counter()
        if left <= 0:
            break
        time.sleep(min(left, BUSY_SLICE_S))
        now = time.perf_counter()
        busy.add(now - t_c)
        t_c = now
    return t_c - t0


class SyncDevice:
    """--device sync (the default): the accelerator's work runs on the host
    thread (compute_step), so every step is launched and waited for at once.
    Keeps the device's busy intervals for the summary's dev_* figures; the
    host's time in run() is counted as sync_s (waiting for the device)."""

    def __init__(self, busy):
        self.busy = busy
        self.intervals = []  # (start, end) of each piece of work, perf_counter
        self.busy_kind = {"train": 0.0, "val": 0.0}
        self.launch_s = 0.0
        self.sync_s = 0.0
        self.syncs = 0

    def run(self, seconds, kind="train"):
        t_b = time.perf_counter()
        b = compute_step(self.busy, seconds)
        t_e = time.perf_counter()
        self.intervals.append((t_b, t_e))
        self.busy_kind[kind] += b
        self.sync_s += t_e - t_b

    def sync(self):
        return 0.0

    def close(self):
        pass


class AsyncDevice:
    """--device async: a device thread runs the launched work in launch
    order, one piece at a time (compute_step: sleeps in 10 ms slices and adds
    each slice to the busy file, from this thread). run() is a launch: it
    queues the work and returns at once, unless --run-ahead pieces are
    already launched and not finished (the one running included), in which
    case it blocks until one finishes (a full launch queue). sync() blocks
    until every launched piece has finished (loss.item(), a device-to-host
    copy). The host's seconds inside run() are launch_s, inside sync()
    sync_s; blocks lists the launches that had to wait, as (start, end)."""

    def __init__(self, busy, run_ahead):
        self.busy = busy
        self.run_ahead = run_ahead
        self.intervals = []
        self.busy_kind = {"train": 0.0, "val": 0.0}
        self.launch_s = 0.0
        self.sync_s = 0.0
        self.syncs = 0
        self.blocks = []
        self.queue = collections.deque()
        self.launched = self.finished = 0
        self.closing = False
        self.error = None
        self.cv = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="device", daemon=True)
        self.thread.start()

    def _run(self):
        try:
            while True:
                with self.cv:
                    while not self.queue and not self.closing:
                        self.cv.wait()
                    if not self.queue:
                        return
                    seconds, kind = self.queue[0]
                t_b = time.perf_counter()
                b = compute_step(self.busy, seconds)
                t_e = time.perf_counter()
                with self.cv:
                    self.queue.popleft()
                    self.finished += 1
                    self.intervals.append((t_b, t_e))
                    self.busy_kind[kind] += b
                    # the events recorded behind this piece, before the
                    # next piece: the device reaches them as it ends
                    while self.queue and isinstance(self.queue[0], DeviceEvent):
                        self.queue.popleft().stamp = t_e
                    self.cv.notify_all()
        except BaseException as e:  # raised again on the host by run()/sync()
            with self.cv:
                self.error = e
                self.queue.clear()
                self.finished = self.launched
                self.cv.notify_all()

    def _check(self):
        if self.error is not None:
            raise RuntimeError("train.py: the emulated device failed: %r" % (self.error,))

    def run(self, seconds, kind="train"):
        t_b = time.perf_counter()
        blocked = False
        with self.cv:
            while self.launched - self.finished >= self.run_ahead:
                blocked = True
                self.cv.wait()
            self._check()
            self.queue.append((seconds, kind))
            self.launched += 1
            self.cv.notify_all()
        t_e = time.perf_counter()
        self.launch_s += t_e - t_b
        if blocked:
            self.blocks.append((t_b, t_e))

    def mark(self, ev):
        """DeviceEvent.record(): EV behind all launched work, stamped when
        the device reaches it; at once when the device is idle."""
        with self.cv:
            ev.stamp = None
            if self.queue:
                self.queue.append(ev)
            else:
                ev.stamp = time.perf_counter()

    def sync(self):
        """Wait for every launched piece; returns the seconds waited."""
        t_b = time.perf_counter()
        with self.cv:
            while self.finished < self.launched:
                self.cv.wait()
            self._check()
        dt = time.perf_counter() - t_b
        self.sync_s += dt
        self.syncs += 1
        return dt

    def close(self):
        """After a final sync(): end the device thread."""
        with self.cv:
            self.closing = True
            self.cv.notify_all()
        self.thread.join()


class DeviceEvent:
    """--events on: an event on the AsyncDevice's own timeline, with
    torch.cuda.Event(enable_timing=True)'s interface (what
    feedscope.device_timeline() asks for). stamp: the device's clock
    (perf_counter seconds) when it reached the event; None until then."""
    __slots__ = ("dev", "stamp")

    def __init__(self, dev):
        self.dev = dev
        self.stamp = None

    def record(self):
        self.dev.mark(self)

    def query(self):
        return self.stamp is not None

    def elapsed_time(self, end):
        """Milliseconds from this event to END, both complete."""
        a, b = self.stamp, end.stamp
        if a is None or b is None:
            raise RuntimeError("train.py: elapsed_time() of an event not yet complete")
        return (b - a) * 1000.0


def register_events(dev):
    """--events on: DeviceEvent as feedscope's device timeline; True if
    registered. Without the feedscope module: one line on stderr."""
    try:
        import feedscope
    except ImportError as e:
        sys.stderr.write("train.py: --events on: cannot import feedscope (%s; not under "
                         "`feedscope run`?): going on without device events\n" % e)
        return False
    feedscope.device_timeline(lambda: DeviceEvent(dev), "train.py async device")
    return True


def idle_in(intervals, busy, lo, hi):
    """Seconds of the intervals (sorted, disjoint (start, end) pairs), clipped
    to [lo, hi], during which no busy interval (sorted, disjoint) runs."""
    total = 0.0
    j = 0
    for a, b in intervals:
        a, b = max(a, lo), min(b, hi)
        if b <= a:
            continue
        while j < len(busy) and busy[j][1] <= a:
            j += 1
        covered = 0.0
        k = j
        while k < len(busy) and busy[k][0] < b:
            covered += max(0.0, min(b, busy[k][1]) - max(a, busy[k][0]))
            k += 1
        total += (b - a) - covered
    return total


def device_truth(dev, waits, t0, host_end, steps, wait_s, ckpts=()):
    """The summary's device figures (see the docstring): the device's own
    timeline (dev.intervals) against the host's next() waits."""
    iv = dev.intervals
    dev_end = iv[-1][1] if iv else t0
    span = dev_end - t0
    busy = sum(max(0.0, min(e, dev_end) - max(b, t0)) for b, e in iv)
    idle = max(0.0, span - busy)
    in_wait = idle_in(waits, iv, t0, dev_end)
    in_ckpt = idle_in(ckpts, iv, t0, dev_end)
    host_loop = host_end - t0
    loop = max(dev_end, host_end) - t0
    n = max(steps, 1)
    step = loop / n
    dev_step = dev.busy_kind["train"] / n
    host_step = max(0.0, host_loop - wait_s - dev.launch_s - dev.sync_s) / n
    floor = max(dev_step, host_step)
    return dict(dev_busy_s=busy, dev_idle_s=idle, dev_idle_share=idle / span if span > 0 else 0.0,
                dev_idle_in_wait_s=in_wait,
                dev_idle_in_wait_share=in_wait / span if span > 0 else 0.0,
                dev_span_s=span, host_loop_s=host_loop, loop_s=loop, step_s=step,
                dev_step_s=dev_step, host_step_s=host_step,
                ideal_speedup=step / floor if floor > 0 else float("nan"),
                dev_idle_in_ckpt_s=in_ckpt,
                dev_idle_in_ckpt_share=in_ckpt / span if span > 0 else 0.0)


def validate(a, dev):
    """One validation pass over --val-samples npy files; (seconds, busy
    seconds). With --device async each step is launched and the pass ends
    with a sync (its metric read back)."""
    va = argparse.Namespace(**vars(a))
    va.data, va.format, va.samples, va.fresh_epochs = a.val_data, "npy", a.val_samples, False
    va.netns, va.persistent = "", False
    t0 = time.perf_counter()
    busy0 = dev.busy_kind["val"]
    for _ in make_loader(va, Samples(va), a.seed + 1):
        dev.run(a.val_compute_ms / 1000.0, "val")
    dev.sync()
    return time.perf_counter() - t0, dev.busy_kind["val"] - busy0


def main():
    a = parse_args()
    torch.set_num_threads(1)
    if a.evict:
        evict_dataset(a.data)
    rank, world = 0, 1
    if a.dist:
        import torch.distributed as dist
        dist.init_process_group("gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
        if rank == a.slow_rank:
            a.data = a.slow_data
            a.format = a.slow_format or a.format
    ds = Samples(a)
    loader = make_loader(a, ds, a.seed)
    ckpt = Checkpoints(a, rank, world) if a.ckpt_every else None
    busy_path = a.busy_file
    if busy_path and world > 1 and rank > 0:
        busy_path = "%s.%d" % (busy_path, rank)
    busy = Busy(busy_path)
    events = False
    if a.device == "async":
        dev = AsyncDevice(busy, a.run_ahead)
        if ckpt is not None:
            ckpt.dev = dev  # a checkpoint copies the weights off the device: a sync first
        if a.events == "on":
            events = register_events(dev)
    else:
        dev = SyncDevice(busy)
    compute_s = a.compute_ms / 1000.0
    token = torch.ones(16)
    model = None
    if a.ddp:
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(torch.nn.Linear(16, 1))

    stage_mode = bool(a.stages) or a.collate_ms >= 0
    job_stages = {}
    wait = compute = first_wait = coll = val = val_busy = 0.0
    steps = samples = steady_n = 0
    steady_s = 0.0
    ends = []  # --step-ends: each step's end, s after t0
    waits = []  # each step's next() wait, (start, end)
    epoch_rows = []  # each epoch: (epoch, start, end, wait, compute), s after t0
    t0 = time.perf_counter()
    t0_unix = time.time()  # the same moment on the wall clock (the epochs: line's anchor)
    t_steady = t0 if a.steady_after == 0 else None  # the end of step --steady-after
    t_last = t0  # the end of the last step
    ended = None  # a SystemExit that ended the loop: feedscope tune's hook ends a trial so
    try:
        for epoch in range(a.epochs):
            if a.max_steps and steps >= a.max_steps:
                break
            ds.epoch = epoch  # non-persistent workers get it when the epoch starts
            t_ask = time.perf_counter()
            e_start, e_wait, e_compute = t_ask, wait, compute
            for k, batch in enumerate(loader):
                t_got = time.perf_counter()
                step_wait = t_got - t_ask
                wait += step_wait
                waits.append((t_ask, t_got))
                if k == 0:
                    first_wait += t_got - t_ask
                if stage_mode:  # (tensor, the worker's stage figures since its last batch)
                    for key, sec in batch[1].items():
                        job_stages[key] = job_stages.get(key, 0.0) + sec
                samples += len(batch[0]) if a.unpickle_ms > 0 or stage_mode else len(batch)
                dev.run(compute_s)
                if model is not None:
                    t_r = time.perf_counter()
                    model(token).sum().backward()  # DDP's all_reduce of the gradients
                    coll += time.perf_counter() - t_r
                elif a.dist:
                    t_r = time.perf_counter()
                    dist.all_reduce(token)
                    coll += time.perf_counter() - t_r
                steps += 1
                if a.sync_n and steps % a.sync_n == 0:
                    dev.sync()  # loss.item(): the host waits for the device
                if ckpt is not None and steps % a.ckpt_every == 0:
                    ckpt.save(steps)
                t_ask = time.perf_counter()
                compute += t_ask - t_got
                t_last = t_ask
                if a.step_ends:
                    ends.append(t_ask - t0)
                if steps == a.steady_after:
                    t_steady = t_ask
                if steps > a.steady_after:
                    steady_s += step_wait + (t_ask - t_got)
                    steady_n += 1
                if a.max_steps and steps >= a.max_steps:
                    break
            epoch_rows.append((epoch, e_start - t0, time.perf_counter() - t0, wait - e_wait,
                               compute - e_compute))
            if a.val_data:
                v, vb = validate(a, dev)
                val += v
                val_busy += vb
    except SystemExit as e:
        ended = e
    dev.sync()  # the end of the loop: whatever is still queued runs to its end
    host_end = time.perf_counter()
    dev.close()
    if ckpt is not None:
        ckpt.close()
    total = time.perf_counter() - t0
    truth = device_truth(dev, waits, t0, host_end, steps, wait,
                         ckpt.intervals if ckpt is not None else ())
    ckpt_n, ckpt_time = (ckpt.n, ckpt.seconds) if ckpt is not None else (0, 0.0)
    busy_train = busy.total - val_busy
    share = wait / (wait + compute) if wait + compute > 0 else 0.0
    b = {}
    if total > 0:
        b = dict(busy=busy_train / total, input=wait / total, ckpt=ckpt_time / total,
                 coll=coll / total, val=val / total)
        b["other"] = max(0.0, 1.0 - sum(b.values()))
    buckets = " ".join("b_%s=%.4f" % (k, b.get(k, 0.0))
                       for k in ("busy", "input", "ckpt", "coll", "val", "other"))
    if stage_mode:
        sys.stdout.write("job_stages: %s\n" % " ".join("%s=%.4f" % kv for kv in sorted(job_stages.items())))
    if a.step_ends:
        sys.stdout.write("step_ends: %s\n" % " ".join("%.6f" % e for e in ends))
    # each epoch's own figures (the phases' truth): epoch:start:end:wait:compute
    sys.stdout.write("epochs: t0_unix=%.6f %s\n" % (t0_unix, " ".join("%d:%.4f:%.4f:%.4f:%.4f" % r for r in epoch_rows)))
    # One write of the whole line, newline included: the ranks of a --dist
    # job share one stdout, and print() under PYTHONUNBUFFERED=1 writes the
    # text and its newline in two calls, so two ranks ending together could
    # run their lines into one (the scenarios then counted one rank).
    # the job's own account of its threads (s_oversub.sh): each worker's
    # torch intra-op threads as it set them, and the CPUs it may use
    sys.stdout.write("threads: workers=%d per_worker=%d main=%d cpus=%d\n" % (
        a.workers, a.worker_threads if a.worker_threads > 0 else 1, torch.get_num_threads(),
        len(os.sched_getaffinity(0))))
    sys.stdout.write("train: steps=%d epochs=%d samples=%d wait_s=%.3f compute_s=%.3f busy_s=%.3f "
          "ckpt_n=%d ckpt_s=%.3f first_wait_s=%.3f total_s=%.3f wait_share=%.4f "
          "rank=%d coll_s=%.3f val_s=%.3f val_busy_s=%.3f %s ckpt_async=%d ckpt_wait_s=%.3f "
          "steady_steps=%d steady_step_s=%.5f steady_wall_s=%.5f ended=%s"
          % (steps, a.epochs, samples, wait, compute, busy.total, ckpt_n, ckpt_time, first_wait,
             total, share, rank, coll, val, val_busy, buckets, int(a.ckpt_async),
             ckpt.wait_s if ckpt is not None else 0.0,
             steady_n, steady_s / steady_n if steady_n else float("nan"),
             (t_last - t_steady) / steady_n if steady_n and t_steady is not None else float("nan"),
             "loop" if ended is None else "exit")
          + " device=%s run_ahead=%d sync=%s syncs=%d launch_s=%.3f launch_blocks=%d sync_s=%.3f "
            "ckpt_sync_s=%.3f %s events=%s\n"
          % (a.device, a.run_ahead if a.device == "async" else 0,
             a.sync if a.device == "async" else "every", dev.syncs, dev.launch_s,
             len(getattr(dev, "blocks", ())), dev.sync_s,
             ckpt.sync_s if ckpt is not None else 0.0,
             " ".join("%s=%.4f" % kv for kv in truth.items()), "on" if events else "off"))
    sys.stdout.flush()
    if ended is not None:
        raise ended
    if a.dist:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
