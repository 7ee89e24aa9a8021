"""What each process's smaps_rollup costs the recorder (make bench): the
5-process tree (bench/job5.py) and the 64 x 20 one (bench/job_tree.py),
recorded at 0.1 s with --no-trace three ways: --no-pss (no reads), the
default (read when a process's faults or resident size move, about 2 ms a
resident MiB at most) and --pss (every process at least every 10 s). Then
a job whose memory moves all the time (tests/scenarios/memjob.py: 3
DataLoader workers copying their parent's Python objects), the same three
ways. Prints, per run, the ticks' own CPU from t = 3 s (% of a core and µs
a tick), the job source's µs a tick (meta recorder.job_us) and the
smaps_rollup reads made (distinct readings in proc). A benchmark: it
prints, it asserts nothing."""
import os
import sqlite3
import subprocess
import sys
import tempfile

feedscope = os.path.abspath(sys.argv[1])
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp(prefix="feedscope-memcost-")
STEADY_S = 3.0


def figures(db):
    c = sqlite3.connect(db)
    n, us, span = c.execute("SELECT count(*), total(cpu_us), max(t) - min(t) + avg(dt_s) FROM ticks WHERE t >= ?",
                            (STEADY_S,)).fetchone()
    job = c.execute("SELECT value FROM meta WHERE key='recorder.job_us'").fetchone()
    reads = c.execute("SELECT count(*) FROM (SELECT DISTINCT pid, pss_bytes, uss_bytes FROM proc"
                      " WHERE pss_bytes IS NOT NULL)").fetchone()[0]
    return (100 * us / 1e6 / span if span else float("nan"), us / n if n else float("nan"),
            float(job[0]) if job else float("nan"), reads)


def run(name, how, cmd):
    db = os.path.join(tmp, f"{name}-{how.strip('-') or 'default'}.db")
    opts = [how] if how else []
    subprocess.run([feedscope, "run", "-q", "-f", "--no-trace", "-o", db] + opts + ["--"] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return figures(db)


jobs = [
    ("5 processes x 3 threads (job5.py)", "job5", ["/usr/bin/python3", os.path.join(here, "job5.py"), str(seconds)]),
    ("64 processes x 20 threads (job_tree.py)", "tree",
     ["/usr/bin/python3", os.path.join(here, "job_tree.py"), str(seconds), "64", "20"]),
    ("copy-on-read DataLoader, 3 workers (memjob.py)", "memjob",
     ["/usr/bin/python3", os.path.join(here, "..", "tests", "scenarios", "memjob.py"), "--steps",
      str(int(seconds * 45)), "--truth-dir", os.path.join(tmp, "truth")]),
]
print(f"smaps_rollup's cost, at 0.1 s with --no-trace ({seconds:.0f} s jobs; ticks' own CPU from t = {STEADY_S:.0f} s)")
for title, name, cmd in jobs:
    print(f"  {title}")
    for how in ("--no-pss", "", "--pss"):
        pct, us, job_us, reads = run(name, how, cmd)
        print(f"    {how or 'default':9s} {pct:7.3f}% of a core, {us:7.0f} µs/tick, job source {job_us:7.0f} µs/tick, "
              f"{reads:5d} readings")
