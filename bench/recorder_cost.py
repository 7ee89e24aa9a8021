"""The recorder's own CPU cost (make bench): a 20 s job with a 5-process tree
(bench/job5.py) recorded by `feedscope run` at 0.1 s, 0.02 s and 1 s; during
the 0.1 s run, `pidstat -d -u -t 1` and `dstat -cdngmyl --io 1` sample the same
machine side by side. Prints % of one core and µs per sample for each.
feedscope's figure is its steady-state CPU time (CLOCK_PROCESS_CPUTIME_ID,
meta recorder_cpu_s minus recorder_cpu_start_s) per tick, start-up shown
apart; the others' from wait4() on them (their start-up included). A benchmark: it prints, it asserts nothing."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

feedscope = os.path.abspath(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
here = os.path.dirname(os.path.abspath(__file__))
job = ["/usr/bin/python3", os.path.join(here, "job5.py"), str(seconds)]
tmp = tempfile.mkdtemp(prefix="feedscope-bench-")


def cpu_of(p):
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def meta(db, key):
    row = sqlite3.connect(db).execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def record(interval, side_tools):
    db = os.path.join(tmp, f"run-{interval}.db")
    fs = subprocess.Popen([feedscope, "run", "-q", "-f", "-o", db, "-i", str(interval), "--"] + job)
    others = []
    if side_tools:
        time.sleep(0.3)
        n = str(int(seconds) - 1)
        for name, cmd in (("pidstat -d -u -t 1", ["pidstat", "-d", "-u", "-t", "1", n]),
                          ("dstat -cdngmyl --io 1", ["dstat", "-cdngmyl", "--io", "1", n])):
            others.append((name, int(n), subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                                          stderr=subprocess.DEVNULL)))
    results = [(name, n, cpu_of(p)) for name, n, p in others]
    fs.wait()
    ticks = int(meta(db, "recorder_ticks"))
    cpu_total = float(meta(db, "recorder_cpu_s"))
    # steady state: after the t = 0 sample (run file created, sources opened)
    cpu = cpu_total - float(meta(db, "recorder_cpu_start_s"))
    ticks -= 1
    dur = float(meta(db, "duration_s"))
    per_src = sqlite3.connect(db).execute(
        "SELECT substr(key, 10), value FROM meta WHERE key LIKE 'recorder.%_us' ORDER BY key").fetchall()
    procs = sqlite3.connect(db).execute(
        "SELECT max(n), max(th) FROM (SELECT count(*) n, sum(threads) th FROM proc GROUP BY t)").fetchone()
    return db, ticks, cpu, cpu_total, dur, per_src, procs, results


print(f"recorder cost: {seconds:.0f} s job, 5-process tree (bench/job5.py), machine with "
      f"{os.cpu_count()} CPUs")
print(f"{'recorder':34s} {'interval':>8s} {'samples':>8s} {'% of a core':>12s} {'µs/sample':>10s}")
for interval, side in ((0.1, True), (0.02, False), (1.0, False)):
    db, ticks, cpu, cpu_total, dur, per_src, procs, others = record(interval, side)
    print(f"{'feedscope run':34s} {interval:8.2f} {ticks:8d} {100 * cpu / dur:11.3f}% "
          f"{1e6 * cpu / ticks:10.0f}   (job seen: {procs[0]} processes, {procs[1]} threads)")
    print(f"{'':34s} per source, CPU µs/tick: " + ", ".join(f"{k.replace('_us', '')} {v}" for k, v in per_src))
    print(f"{'':34s} start-up (run file, sources, t=0 sample): {1e3 * (cpu_total - cpu):.1f} ms CPU once")
    for name, n, c in others:
        print(f"{name:34s} {1.0:8.2f} {n:8d} {100 * c / dur:11.3f}% {1e6 * c / n:10.0f}")
