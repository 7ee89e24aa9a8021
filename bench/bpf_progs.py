"""Which of the job source's BPF programs costs what (make bench): a job
recorded by `feedscope run --no-trace -i 0.1`, and from SETTLE_S on, for
WINDOW_S, each program's runs a second, ns a run and % of a core
(bpfstats.py: statistics on only for the window).

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


def measure(title, script):
    seconds = SETTLE_S + window + 2
    cmd = ["/usr/bin/python3", os.path.join(here, script[0]), str(seconds)] + script[2:]
    db = os.path.join(tmp, "run.db")
    fs = subprocess.Popen([feedscope, "run", "-q", "-f", "--no-trace", "-i", "0.1", "-o", db] + extra +
                          ["--"] + cmd)
    time.sleep(SETTLE_S)
    fd = bpfstats.enable()
    if fd is None:
        print(f"  {title}: cannot enable BPF statistics (needs root)")
        fs.wait()
        return
    a = bpfstats.snapshot(fs.pid)
    t0 = time.monotonic()
    time.sleep(window)
    b = bpfstats.snapshot(fs.pid)
    dt = time.monotonic() - t0
    os.close(fd)
    d = bpfstats.delta(a, b)
    nm = bpfstats.names(set(d))
    fs.wait()
    print(f"  {title}, {dt:.1f} s window")
    tot_runs = tot_ns = 0
    for pid_, (runs, ns) in sorted(d.items(), key=lambda kv: -kv[1][1]):
        tot_runs += runs
        tot_ns += ns
        print(f"    {nm.get(pid_, str(pid_)):18s} {runs / dt:10.0f} runs/s {ns / runs if runs else 0:7.0f} ns/run "
              f"{100 * ns / 1e9 / dt:7.3f}% of a core")
    print(f"    {'all':18s} {tot_runs / dt:10.0f} runs/s {tot_ns / tot_runs if tot_runs else 0:7.0f} ns/run "
          f"{100 * tot_ns / 1e9 / dt:7.3f}% of a core")


print(f"BPF programs of `feedscope run --no-trace -i 0.1 {' '.join(extra)}`, per program "
      f"(statistics on only in the window)")
for title, script in jobs:
    if os.environ.get("BPF_PROGS_JOB", script[0]) == script[0]:
        measure(title, script)
