"""gpu_loop.py - a short input-bound PyTorch CUDA loop that records its own
truth on the device's clock, for scripts/gpu-check.sh (issue 35, item 4).

    python3 scripts/gpu_loop.py [--device cuda|cpu] [--sync every|end]
        [--steps N] [--n N] [--matmuls K] [--batch B] [--workers W]
        [--item-sleep-ms MS]
    python3 scripts/gpu_loop.py --calibrate [--device ..] [--n N] [--matmuls K]
        [--batch B] [--workers W] [--ratio R] [--seconds S]
    python3 scripts/gpu_loop.py --table LABEL REPORT.json JOB.log [LABEL ...]

The loop: a DataLoader (--workers processes) over a Dataset whose
__getitem__ sleeps --item-sleep-ms per sample (no CPU, like a remote
read), --batch samples a batch, so a batch comes about every
batch x item_sleep / workers ms; each step copies the batch to the device
(pinned, non_blocking) and runs --matmuls matmuls of N x N float32 on it
(a chain from a fixed matrix, so every step's device work is the same).
--sync every: the step ends with loss.item() (the host waits for the
device every step, as torchvision's reference loop does); --sync end: the
losses are summed on the device and read once after the loop (the host
runs ahead of the device; --steps bounds the loop). Either way the job
calls torch.cuda.synchronize() once after the loop and only then reads
its events: it is the truth, not the hook, so it may wait.

The truth, on the device's clock (torch.cuda.Event(enable_timing=True) on
the current stream; times relative to an event recorded just after a
synchronize, just before the loop's first iter(), whose host time is t0):
  - around each step's device work (after next() returned, before the
    copy; after the loss): the device's busy intervals, ks..ke;
  - around each next() (iter() included for the first step; the last
    call, which ends the epoch with StopIteration, is a wait too): on the
    host, perf_counter; on the device, two events (nothing is launched
    between them, so the device time between them is its idle inside the
    wait: a cross-check, the same method as feedscope's hook).
Then, as tests/scenarios/train.py's asynchronous device defines them:
  dev_span_s               t0 to the end of the device's last step
  device_busy_share        Σ (ke - ks) / dev_span_s
  device_idle_in_wait_share the host's next() waits (host clock, clipped
                           to the span) during which the device ran none
                           of the steps' work, / dev_span_s: what
                           feedscope's input_bound_fraction should be
  step_ms                  max(dev_span, host loop) / steps
  device_ms_per_step       Σ (ke - ks) / steps
  host_ms_per_step         (host loop - host waits - host syncs) / steps:
                           the host's own time (Python, launches; a launch
                           that blocks on a full queue counts here, which
                           an input-bound loop does not do)
  ideal_speedup            step_ms / max(device_ms_per_step,
                           host_ms_per_step): the step if input were free
  idle_in_wait_events_share the events' figure (Σ of the wait pairs'
                           device time / dev_span_s), beside the host one
One line: "truth: device_busy_share=.. device_idle_in_wait_share=..
step_ms=.. device_ms_per_step=.. ideal_speedup=.. host_ms_per_step=..
idle_in_wait_events_share=.. steps=.. dev_span_s=.. host_loop_s=..
wait_s=.. sync_s=..". --device cpu (a smoke test of the loop and the hook
on a machine without a GPU; small matmuls: --n defaults to 256 there)
records no events and prints "truth: unavailable on cpu".

--calibrate: warms up, times 10 steps' device work (events on cuda, one
synchronize each; the host clock on cpu) and prints
"calibrate: device_ms_per_step=D item_sleep_ms=S steps=N": S so that a
batch comes every --ratio (1.6) x D (the loop is then input-bound by
about 1 - 1/ratio, with an ideal speedup of about ratio), N steps to make
a loop of about --seconds (10; 40 to 300 steps): NVML's busy is judged a
second at a time, so the loop needs several. Any GPU then runs the same
shape of loop.

--table: for each run, LABEL, the JSON of `feedscope report --json` and
the job's stdout; prints feedscope's verdict.input_bound_fraction,
verdict.predicted_speedup, accounting.basis, the trainer's device_clock,
device_idle_in_wait_s, wait_s and gpu_busy (NVML's busy share of the
loop), beside the job's truth, one run a line.

Written for torch >= 1.13; no imports beyond torch and the standard library.
"""
import argparse
import json
import math
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description="input-bound PyTorch loop with its own device-clock truth")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--sync", default="every", choices=("every", "end"))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--n", type=int, default=None, help="matrix size (cuda: 4096, cpu: 256)")
    p.add_argument("--matmuls", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--item-sleep-ms", type=float, default=10.0)
    p.add_argument("--calibrate", action="store_true")
    p.add_argument("--ratio", type=float, default=1.6)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--table", nargs="+", metavar="ARG")
    a = p.parse_args(argv)
    if a.n is None:
        a.n = 4096 if a.device == "cuda" else 256
    if a.table is not None and len(a.table) % 3:
        p.error("--table takes LABEL REPORT.json JOB.log triples")
    return a


# ---- the data: slow per sample, cheap in CPU ----------------------------

def make_dataset(torch, n_items, sleep_s, width):
    class SlowSamples(torch.utils.data.Dataset):
        """Sample i: a small float vector, after sleeping sleep_s."""

        def __len__(self):
            return n_items

        def __getitem__(self, i):
            time.sleep(sleep_s)
            return torch.full((width,), float(i % 7) / 7.0)

    return SlowSamples()


# ---- the device work ----------------------------------------------------

class Work:
    """A step's device work: N x N matmuls, a chain from a fixed start."""

    def __init__(self, torch, dev, n, matmuls):
        g = torch.Generator().manual_seed(0)
        self.torch = torch
        self.dev = dev
        self.a = torch.randn(n, n, generator=g).to(dev)
        # scaled so that the chain's values stay near unit size
        self.w = (torch.randn(n, n, generator=g) / math.sqrt(n)).to(dev)
        self.matmuls = matmuls

    def step(self, x):
        """Launches one step's work on batch x (on the host); returns the
        step's loss, a 0-d tensor on the device (not read)."""
        xd = x.to(self.dev, non_blocking=True)
        y = self.a * (1.0 + xd.mean())
        for _ in range(self.matmuls):
            y = self.torch.mm(y, self.w)
        return y.mean()


# ---- the truth ----------------------------------------------------------

def idle_seconds(waits, busy, lo, hi):
    """Seconds of the host waits (start, end), clipped to [lo, hi], that no
    busy interval covers. Both lists are in time order; busy intervals do
    not overlap (one stream runs its work in order)."""
    idle = 0.0
    first = 0
    for w0, w1 in waits:
        w0, w1 = max(w0, lo), min(w1, hi)
        if w1 <= w0:
            continue
        while first < len(busy) and busy[first][1] <= w0:
            first += 1
        free = w1 - w0
        k = first
        while k < len(busy) and busy[k][0] < w1:
            free -= max(0.0, min(w1, busy[k][1]) - max(w0, busy[k][0]))
            k += 1
        idle += free
    return idle


def truth_line(t):
    return ("truth: device_busy_share=%.3f device_idle_in_wait_share=%.3f step_ms=%.2f "
            "device_ms_per_step=%.2f ideal_speedup=%.2f host_ms_per_step=%.2f "
            "idle_in_wait_events_share=%.3f steps=%d dev_span_s=%.3f host_loop_s=%.3f "
            "wait_s=%.3f sync_s=%.3f" % (
                t["busy_share"], t["idle_in_wait_share"], t["step_ms"], t["dev_ms"],
                t["ideal"], t["host_ms"], t["events_share"], t["steps"], t["span"],
                t["host_loop"], t["wait_s"], t["sync_s"]))


def device_truth(t0, ev0, waits, wait_ev, work_ev, host_end, wait_s, sync_s):
    """waits: the host's next() intervals (perf_counter), the epoch's last,
    StopIteration one included; wait_ev: their two events each; work_ev:
    each step's (start, end) events; ev0 was recorded at host time t0.
    Every event is complete (the caller synchronized)."""
    def at(ev):  # the event's device time on the host's clock
        return t0 + ev0.elapsed_time(ev) / 1000.0

    busy = [(at(s), at(e)) for s, e in work_ev]
    dev_end = busy[-1][1] if busy else t0
    span = dev_end - t0
    busy_s = sum(max(0.0, min(b1, dev_end) - max(b0, t0)) for b0, b1 in busy)
    in_wait = idle_seconds(waits, busy, t0, dev_end)
    # the events' own figure; a wait after the device's last work is past the span
    ev_in_wait = sum(max(0.0, min(at(e), dev_end) - max(at(s), t0)) for s, e in wait_ev)
    host_loop = host_end - t0
    loop = max(dev_end, host_end) - t0
    n = max(len(work_ev), 1)
    step = loop / n
    dev_step = busy_s / n
    host_step = max(0.0, host_loop - wait_s - sync_s) / n
    floor = max(dev_step, host_step)
    return dict(busy_share=busy_s / span if span > 0 else 0.0,
                idle_in_wait_share=in_wait / span if span > 0 else 0.0,
                events_share=ev_in_wait / span if span > 0 else 0.0,
                step_ms=step * 1e3, dev_ms=dev_step * 1e3, host_ms=host_step * 1e3,
                ideal=step / floor if floor > 0 else float("nan"),
                steps=len(work_ev), span=span, host_loop=host_loop, wait_s=wait_s, sync_s=sync_s)


# ---- the loop -----------------------------------------------------------

def run_loop(torch, a):
    cuda = a.device == "cuda"
    dev = torch.device(a.device)
    work = Work(torch, dev, a.n, a.matmuls)
    # warm-up: cuBLAS's handle and the allocator's blocks, before any timing
    work.step(torch.zeros(64)).item()
    if cuda:
        torch.cuda.synchronize()
        Event = torch.cuda.Event

    ds = make_dataset(torch, a.steps * a.batch, a.item_sleep_ms / 1000.0, 64)
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch, num_workers=a.workers,
                                         pin_memory=cuda, shuffle=False)
    print("gpu_loop: device=%s sync=%s steps=%d n=%d matmuls=%d batch=%d workers=%d "
          "item_sleep_ms=%g" % (a.device, a.sync, a.steps, a.n, a.matmuls, a.batch, a.workers,
                                a.item_sleep_ms), flush=True)

    waits, wait_ev, work_ev = [], [], []
    wait_s = sync_s = 0.0
    total = None
    ev0 = None
    t0 = time.perf_counter()
    if cuda:
        ev0 = Event(enable_timing=True)
        ev0.record()
    it = None
    while True:
        if cuda:
            ws_ev, we_ev = Event(enable_timing=True), Event(enable_timing=True)
            ws_ev.record()
        h0 = time.perf_counter() if it is not None else t0
        if it is None:
            it = iter(loader)  # the first wait holds the workers' start, as the hook's does
        try:
            x = next(it)
        except StopIteration:  # the epoch's end: the host is inside next() too
            x = None
        h1 = time.perf_counter()
        wait_s += h1 - h0
        waits.append((h0, h1))
        if cuda:
            we_ev.record()
            wait_ev.append((ws_ev, we_ev))
        if x is None:
            break
        if cuda:
            ks_ev, ke_ev = Event(enable_timing=True), Event(enable_timing=True)
            ks_ev.record()
        loss = work.step(x)
        if a.sync == "end":
            total = loss if total is None else total + loss
        if cuda:
            ke_ev.record()
            work_ev.append((ks_ev, ke_ev))
        if a.sync == "every":
            s0 = time.perf_counter()
            loss.item()
            sync_s += time.perf_counter() - s0
    steps = len(waits) - 1
    # after the epoch: the loss read back once (--sync end), then the truth's own wait
    s0 = time.perf_counter()
    if total is not None:
        total.item()
    if cuda:
        torch.cuda.synchronize()
    host_end = time.perf_counter()
    sync_s += host_end - s0
    del it
    print("gpu_loop: done steps=%d host_loop_s=%.3f wait_s=%.3f sync_s=%.3f" % (
        steps, host_end - t0, wait_s, sync_s), flush=True)
    if not cuda:
        print("truth: unavailable on cpu", flush=True)
        return 0
    print(truth_line(device_truth(t0, ev0, waits, wait_ev, work_ev, host_end, wait_s, sync_s)),
          flush=True)
    return 0


def calibrate(torch, a):
    cuda = a.device == "cuda"
    dev = torch.device(a.device)
    work = Work(torch, dev, a.n, a.matmuls)
    x = torch.zeros(a.batch, 64)
    for _ in range(3):
        work.step(x).item()
    times = []
    for _ in range(10):
        if cuda:
            torch.cuda.synchronize()
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            work.step(x)
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1))
        else:
            c0 = time.perf_counter()
            work.step(x).item()
            times.append((time.perf_counter() - c0) * 1e3)
    times.sort()
    dev_ms = times[len(times) // 2]
    sleep_ms = a.ratio * dev_ms * a.workers / a.batch
    steps = int(min(300, max(40, a.seconds * 1e3 / (a.ratio * dev_ms))))
    print("calibrate: device_ms_per_step=%.2f item_sleep_ms=%.2f steps=%d" % (dev_ms, sleep_ms, steps),
          flush=True)
    return 0


# ---- the side-by-side table ---------------------------------------------

def fields(line):
    out = {}
    for word in line.split():
        if "=" in word:
            k, v = word.split("=", 1)
            out[k] = v
    return out


def fmt(v, spec):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    try:
        return spec % v
    except TypeError:
        return str(v)


def table(args):
    rows = []
    for i in range(0, len(args), 3):
        label, rep_path, log_path = args[i:i + 3]
        r = {"label": label}
        try:
            with open(rep_path) as f:
                doc = json.load(f)
            v = doc.get("verdict") or {}
            acc = doc.get("accounting") or {}
            tr = next((p for p in acc.get("processes") or [] if p.get("trainer")), {})
            r.update(ib=v.get("input_bound_fraction"), sp=v.get("predicted_speedup"),
                     verdict=v.get("primary"), basis=acc.get("basis"),
                     clock=tr.get("device_clock"), idle_w=tr.get("device_idle_in_wait_s"),
                     wait=tr.get("wait_s"), nvml=tr.get("gpu_busy"))
        except (OSError, ValueError) as e:
            r["err"] = "report: %s" % e
        truth = {}
        try:
            with open(log_path) as f:
                for line in f:
                    if line.startswith("truth:"):
                        truth = fields(line)
                        if not truth:
                            truth = {"unavailable": line.split(":", 1)[1].strip()}
        except OSError as e:
            r.setdefault("err", "log: %s" % e)
        r["truth"] = truth
        rows.append(r)

    def num(t, k):
        try:
            return float(t[k])
        except (KeyError, ValueError):
            return None

    print("%-22s | %-29s | %-6s %-5s %-8s %-7s %-7s %-5s | %s" % (
        "run", "feedscope: verdict", "input", "speed", "dev", "idle in", "wait_s", "NVML",
        "truth (the job's CUDA events)"))
    print("%-22s | %-29s | %-6s %-5s %-8s %-7s %-7s %-5s | %s" % (
        "", "basis", "bound", "up", "clock", "wait_s", "", "busy",
        "idle_in_wait  busy  ideal_speedup  step_ms  dev_ms  events_idle"))
    for r in rows:
        t = r["truth"]
        if "err" in r:
            print("%-22s | %s" % (r["label"], r["err"]))
            continue
        tv = ("%-12s  %-4s  %-13s  %-7s  %-6s  %s" % (
            fmt(num(t, "device_idle_in_wait_share"), "%.3f"), fmt(num(t, "device_busy_share"), "%.2f"),
            fmt(num(t, "ideal_speedup"), "%.2fx"), fmt(num(t, "step_ms"), "%.1f"),
            fmt(num(t, "device_ms_per_step"), "%.1f"), fmt(num(t, "idle_in_wait_events_share"), "%.3f"))
              if "device_idle_in_wait_share" in t else t.get("unavailable", "no truth line"))
        print("%-22s | %-29s | %-6s %-5s %-8s %-7s %-7s %-5s | %s" % (
            r["label"], "%s: %s" % (r.get("verdict") or "-", r.get("basis") or "-"),
            fmt(r.get("ib"), "%.3f"), fmt(r.get("sp"), "%.2fx"), r.get("clock") or "host",
            fmt(r.get("idle_w"), "%.2f"), fmt(r.get("wait"), "%.2f"), fmt(r.get("nvml"), "%.2f"), tv))
    print("compare: input bound ~ truth idle_in_wait (issue 35: within 5 points); "
          "speed up ~ truth ideal_speedup (within 15%); NVML busy ~ truth busy")
    return 0


def main(argv):
    a = parse_args(argv)
    if a.table is not None:
        return table(a.table)
    try:
        import torch
    except ImportError as e:
        print("gpu_loop: no torch (%s): skipped" % e, flush=True)
        return 2
    if a.device == "cuda" and not torch.cuda.is_available():
        print("gpu_loop: torch %s has no usable CUDA: skipped" % torch.__version__, flush=True)
        return 2
    if a.calibrate:
        return calibrate(torch, a)
    return run_loop(torch, a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
