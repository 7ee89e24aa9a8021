"""The recorder's cost as the job sees it (make bench): a switch-heavy job
(switch_job.c: PROCS x THREADS threads, each doing CYCLES cycles of a fixed
computation of ~30 µs and a 2 ms sleep, together more than the machine's
CPUs can run, so that any time taken from them lengthens the job) run
alone and under `feedscope run` (default settings; --states proc;
--no-trace, states by BPF; and that with --bpf-stats, whose counting costs
the job too), ROUNDS rounds, the variants alternating in each. Printed:
each run's wall time for the fixed work and the threads' own CPU time a
cycle, and each variant's median wall time against the job's alone (the
slowdown). Only the last variant turns the kernel's BPF statistics on.

    python3 bench/switch_cost.py FEEDSCOPE SWITCH_JOB [ROUNDS [PROCS THREADS CYCLES]]

A benchmark: it prints, it asserts nothing."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

feedscope = os.path.abspath(sys.argv[1])
job_bin = os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
procs, threads, cycles = (sys.argv[4:7] if len(sys.argv) > 6 else ("64", "20", "100"))
WORK = "20000"    # rounds of the multiply-add chain a cycle (~30 µs here)
SLEEP_US = "2000"
tmp = tempfile.mkdtemp(prefix="feedscope-switch-")
variants = (("alone", None),
            ("feedscope run (default)", []),
            ("feedscope run --states proc", ["--states", "proc"]),
            ("feedscope run --no-trace", ["--no-trace"]),
            ("  the same, --bpf-stats", ["--no-trace", "--bpf-stats"]))


def run(args):
    out = os.path.join(tmp, "job.out")
    if os.path.exists(out):
        os.unlink(out)
    job = [job_bin, procs, threads, cycles, WORK, SLEEP_US, out]
    db = os.path.join(tmp, "run.db")
    cmd = job if args is None else [feedscope, "run", "-q", "-f", "-o", db] + args + ["--"] + job
    subprocess.run(cmd, check=True)
    with open(out) as f:
        kv = f.read().split()
    got = dict(zip(kv[::2], kv[1::2]))
    return float(got["wall_s"]), float(got["cpu_s"]) / int(got["cycles"]) * 1e6


print(f"switch-heavy job: {procs} processes x {threads} threads, {cycles} cycles each of {WORK} "
      f"multiply-adds and a {SLEEP_US} µs sleep; {rounds} rounds, variants alternating; "
      f"{os.cpu_count()} CPUs")
res = {name: [] for name, _ in variants}
for r in range(rounds):
    order = variants if r % 2 == 0 else tuple(reversed(variants))
    for name, args in order:
        res[name].append(run(args))
base = statistics.median(w for w, _ in res["alone"])
base_cpu = statistics.median(c for _, c in res["alone"])
for name, _ in variants:
    walls = [w for w, _ in res[name]]
    cpus = [c for _, c in res[name]]
    med, med_cpu = statistics.median(walls), statistics.median(cpus)
    rel = "" if name == "alone" else (f"  slowdown {100 * (med / base - 1):+.1f}% (wall), "
                                      f"{100 * (med_cpu / base_cpu - 1):+.1f}% (CPU a cycle)")
    print(f"  {name:28s} wall {' '.join(f'{w:.3f}' for w in walls)} s (median {med:.3f}); "
          f"CPU a cycle {' '.join(f'{c:.1f}' for c in cpus)} µs{rel}")
shutil.rmtree(tmp, ignore_errors=True)
