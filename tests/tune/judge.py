"""Judge `feedscope tune --json`'s answer for a tune test (tests/tune/lib.sh).

    /usr/bin/python3 judge.py TUNE.json --rc N [--want "KEY OP VALUE" WHY]...

Prints the trials as a table on stderr, then `key=value` lines on stdout:
trials, best (the knobs the best setting changes from the baseline's, or
"baseline"), speedup and predicted (e.g. 3.90x; predicted: the best trial's
"predicted_speedup", else the baseline's, or "none"), and status=PASS or
status=FAIL (why; ...).

Always checked: tune exited 0 and printed one JSON document, within its
budget; every trial ran ("status": "ok"), left its run file and says what
its processes' memory was (main_rss_bytes, and with workers
workers_rss_bytes and workers_pss_bytes: numbers > 0; issue 13: "each
trial also records memory overheads"); "best" is one of the trials, with
that trial's knobs, and its "speedup" is the baseline trial's step over
the best trial's (within 2%). Each --want is one more check, on these
keys:

  stopped, time_s, budget_s, ntrials      from the document
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
    for k in ("stopped", "time_s", "budget_s", "steps", "warmup"):
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
    return bad


def table(doc):
    trials = doc.get("trials") or []
    knobs = sorted({k for t in trials for k in (t.get("knobs") or {})})
    cols = ["trial", "why"] + knobs + ["step_s", "samples_per_s", "wait_share", "verdict", "predicted_speedup",
                                        "cpu_cores", "status"]
    rows = [[word(t.get(c, (t.get("knobs") or {}).get(c, "-"))) for c in cols] for t in trials]
    w = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    out = ["    " + " ".join(c.ljust(w[i]) for i, c in enumerate(cols))]
    out += ["    " + " ".join(v.ljust(w[i]) for i, v in enumerate(r)) for r in rows]
    out.append("    stopped: %s (%s) after %ss" % (doc.get("stopped"), doc.get("stop_text"), doc.get("time_s")))
    out.append("    best: %s" % (doc.get("best") or {}).get("python"))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--rc", type=int, required=True)
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
    print("best=%s" % (changed or ("baseline" if best else "none")))
    print("speedup=%s" % (("%.2fx" % f["best.speedup"]) if isinstance(f.get("best.speedup"), (int, float)) else "?"))
    print("predicted=%s" % (("%.2fx" % pred) if isinstance(pred, (int, float)) else "none"))
    print("status=%s" % ("PASS" if not bad else "FAIL (%s)" % "; ".join(bad)))


if __name__ == "__main__":
    main()
