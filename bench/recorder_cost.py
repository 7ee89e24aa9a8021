"""The recorder's own CPU cost (make bench): a 20 s job with a 5-process tree
(bench/job5.py) recorded by `feedscope run` at 0.1 s, 0.02 s and 1 s; during
the 0.1 s run, `pidstat -d -u -t 1` and `dstat -cdngmyl --io 1` sample the same
machine side by side. Prints % of one core and µs per sample for each.
feedscope's figure is its steady-state CPU time (CLOCK_PROCESS_CPUTIME_ID,
meta recorder_cpu_s minus recorder_cpu_start_s) per tick, start-up shown
apart; the others' from wait4() on them (their start-up included).
The job source's BPF programs run in the kernel, in the job's context
switches: their time is the job's, not in feedscope's CPU time. Every run
here is recorded with --bpf-stats, which counts it (the kernel's
statistics on for that run only, and what the counting adds to each
program run taken off: meta job.bpf_cpu_s): printed beside the recorder's
own, and the two added. A benchmark: it prints, it asserts nothing."""
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


STEADY_S = 3.0  # the job's processes and threads have all started by then


def steady(db):
    """% of a core and µs a tick from the ticks' own CPU (ticks.cpu_us: the
    sources and the previous tick's commit, not the poll between ticks) from
    STEADY_S on: what a long run costs once the job has started (the first
    children walk of its threads, 10 s in, included)."""
    n, us, span = sqlite3.connect(db).execute(
        "SELECT count(*), total(cpu_us), max(t) - min(t) + avg(dt_s) FROM ticks WHERE t >= ?",
        (STEADY_S,)).fetchone()
    return (100 * us / 1e6 / span, us / n) if n and span else (float("nan"), float("nan"))


def meta(db, key):
    row = sqlite3.connect(db).execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def record(interval, side_tools):
    db = os.path.join(tmp, f"run-{interval}.db")
    fs = subprocess.Popen([feedscope, "run", "-q", "-f", "--bpf-stats", "-o", db, "-i", str(interval), "--"] + job)
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


def kernel_pct(db, dur):
    """The BPF programs' time in the kernel, % of a core over the run (NaN
    where not counted: --states proc, no BPF)."""
    v = meta(db, "job.bpf_cpu_s")
    return 100 * float(v) / dur if v is not None else float("nan")


def total_line(user_pct, db, dur, label):
    k = kernel_pct(db, dur)
    if k == k:
        return (f"{label}: recorder {user_pct:.3f}% + BPF in the kernel {k:.3f}% = {user_pct + k:.3f}% of a core")
    return f"{label}: recorder {user_pct:.3f}% of a core (no BPF programs: {meta(db, 'job.states')})"


only = sys.argv[3] if len(sys.argv) > 3 else ""  # "--tree-only" / "--no-tree": one part
print(f"recorder cost: {seconds:.0f} s job, 5-process tree (bench/job5.py), machine with "
      f"{os.cpu_count()} CPUs")
print(f"{'recorder':34s} {'interval':>8s} {'samples':>8s} {'% of a core':>12s} {'µs/sample':>10s}")
for interval, side in ((0.1, True), (0.02, False), (1.0, False)) if only != "--tree-only" else ():
    db, ticks, cpu, cpu_total, dur, per_src, procs, others = record(interval, side)
    print(f"{'feedscope run':34s} {interval:8.2f} {ticks:8d} {100 * cpu / dur:11.3f}% "
          f"{1e6 * cpu / ticks:10.0f}   (job seen: {procs[0]} processes, {procs[1]} threads)")
    st_pct, st_us = steady(db)
    print(f"{'':34s} from t = {STEADY_S:.0f} s, the ticks' own CPU: {st_pct:.3f}% of a core ({st_us:.0f} µs/tick)")
    print(f"{'':34s} per source, CPU µs/tick: " + ", ".join(f"{k.replace('_us', '')} {v}" for k, v in per_src))
    print(f"{'':34s} start-up (run file, sources, t=0 sample): {1e3 * (cpu_total - cpu):.1f} ms CPU once")
    print(f"{'':34s} " + total_line(st_pct, db, dur, "total, from 3 s"))
    for name, n, c in others:
        print(f"{name:34s} {1.0:8.2f} {n:8d} {100 * c / dur:11.3f}% {1e6 * c / n:10.0f}")


# ---- the job source on a bigger tree, by way of reading thread states ----
# 5 processes x 3 threads (job5.py) and 64 x 20 (job_tree.py: an 8-GPU node,
# 8 workers per rank), recorded at 0.1 s with --no-trace (the job source's own
# cost), beside `pidstat -d -u -t 1` on the same job; with each --states path
# the build has. The thread-state shares are the proc rows' sums over the run
# (sum(running) / sum(running + blocked_io + sleeping + other), ...), as the
# analysis reads them (threads_running_pct); each path records its own run of
# the job. The BPF programs' own cost is in the job's context switches, not
# in feedscope's CPU time: --bpf-stats counts it (meta job.bpf_cpu_s).
def has_states(fs_bin):
    h = subprocess.run([fs_bin, "run", "--help"], capture_output=True, text=True)
    return "--states" in h.stdout + h.stderr


def record_tree(name, cmd, states):
    db = os.path.join(tmp, f"tree-{name}-{states}.db")
    argv = [feedscope, "run", "-q", "-f", "--no-trace", "--bpf-stats", "-o", db, "-i", "0.1"]
    if states:
        argv += ["--states", states]
    fs = subprocess.Popen(argv + ["--"] + cmd)
    time.sleep(0.5)
    n = str(int(seconds) - 2)
    pid = subprocess.Popen(["pidstat", "-d", "-u", "-t", "1", n], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    pid_cpu = cpu_of(pid)
    fs.wait()
    c = sqlite3.connect(db)
    ticks = int(meta(db, "recorder_ticks")) - 1
    cpu = float(meta(db, "recorder_cpu_s")) - float(meta(db, "recorder_cpu_start_s"))
    dur = float(meta(db, "duration_s"))
    job_us = meta(db, "recorder.job_us")
    procs = c.execute("SELECT max(n), max(th) FROM (SELECT count(*) n, sum(threads) th "
                      "FROM proc GROUP BY t)").fetchone()
    shares = c.execute("SELECT 100.0*sum(running)/sum(tot), 100.0*sum(blocked_io)/sum(tot), "
                       "100.0*sum(sleeping)/sum(tot), 100.0*sum(other)/sum(tot) FROM "
                       "(SELECT *, running + blocked_io + sleeping + coalesce(other, 0) AS tot FROM proc)"
                       ).fetchone()
    prog = meta(db, "job.bpf_prog")
    return ((meta(db, "job.states") or "proc"), ticks, cpu, dur, job_us, procs, shares, int(n), pid_cpu, prog,
            steady(db), meta(db, "job.io"), db)


if only != "--no-tree":
    jobs = (("5 processes x 3 threads (job5.py)", "job5",
             ["/usr/bin/python3", os.path.join(here, "job5.py"), str(seconds)]),
            ("64 processes x 20 threads (job_tree.py)", "tree",
             ["/usr/bin/python3", os.path.join(here, "job_tree.py"), str(seconds), "64", "20"]))
    paths = ("proc", "bpf") if has_states(feedscope) else ("",)
    print()
    print(f"job source by states path, at 0.1 s with --no-trace ({seconds:.0f} s jobs), "
          f"beside pidstat -d -u -t 1 on the same job")
    for title, name, cmd in jobs:
        print(f"  {title}")
        for states in paths:
            got, ticks, cpu, dur, job_us, procs, sh, n, pid_cpu, prog, st, io, db = record_tree(name, cmd, states)
            print(f"    feedscope --states {states or 'proc':4s} {100 * cpu / dur:7.3f}% of a core "
                  f"({1e6 * cpu / ticks:.0f} µs/tick, job source {job_us} µs/tick; "
                  f"seen {procs[0]} processes, {procs[1]} threads; job.states: {got}; job.io: {io})")
            print(f"      from t = {STEADY_S:.0f} s, the ticks' own CPU: {st[0]:.3f}% of a core ({st[1]:.0f} µs/tick)")
            print(f"      thread states: running {sh[0]:.2f}% · blocked_io {sh[1]:.2f}% · "
                  f"sleeping {sh[2]:.2f}% · other {sh[3]:.2f}%")
            if prog:
                print(f"      BPF programs, in the job's context switches: {prog}")
            print("      " + total_line(st[0], db, dur, "total, from 3 s (BPF: the whole run)"))
            print(f"    pidstat -d -u -t 1 {'':6s} {100 * pid_cpu / dur:7.3f}% of a core "
                  f"({1e6 * pid_cpu / n:.0f} µs/sample)")


# ---- the same run of each job seen by both paths at once ----
# `run --states bpf` records the job while `attach --states proc` records the
# same processes: the thread-state shares of one run, side by side.
def shares_of(db):
    return sqlite3.connect(db).execute(
        "SELECT 100.0*sum(running)/sum(tot), 100.0*sum(blocked_io)/sum(tot), 100.0*sum(sleeping)/sum(tot), "
        "100.0*sum(other)/sum(tot), count(DISTINCT pid) FROM "
        "(SELECT *, running + blocked_io + sleeping + coalesce(other, 0) AS tot FROM proc WHERE t > 0)").fetchone()


def job_pid(fs_pid):
    for _ in range(50):
        try:
            with open(f"/proc/{fs_pid}/task/{fs_pid}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.05)
    return None


def same_run(name, cmd):
    a = os.path.join(tmp, f"same-{name}-bpf.db")
    b = os.path.join(tmp, f"same-{name}-proc.db")
    fs = subprocess.Popen([feedscope, "run", "-q", "-f", "--no-trace", "--states", "bpf", "-o", a,
                           "-i", "0.1", "--"] + cmd)
    pid = job_pid(fs.pid)
    at = subprocess.Popen([feedscope, "attach", "-q", "-f", "--states", "proc", "-o", b, "-i", "0.1",
                           str(pid)]) if pid else None
    fs.wait()
    if at:
        at.wait()
    return (meta(a, "job.states"), shares_of(a)), (meta(b, "job.states"), shares_of(b)) if at else None


if only != "--no-tree" and has_states(feedscope):
    print()
    print("thread states of one run seen by both paths at once (run --states bpf, attach --states proc)")
    for title, name, cmd in jobs:
        got = same_run(name, cmd)
        print(f"  {title}")
        for label, res in zip(("run --states bpf", "attach --states proc"), got):
            if not res:
                print(f"    {label:22s} (did not run)")
                continue
            st, sh = res
            print(f"    {label:22s} running {sh[0]:.2f}% · blocked_io {sh[1]:.2f}% · sleeping {sh[2]:.2f}% · "
                  f"other {sh[3]:.2f}% ({sh[4]} processes; job.states: {st})")
