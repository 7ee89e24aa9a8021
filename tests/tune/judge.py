"""Judge `feedscope tune --json`'s answer for a tune test (tests/tune/lib.sh).

    /usr/bin/python3 judge.py TUNE.json --rc N [--clock] [--want "KEY OP VALUE" WHY]...

Prints the trials as a table on stderr, then `key=value` lines on stdout:
trials, recommend (whether tune recommends a change: true/false), best (the
knobs the best measured setting changes from the baseline's, or
"baseline"), speedup and predicted (e.g. 3.90x; predicted: the best trial's
"predicted_speedup", else the baseline's, or "none"), and status=PASS or
status=FAIL (why; ...).

Always checked: tune exited 0 and printed one JSON document, within its
budget; every trial ran ("status": "ok"), left its run file and says what
its processes' memory was (main_rss_bytes, and with workers
workers_rss_bytes and workers_pss_bytes: numbers > 0; issue 13: "each
trial also records memory overheads"); "best" is one of the trials, with
that trial's knobs, and its "speedup" is the baseline trial's step over
the best trial's (within 2%); "recommend" is there, and true only with a
best trial that is not the baseline and whose speedup is at least 1 +
its "gain_needed", and only with a second pair of runs (two trials that
"confirm": the best's knobs, then the baseline's), the first 3% or more
faster than the second.

--clock: the job's own clock too (train.py --step-ends: each step's end,
on the job's clock, in each trial's log, trial-K.log beside its run file).
For every trial that ran, tune's step_s must be the job's own mean step
over the same steps (`steps` of them from `first_step`) within
CLOCK_TOL, and the best's speedup the job's baseline step over the job's
best step within 2 x CLOCK_TOL. Both clocks read the same steps
microseconds apart (the hook at the next request for a batch, the job
just before it), so they differ by far less than CLOCK_TOL; one step more
or less in a window of 48 moves a mean by 2%, another trial's row by more:
the bound is for correctness, not speed. The table printed then has the
job's step and speedup beside tune's.

Each --want is one more check, on these keys:

  stopped, time_s, budget_s, ntrials      from the document
  recommend                               whether tune recommends a change
  best.trial, best.speedup, best.predicted_speedup, best.knobs.K
  baseline.K, besttrial.K                 a field of trial 0 / the best trial
                                          (step_s, wait_share, verdict, ...)
  tried.K                                 the values of knob K the trials
                                          tried, sorted, comma-separated
  cheapest.K                              of the trials whose step is within
                                          3% of the fastest, the smallest K

OP: == != >= <= > < or `in` (VALUE a comma-separated list). VALUE: a
number, true/false, or a word.
"""
import argparse
import json
import os
import sys

CLOCK_TOL = 0.005  # 0.5%: see --clock above


def load(path):
    """The JSON document tune printed: the whole file, else its last line
    that parses (should anything else have reached stdout)."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text), None
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line), "stdout held more than the JSON document"
            except ValueError:
                continue
    return None, "no JSON document on tune's stdout (%d bytes)" % len(text)


def word(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "%.4g" % v
    return str(v)


def facts(doc):
    """The keys --want may name, flattened from the document."""
    f = {}
    trials = doc.get("trials") or []
    by_n = {t.get("trial"): t for t in trials if isinstance(t, dict)}
    best = doc.get("best") or {}
    for k in ("stopped", "time_s", "budget_s", "steps", "warmup", "recommend"):
        f[k] = doc.get(k)
    f["ntrials"] = len(trials)
    for k, v in best.items():
        if k != "knobs":
            f["best." + k] = v
    for k, v in (best.get("knobs") or {}).items():
        f["best.knobs." + k] = v
    for name, t in (("baseline", by_n.get(0)), ("besttrial", by_n.get(best.get("trial")))):
        for k, v in (t or {}).items():
            if k != "knobs":
                f["%s.%s" % (name, k)] = v
        for k, v in ((t or {}).get("knobs") or {}).items():
            f["%s.knobs.%s" % (name, k)] = v
    knobs = sorted({k for t in trials for k in (t.get("knobs") or {})})
    ok = [t for t in trials if isinstance(t.get("step_s"), (int, float)) and t["step_s"] > 0]
    fastest = min((t["step_s"] for t in ok), default=None)
    for k in knobs:
        vals = sorted({word(t["knobs"][k]) for t in trials if k in (t.get("knobs") or {})},
                      key=lambda x: (len(x), x))
        f["tried." + k] = ",".join(vals)
        near = [t["knobs"][k] for t in ok if k in t.get("knobs", {}) and t["step_s"] <= fastest * 1.03]
        if near:
            f["cheapest." + k] = min(near)
    return f


def compare(have, op, want):
    if op == "in":
        return word(have) in want.split(",")
    if isinstance(have, bool) or want in ("true", "false"):
        if op not in ("==", "!="):
            return False
        return (word(have) == want) == (op == "==")
    try:
        h, w = float(have), float(want)
    except (TypeError, ValueError):
        if op not in ("==", "!="):
            return False
        return (word(have) == want) == (op == "==")
    return {"==": h == w, "!=": h != w, ">=": h >= w, "<=": h <= w, ">": h > w, "<": h < w}.get(op, False)


def built_in(doc, path):
    """The checks every tune answer must pass; a list of failures."""
    bad = []
    trials = doc.get("trials")
    if not isinstance(trials, list) or not trials:
        return ["no trials"]
    base = os.path.dirname(os.path.abspath(path))
    for t in trials:
        if t.get("status") != "ok":
            bad.append("trial %s status %s" % (t.get("trial"), t.get("status")))
        rf = t.get("run_file")
        if not rf or not (os.path.isfile(rf) or os.path.isfile(os.path.join(base, rf))):
            bad.append("trial %s: no run file %s" % (t.get("trial"), rf))
        mem = ["main_rss_bytes"]
        if (t.get("knobs") or {}).get("num_workers"):
            mem += ["workers_rss_bytes", "workers_pss_bytes"]
        missing = [k for k in mem if not (isinstance(t.get(k), (int, float)) and t[k] > 0)]
        if missing:
            bad.append("trial %s: no %s" % (t.get("trial"), ", ".join(missing)))
    if isinstance(doc.get("time_s"), (int, float)) and isinstance(doc.get("budget_s"), (int, float)) \
            and doc["time_s"] > doc["budget_s"]:
        bad.append("time_s %.0f over budget_s %.0f" % (doc["time_s"], doc["budget_s"]))
    best = doc.get("best")
    if not isinstance(best, dict):
        return bad + ["no best"]
    by_n = {t.get("trial"): t for t in trials}
    bt = by_n.get(best.get("trial"))
    if bt is None:
        return bad + ["best names trial %s, which is not in trials" % best.get("trial")]
    if best.get("knobs") != bt.get("knobs"):
        bad.append("best's knobs %s are not trial %s's %s" % (best.get("knobs"), bt["trial"], bt.get("knobs")))
    b0 = by_n.get(0, {}).get("step_s")
    bs = bt.get("step_s")
    sp = best.get("speedup")
    if isinstance(b0, (int, float)) and isinstance(bs, (int, float)) and bs > 0 and isinstance(sp, (int, float)):
        if abs(sp - b0 / bs) > 0.02 * (b0 / bs):
            bad.append("best.speedup %.3g is not baseline step / best step = %.3g" % (sp, b0 / bs))
    else:
        bad.append("no step_s for the baseline or the best trial, or no best.speedup")
    rec, need = doc.get("recommend"), best.get("gain_needed")
    if not isinstance(rec, bool):
        bad.append("no \"recommend\" (true or false)")
    elif rec and (best.get("trial") == 0 or not isinstance(sp, (int, float)) or not isinstance(need, (int, float))
                  or sp < 1 + need):
        bad.append("recommends trial %s at %s, under 1 + its gain_needed %s" % (best.get("trial"), sp, need))
    elif not rec and not doc.get("recommend_text"):
        bad.append("recommends nothing and says no why (recommend_text)")
    if rec is True:
        conf = [t for t in trials if t.get("confirms") and t.get("status") == "ok"]
        a2 = [t for t in conf if t.get("knobs") == by_n.get(0, {}).get("knobs")]
        b2 = [t for t in conf if t.get("knobs") == bt.get("knobs")]
        if len(conf) != 2 or len(a2) != 1 or len(b2) != 1 or b2[0]["trial"] > a2[0]["trial"]:
            bad.append("recommends with no second pair of runs (trials that confirm: the best's setting, "
                       "then the baseline's)")
        elif not (isinstance(a2[0].get("step_s"), (int, float)) and isinstance(b2[0].get("step_s"), (int, float))
                  and a2[0]["step_s"] / b2[0]["step_s"] >= 1.03):
            bad.append("recommends trial %s, whose second run is not 3%% faster than the baseline's"
                       % best.get("trial"))
    return bad


def job_clock(trial, base):
    """The job's own clock for tune's window of a trial: its mean step over
    its last `steps` steps (train.py --step-ends in trial-K.log), the
    steps it made, how its loop ended; None and why if it cannot be read."""
    rf = trial.get("run_file") or ""
    log = rf[:-3] + ".log" if rf.endswith(".db") else ""
    if log and not os.path.isabs(log):
        log = os.path.join(base, log)
    ends, summary = None, {}
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith("step_ends: "):
                    ends = [float(x) for x in line.split()[1:]]
                elif line.startswith("train: "):
                    summary = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
    except OSError as e:
        return None, "cannot read %s: %s" % (log, e)
    m, a = trial.get("steps"), trial.get("first_step")
    if ends is None:
        return None, "%s has no step_ends line (train.py --step-ends)" % log
    if not isinstance(m, int) or not isinstance(a, int) or m < 1 or a < 0 or len(ends) < a + m:
        return None, "%s: %d step ends, tune measured %s steps from step %s" % (log, len(ends), m, a)
    t0 = ends[a - 1] if a > 0 else 0.0  # the job's clock starts at its loop
    return {"step_s": (ends[a + m - 1] - t0) / m, "steps": len(ends), "ended": summary.get("ended", "?")}, None


def clock(doc, path):
    """--clock: tune's figures against the job's own clock; (failures, table)."""
    bad, rows, worst = [], [], 0.0
    base = os.path.dirname(os.path.abspath(path))
    trials = [t for t in doc.get("trials") or [] if isinstance(t.get("step_s"), (int, float))]
    job = {}
    for t in trials:
        c, why = job_clock(t, base)
        if c is None:
            bad.append("trial %s: %s" % (t.get("trial"), why))
            continue
        job[t["trial"]] = c
        worst = max(worst, abs(t["step_s"] / c["step_s"] - 1))
        if abs(t["step_s"] / c["step_s"] - 1) > CLOCK_TOL:
            bad.append("trial %s: tune's step %.5fs, the job's own %.5fs over the same %d steps (more than %.1f%% apart)"
                       % (t["trial"], t["step_s"], c["step_s"], t["steps"], 100 * CLOCK_TOL))
    b = (doc.get("best") or {}).get("trial")
    if 0 in job and b in job and isinstance((doc.get("best") or {}).get("speedup"), (int, float)):
        own, sp = job[0]["step_s"] / job[b]["step_s"], doc["best"]["speedup"]
        if abs(sp / own - 1) > 2 * CLOCK_TOL:
            bad.append("best.speedup %.3fx, the job's own clock %.3fx (trial 0 / trial %s)" % (sp, own, b))
    elif not bad:
        bad.append("no job clock for the baseline or the best trial")
    rows.append("    trial workers persist  tune step  job step  tune speedup  job speedup  job steps  ended")
    for t in trials:
        c = job.get(t["trial"])
        if c is None:
            continue
        k = t.get("knobs") or {}
        rows.append("    %s%-4s %7s %7s %9.2f ms %7.2f ms %12.3fx %11.3fx %10d  %s" % (
            "*" if t["trial"] == b else " ", t["trial"], k.get("num_workers", "-"),
            word(k.get("persistent_workers", "-")), 1e3 * t["step_s"], 1e3 * c["step_s"], t.get("speedup") or 0,
            job[0]["step_s"] / c["step_s"] if 0 in job else float("nan"), c["steps"], c["ended"]))
    rows.append("    tune's step against the job's own: %.1e apart at most (bound %.1e)" % (worst, CLOCK_TOL))
    return bad, "\n".join(rows)


def table(doc):
    trials = doc.get("trials") or []
    knobs = sorted({k for t in trials for k in (t.get("knobs") or {})})
    cols = ["trial", "why"] + knobs + ["step_s", "step_se_rel", "speedup", "samples_per_s", "wait_share", "verdict",
                                        "predicted_speedup", "cpu_cores", "status"]
    rows = [[word(t.get(c, (t.get("knobs") or {}).get(c, "-"))) for c in cols] for t in trials]
    w = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    out = ["    " + " ".join(c.ljust(w[i]) for i, c in enumerate(cols))]
    out += ["    " + " ".join(v.ljust(w[i]) for i, v in enumerate(r)) for r in rows]
    out.append("    stopped: %s (%s) after %ss" % (doc.get("stopped"), doc.get("stop_text"), doc.get("time_s")))
    out.append("    best: %s" % (doc.get("best") or {}).get("python"))
    out.append("    recommend: %s%s" % (word(doc.get("recommend")),
                                        " (%s)" % doc["recommend_text"] if doc.get("recommend_text") else ""))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--rc", type=int, required=True)
    ap.add_argument("--clock", action="store_true", help="check against the job's own clock (train.py --step-ends)")
    ap.add_argument("--want", nargs=2, action="append", default=[], metavar=("CHECK", "WHY"))
    a = ap.parse_args()
    bad = []
    if a.rc != 0:
        bad.append("feedscope tune exited %d" % a.rc)
    doc, problem = load(a.json)
    if problem:
        bad.append(problem)
    if doc is None:
        print("trials=0")
        print("status=FAIL (%s)" % "; ".join(bad))
        return
    print(table(doc), file=sys.stderr)
    bad += built_in(doc, a.json)
    if a.clock:
        cbad, rows = clock(doc, a.json)
        print("    tune's figures beside the job's own clock (train.py --step-ends, the same steps):\n" + rows,
              file=sys.stderr)
        bad += cbad
    f = facts(doc)
    for check, why in a.want:
        key, op, want = check.split(None, 2)
        have = f.get(key)
        if have is None or not compare(have, op, want):
            bad.append("%s is %s, wanted %s %s: %s" % (key, word(have) if have is not None else "absent",
                                                      op, want, why))
    base = {k[len("baseline.knobs."):]: v for k, v in f.items() if k.startswith("baseline.knobs.")}
    best = (doc.get("best") or {}).get("knobs") or {}
    changed = ",".join("%s=%s" % (k, word(v)) for k, v in sorted(best.items()) if base.get(k) != v)
    pred = f.get("best.predicted_speedup", f.get("baseline.predicted_speedup"))
    print("trials=%d" % f["ntrials"])
    print("recommend=%s" % word(f.get("recommend")))
    print("best=%s" % (changed or ("baseline" if best else "none")))
    print("speedup=%s" % (("%.2fx" % f["best.speedup"]) if isinstance(f.get("best.speedup"), (int, float)) else "?"))
    print("predicted=%s" % (("%.2fx" % pred) if isinstance(pred, (int, float)) else "none"))
    print("status=%s" % ("PASS" if not bad else "FAIL (%s)" % "; ".join(bad)))


if __name__ == "__main__":
    main()
