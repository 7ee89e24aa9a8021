"""The hang scenarios' check (hanglib.sh): feedscope's stall against the
job's own account of its hang (hangjob.py's stdout). Prints key=value
lines: got (stall when every check holds, else what was wrong), lag_s (the
stall's finding, in unix time from the run file's start_unix, less the
job's own block start), loop_lag_s (less the loop's last progress as the
job saw it: its last step before the long wait), bound_s, stall_s (the
stall's length by feedscope), block_s (the job's own), gauge (whether the
exporter said feedscope_stalled 1 during the hang), what, why.

    hangcheck.py --db RUN.db --out JOB.out --err FEEDSCOPE.err
                 --scrape SCRAPE --mode fifo|socket|spin --hook on|off --bound S
"""
import argparse
import re
import sqlite3

FUNCS = {"fifo": "hang_fifo", "socket": "hang_socket", "spin": "spin_transform"}
SLACK_S = 3.0  # a tick, the batches the loop still had, NVML's window (hook off)


def job_truth(path):
    t = {}
    for line in open(path):
        m = re.match(r"hangjob: block start=([\d.]+) pid=(\d+) mode=(\w+) target=(\S+)", line)
        if m:
            t["start"], t["pid"], t["target"] = float(m.group(1)), int(m.group(2)), m.group(4)
        m = re.match(r"hangjob: block end=([\d.]+)", line)
        if m:
            t["end"] = float(m.group(1))
        m = re.match(r"hangjob: loop waited ([\d.]+) s from ([\d.]+)", line)
        if m and "loop_from" not in t:
            t["loop_from"] = float(m.group(2))
    return t


def gauge_seen(path, start, end):
    """Whether feedscope_stalled was 1 in a reading between start and end."""
    at, seen = 0.0, False
    try:
        for line in open(path):
            if line.startswith("at "):
                at = float(line.split()[1])
            elif line.startswith("feedscope_stalled") and line.split()[-1] in ("1", "1.0") and start <= at <= end + 2:
                seen = True
    except OSError:
        pass
    return seen


def main():
    ap = argparse.ArgumentParser()
    for k in ("db", "out", "err", "scrape", "mode", "hook"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--bound", type=float, required=True)
    a = ap.parse_args()
    wrong = []
    truth = job_truth(a.out)
    if "start" not in truth or "end" not in truth:
        print("got=no_truth")
        return
    db = sqlite3.connect(a.db)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    t0 = float(meta["start_unix"])
    starts = db.execute("SELECT stall, t, t_start, bound_s FROM stalls WHERE event = 'start' ORDER BY stall").fetchall()
    ends = dict(db.execute("SELECT stall, t FROM stalls WHERE event = 'end'").fetchall())
    lines = [l for l in open(a.err) if l.startswith("feedscope: stall ")]
    if len(starts) != 1:
        wrong.append("%d stalls in the run file, not 1" % len(starts))
    if len(lines) != 1:
        wrong.append("%d stall lines on stderr, not 1" % len(lines))
    if not starts:
        print("got=no_stall")
        print("why=%s" % "; ".join(wrong))
        return
    stall, t_detect, t_start, bound = starts[0]
    detect = t0 + t_detect
    lag = detect - truth["start"]
    print("lag_s=%.2f" % lag)
    if "loop_from" in truth:
        print("loop_lag_s=%.2f" % (detect - truth["loop_from"]))
    print("bound_s=%g" % bound)
    print("block_s=%.2f" % (truth["end"] - truth["start"]))
    if abs(bound - a.bound) > 1e-6:
        wrong.append("bound %g, not --hang-after %g" % (bound, a.bound))
    if not a.bound - 0.5 <= lag <= a.bound + SLACK_S:
        wrong.append("found %.2f s after the block, not within [%g, %g]" % (lag, a.bound - 0.5, a.bound + SLACK_S))
    if detect > truth["end"]:
        wrong.append("found after the hang ended")
    if stall in ends:
        print("stall_s=%.2f" % (ends[stall] - t_start))
        if t0 + ends[stall] < truth["end"] - 0.5:
            wrong.append("ended at %.2f, before the job's hang ended" % (t0 + ends[stall] - truth["end"]))
    else:
        wrong.append("no end row")
    gauge = gauge_seen(a.scrape, detect, truth["end"])
    print("gauge=%s" % ("yes" if gauge else "no"))
    if not gauge:
        wrong.append("the exporter never said feedscope_stalled 1 during the stall")
    row = db.execute("SELECT state, syscall, target, target_kind, peer, wchan, kernel_stack, python, python_stack "
                     "FROM stall_procs WHERE stall = ? AND pid = ?", (stall, truth["pid"])).fetchone()
    if not row:
        print("got=no_worker")
        print("why=the blocked worker %d is not among the stall's processes" % truth["pid"])
        return
    state, sc, target, kind, peer, wchan, kstack, python, pystack = row
    print("what=worker %d %s %s %s %s %s" % (truth["pid"], state, sc, kind, target or "", peer or ""))
    if a.mode == "fifo" and not (sc == "read" and kind == "fifo" and target == truth["target"]):
        wrong.append("not named: read on fifo %s" % truth["target"])
    if a.mode == "socket" and not (sc in ("recvfrom", "recvmsg", "read") and kind == "tcp" and
                                   peer and "-> " + truth["target"] in peer):
        wrong.append("not named: recv on tcp %s" % truth["target"])
    if a.mode == "spin" and not (state == "R" and sc in ("running", "none")):
        wrong.append("not R outside a system call")
    if a.hook == "on":
        if not pystack or FUNCS[a.mode] not in pystack:
            wrong.append("no Python stack with %s (%s)" % (FUNCS[a.mode], python))
    else:
        if pystack or not python or "needs the hook" not in python:
            wrong.append("hook off, yet the stack is not said to need it (%s)" % python)
        if a.mode != "spin" and not (wchan or kstack):
            wrong.append("hook off: no kernel side (wchan, stack)")
    print("got=%s" % ("stall" if not wrong else "stall_wrong"))
    if wrong:
        print("why=%s" % "; ".join(wrong))


if __name__ == "__main__":
    main()
