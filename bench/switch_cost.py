"""The recorder's cost as the job sees it (make bench): a switch-heavy job
(switch_job.c: PROCS x THREADS threads, each doing cycles of a fixed
computation of ~4 µs and a 2 ms sleep, together more than the machine's
CPUs can run, so that any time taken from them shows in the job's rate:
some 200 000 cycles a second on 2 CPUs, each a switch out and a switch in)
counts the cycles it completes in a SECONDS window, alone and under
`feedscope run` (default settings; --states proc; --no-trace, states by
BPF; and that with --bpf-stats, whose counting costs the job too), ROUNDS
rounds, the variants alternating in each. Printed: each run's rate and
the threads' own CPU time a cycle (which holds what the kernel charges to
them, the BPF programs at their switches among it), and each variant's
slowdown, 1 - its rate / the alone rate of the same round (a machine
shared with other work drifts between rounds more than within one); and,
from the --bpf-stats runs, the programs' own time in the kernel (meta
job.bpf_cpu_s) as a share of the machine's CPUs, which the job fills.
Only that variant turns the kernel's BPF statistics on.
(Two copies of the job at once, one recorded, were no better a measure
here: two unrecorded ones differed by 5-36% in rate.)

    python3 bench/switch_cost.py FEEDSCOPE SWITCH_JOB [ROUNDS [PROCS THREADS SECONDS]]

A benchmark: it prints, it asserts nothing."""
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

feedscope = os.path.abspath(sys.argv[1])
job_bin = os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
procs, threads, seconds = (sys.argv[4:7] if len(sys.argv) > 6 else ("64", "20", "2"))
WORK = "2000"     # rounds of the multiply-add chain a cycle (~4 µs here)
SLEEP_US = "2000"
tmp = tempfile.mkdtemp(prefix="feedscope-switch-")
db = os.path.join(tmp, "run.db")
variants = (("alone", None),
            ("feedscope run (default)", []),
            ("feedscope run --states proc", ["--states", "proc"]),
            ("feedscope run --no-trace", ["--no-trace"]),
            ("  the same, --bpf-stats", ["--no-trace", "--bpf-stats"]))


def meta(key):
    row = sqlite3.connect(db).execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def run(args):
    """(cycles a second, the threads' CPU µs a cycle, the BPF programs' %
    of the machine's CPUs or None)."""
    out = os.path.join(tmp, "job.out")
    job = [job_bin, procs, threads, seconds, WORK, SLEEP_US, out]
    cmd = job if args is None else [feedscope, "run", "-q", "-f", "-o", db] + args + ["--"] + job
    subprocess.run(cmd, check=True)
    with open(out) as f:
        kv = f.read().split()
    got = dict(zip(kv[::2], kv[1::2]))
    n = int(got["cycles"])
    bpf = meta("job.bpf_cpu_s") if args and "--bpf-stats" in args else None
    share = 100 * float(bpf) / float(meta("duration_s")) / os.cpu_count() if bpf else None
    return n / float(got["wall_s"]), float(got["cpu_s"]) / n * 1e6, share


print(f"switch-heavy job: {procs} processes x {threads} threads, cycles of {WORK} multiply-adds and a "
      f"{SLEEP_US} µs sleep for {seconds} s; {rounds} rounds, variants alternating; {os.cpu_count()} CPUs")
res = {name: [] for name, _ in variants}
for r in range(rounds):
    for name, args in (variants if r % 2 == 0 else tuple(reversed(variants))):
        res[name].append(run(args))
alone = res["alone"]
for name, _ in variants:
    rates = [x for x, _, _ in res[name]]
    cpus = [c for _, c, _ in res[name]]
    slow = [100 * (1 - x / a[0]) for x, a in zip(rates, alone)]
    line = (f"  {name:28s} {' '.join(f'{x:,.0f}' for x in rates)} cycles/s; CPU a cycle "
            f"{' '.join(f'{c:.2f}' for c in cpus)} µs")
    if name != "alone":
        line += (f"; slowdown {' '.join(f'{x:+.1f}' for x in slow)}% (median {statistics.median(slow):+.1f}%)")
    print(line)
    shares = [s for _, _, s in res[name] if s is not None]
    if shares:
        print(f"  {'':28s} its BPF programs in the kernel: {' '.join(f'{s:.2f}' for s in shares)}% of the "
              f"machine's CPUs (job.bpf_cpu_s over the run, the counting's own time taken off)")
shutil.rmtree(tmp, ignore_errors=True)
