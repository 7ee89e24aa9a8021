"""Which of the job source's BPF programs costs what (make bench): a job
recorded by `feedscope run --no-trace -i 0.1 --bpf-stats`, and from
SETTLE_S on, for WINDOW_S, each program's runs a second, ns a run and % of
a core, as the kernel counts them (bpfstats.py), and less what the
counting adds to each run: an empty program's (fs_js_floor, which
--bpf-stats loads at the same switches) ns a run.

    python3 bench/bpf_progs.py FEEDSCOPE [WINDOW_S] [-- FEEDSCOPE_RUN_ARGS...]

The jobs: the 5-process tree (job5.py) and the 64 x 20 one (job_tree.py).
A benchmark: it prints, it asserts nothing."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpfstats  # noqa: E402

feedscope = os.path.abspath(sys.argv[1])
window = float(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "--" else 6.0
extra = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
here = os.path.dirname(os.path.abspath(__file__))
SETTLE_S = 3.0
tmp = tempfile.mkdtemp(prefix="feedscope-bpfprogs-")
jobs = (("5 processes x 3 threads (job5.py)", ["job5.py"]),
        ("64 processes x 20 threads (job_tree.py)", ["job_tree.py", None, "64", "20"]))


def job_switches(root):
    """Context switches of every thread of root's descendants (task/*/status)."""
    n, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    n += sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return n


def measure(title, script):
    seconds = SETTLE_S + window + 2
    cmd = ["/usr/bin/python3", os.path.join(here, script[0]), str(seconds)] + script[2:]
    db = os.path.join(tmp, "run.db")
    fs = subprocess.Popen([feedscope, "run", "-q", "-f", "--no-trace", "--bpf-stats", "-i", "0.1", "-o", db] +
                          extra + ["--"] + cmd)
    time.sleep(SETTLE_S)
    sw0 = job_switches(fs.pid)
    a = bpfstats.snapshot(fs.pid)
    t0 = time.monotonic()
    time.sleep(window)
    b = bpfstats.snapshot(fs.pid)
    dt = time.monotonic() - t0
    sw = job_switches(fs.pid) - sw0
    d = bpfstats.delta(a, b)
    nm = bpfstats.names(set(d))
    fs.wait()
    floor = [v for k, v in d.items() if nm.get(k) == "fs_js_floor"]
    fl = floor[0][1] / floor[0][0] if floor and floor[0][0] else 0.0
    print(f"  {title}, {dt:.1f} s window; the counting's own {fl:.0f} ns a run (fs_js_floor) taken off")
    tot_runs = tot_ns = 0
    for pid_, (runs, ns) in sorted(d.items(), key=lambda kv: -kv[1][1]):
        if nm.get(pid_) == "fs_js_floor":
            continue
        own = max(0.0, ns - fl * runs)
        tot_runs += runs
        tot_ns += own
        print(f"    {nm.get(pid_, str(pid_)):18s} {runs / dt:10.0f} runs/s {ns / runs if runs else 0:7.0f} ns/run "
              f"counted, {own / runs if runs else 0:5.0f} its own: {100 * own / 1e9 / dt:7.3f}% of a core")
    print(f"    {'all':18s} {tot_runs / dt:10.0f} runs/s {'':24s}{tot_ns / tot_runs if tot_runs else 0:5.0f} its own: "
          f"{100 * tot_ns / 1e9 / dt:7.3f}% of a core; the job's own context switches {sw / dt:.0f}/s: "
          f"{tot_ns / sw if sw else 0:.0f} ns each")


print(f"BPF programs of `feedscope run --no-trace --bpf-stats -i 0.1 {' '.join(extra)}`, per program")
for title, script in jobs:
    if os.environ.get("BPF_PROGS_JOB", script[0]) == script[0]:
        measure(title, script)
