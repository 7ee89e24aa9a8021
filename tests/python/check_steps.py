"""Check what a torch_job.py run recorded against what the job did.

    check_steps.py (--db RUN.db | --records FILE) [--loader NAME]
        --workers W [--context fork|spawn] [--persistent] --batch B
        --item-ms D --compute-ms C --steps N --epochs E [--break-at K]
        [--no-share] [--no-meta] [--truth FILE]

RUN.db is a `feedscope run --pytorch` run file (tables steps, phases, meta);
FILE holds the raw records fsrecv.py received. Checked exactly: every epoch
0..E-1 has steps 0..N-1 (0..K with --break-at), once each, all from the job's
main process, in time order (a step's batch is handed over after the previous
step's compute ended); one `checkpoint` phase per epoch, after its last step;
the loader's configuration in meta. Checked within 3 points: the share of
time spent waiting for data, against the job's own clock (with --truth: the
"truth EPOCH STEP WAIT COMPUTE" lines torch_job.py writes to stderr, over
the same steps), and within 10 points against the analytic value below (a
loaded machine oversleeps: the model only says the job ran as designed;
without --truth, the analytic value within 3 points):

- W = 0: the main process loads each batch itself: wait = B*D per step, so
  share = B*D / (B*D + C), over every step.
- W > 0 and W*C < B*D (workers slower than the loop): worker w makes batches
  w, w+W, ... one every P = B*D; the loop takes the W batches of a round in
  W*C, then waits for the next round, so in steady state each round is
  P long, W*C of it compute: share = 1 - W*C/P. The first round of each
  epoch also waits for the workers to start (seconds under spawn): steps
  0..W-1 are left out of the measured share, and the model covers the rest.
"""
import argparse
import sqlite3
import sys

TOLERANCE = 0.03
MODEL_TOLERANCE = 0.10


class Step:
    __slots__ = ("pid", "loader", "epoch", "step", "t", "wait", "compute")

    def __init__(self, pid, loader, epoch, step, t, wait, compute):
        self.pid, self.loader, self.epoch, self.step = pid, loader, epoch, step
        self.t, self.wait, self.compute = t, wait, compute


def load_db(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    steps = [Step(*row) for row in db.execute(
        "SELECT pid, loader, epoch, step, t, wait_s, compute_s FROM steps ORDER BY t")]
    phases = list(db.execute("SELECT pid, name, t_start, t_end FROM phases ORDER BY t_start"))
    meta = dict(db.execute("SELECT key, value FROM meta"))
    db.close()
    return steps, phases, meta, meta.get("pid")


def load_records(path):
    steps, phases, meta = [], [], {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split(" ")
            if p[0] in ("S1", "S2"):   # S2: a step whose device figure follows (D1)
                steps.append(Step(p[1], p[2], int(p[3]), int(p[4]), int(p[5]) / 1e9,
                                  int(p[6]) / 1e9, int(p[7]) / 1e9))
            elif p[0] == "P1":
                phases.append((p[1], p[2], int(p[3]) / 1e9, int(p[4]) / 1e9))
            elif p[0] == "M1":
                meta[p[2]] = " ".join(p[3:])
    return steps, phases, meta, None


def analytic(a):
    """(share, first step counted) for the job's parameters."""
    per_batch = a.batch * a.item_ms
    if a.workers == 0:
        return per_batch / (per_batch + a.compute_ms), 0
    if a.workers * a.compute_ms >= per_batch:
        sys.exit("check_steps: the model needs workers slower than the loop (W*C < B*D)")
    return 1.0 - a.workers * a.compute_ms / per_batch, a.workers


def main():
    ap = argparse.ArgumentParser()
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--db")
    src.add_argument("--records")
    ap.add_argument("--loader", default="SleepyDataset")
    ap.add_argument("--workers", type=int, required=True)
    ap.add_argument("--context", default=None)
    ap.add_argument("--persistent", action="store_true")
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--item-ms", type=float, required=True)
    ap.add_argument("--compute-ms", type=float, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--epochs", type=int, required=True)
    ap.add_argument("--break-at", type=int, default=-1)
    ap.add_argument("--no-share", action="store_true")
    ap.add_argument("--no-meta", action="store_true")
    ap.add_argument("--truth", default=None)
    a = ap.parse_args()

    steps, phases, meta, job_pid = load_db(a.db) if a.db else load_records(a.records)
    errors = []
    mine = [s for s in steps if s.loader == a.loader]
    others = sorted({s.loader for s in steps} - {a.loader})
    if others:
        errors.append("steps from unexpected loaders: %s" % others)

    per_epoch = a.steps if a.break_at < 0 else min(a.steps, a.break_at + 1)
    want = [(e, k) for e in range(a.epochs) for k in range(per_epoch)]
    got = sorted((s.epoch, s.step) for s in mine)
    if got != want:
        errors.append("steps (epoch, step) recorded %d, expected %d: first difference %s"
                      % (len(got), len(want),
                         next(((g, w) for g, w in zip(got + [None] * len(want), want) if g != w), None)))

    pids = {str(s.pid) for s in steps}
    if len(pids) > 1 or (job_pid is not None and pids and pids != {str(job_pid)}):
        errors.append("steps from pids %s; the job is %s" % (sorted(pids), job_pid))

    by_epoch = {}
    for s in sorted(mine, key=lambda s: (s.epoch, s.step)):
        by_epoch.setdefault(s.epoch, []).append(s)
    for epoch, ss in by_epoch.items():
        for prev, cur in zip(ss, ss[1:]):
            if cur.t - cur.wait < prev.t + prev.compute - 1e-5 or cur.wait < 0 or cur.compute < 0:
                errors.append("epoch %d step %d overlaps step %d" % (epoch, cur.step, prev.step))
                break

    ckpt = [p for p in phases if p[1] == "checkpoint"]
    if len(ckpt) != a.epochs:
        errors.append("%d checkpoint phases, expected %d (one torch.save per epoch)"
                      % (len(ckpt), a.epochs))
    for e, (pid, _, t0, t1) in enumerate(ckpt):
        if t1 < t0:
            errors.append("checkpoint %d ends before it starts" % e)
        last = by_epoch.get(e, [None])[-1]
        if last is not None and t0 < last.t:
            errors.append("checkpoint %d starts before epoch %d's last step" % (e, e))
        if job_pid is not None and str(pid) != str(job_pid):
            errors.append("checkpoint %d from pid %s, the job is %s" % (e, pid, job_pid))

    if not a.no_meta:
        expect = {
            "num_workers": str(a.workers),
            "batch_size": str(a.batch),
            "prefetch_factor": "2",
            "pin_memory": "false",
            "persistent_workers": "true" if a.persistent else "false",
            "multiprocessing_context": a.context or "default",
            "drop_last": "false",
            "timeout": "0",
            "shuffle": "true",
            "dataset": "__main__.SleepyDataset",
            "dataset_kind": "map",
            "sampler": "torch.utils.data.sampler.RandomSampler",
        }
        for knob, value in expect.items():
            key = "loader.%s.%s" % (a.loader, knob)
            if meta.get(key) != value:
                errors.append("meta %s = %r, expected %r" % (key, meta.get(key), value))
        if not meta.get("hook.pytorch"):
            errors.append("meta hook.pytorch missing")

    share_note = ""
    if not a.no_share:
        model, first = analytic(a)
        counted = [s for s in mine if s.step >= first]
        wait = sum(s.wait for s in counted)
        total = wait + sum(s.compute for s in counted)
        measured = wait / total if total > 0 else float("nan")
        share_note = ("wait share %.3f measured vs %.3f analytic (steps %d..%d of each epoch)"
                      % (measured, model, first, per_epoch - 1))
        if a.truth:
            own = {}
            with open(a.truth) as f:
                for line in f:
                    p = line.split()
                    if len(p) == 5 and p[0] == "truth":
                        own[(int(p[1]), int(p[2]))] = (float(p[3]), float(p[4]))
            keys = [(s.epoch, s.step) for s in counted]
            missing = [k for k in keys if k not in own]
            if missing:
                errors.append("the job's own clock has no step %s" % (missing[:3],))
            else:
                w = sum(own[k][0] for k in keys)
                tot = w + sum(own[k][1] for k in keys)
                truth = w / tot if tot > 0 else float("nan")
                share_note += ", %.3f by the job's own clock" % truth
                if not abs(measured - truth) <= TOLERANCE:
                    errors.append(share_note + ": off the job's clock by more than %d points"
                                  % round(TOLERANCE * 100))
        if not abs(measured - model) <= (MODEL_TOLERANCE if a.truth else TOLERANCE):
            errors.append(share_note + ": off the model by more than %d points"
                          % round((MODEL_TOLERANCE if a.truth else TOLERANCE) * 100))

    label = "W=%d%s%s" % (a.workers, " " + a.context if a.context else "",
                          " persistent" if a.persistent else "")
    if errors:
        for e in errors:
            print("check_steps %s: %s" % (label, e))
        return 1
    print("%s: %d epochs x %d steps, %d checkpoints%s" % (
        label, a.epochs, per_epoch, len(ckpt), "; " + share_note if share_note else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
