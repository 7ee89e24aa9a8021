"""The physical evidence in a run file, as `key=value` lines (for lib.sh).

    /usr/bin/python3 evidence.py RUN.db [--device loopN] [--job-out FILE]
        [--report REPORT.json]

Figures are averaged over the job's working window: from the start of the
first step to the end of the last (steps table); without steps (hook off),
from the first to the last tick at which a DataLoader worker process was
seen; without either, the whole run. The interpreter's start-up and exit are
left out. A figure
the run file cannot give is printed as "nan".

  wait_share        steps: sum(wait) / sum(wait + compute)   (hook on)
  steps, step_mean_s, compute_mean_s, first_wait_frac (share of the wait
                    spent in each epoch's first step), epochs
  job_wait_share    the job's own summary line (train.py), --job-out
                    (with several ranks: rank 0's line)
  job_b_busy, job_b_input, job_b_ckpt, job_b_coll, job_b_val, job_b_other
                    the job's own buckets (shares of its loop time; rank 0)
  job_accel_busy    the job's accelerator busy share: b_busy plus its
                    validation passes' compute (val_busy_s / total_s)
  job_dev_*, job_ideal_speedup, job_step_s, job_host_step_s,
  job_launch_s, job_launch_blocks, job_sync_s, job_syncs, job_ckpt_sync_s
                    the emulated accelerator's own account (train.py's
                    summary, rank 0; its docstring defines them), e.g.
                    job_dev_idle_in_wait_share: the device idle inside the
                    host's next() waits, over the device's span
  dev_events_n, dev_events_idle_s, dev_events_frac   steps with the
                    device's own idle inside their wait (steps.device_idle_s
                    not NULL: recorded from a device timeline's events),
                    the sum of that idle, and their share of the steps
  steps_wait_s      sum(steps.wait_s): the host's time inside next()
  timeline          the device timeline the hook used (meta
                    hook.device_timeline.PID, spaces as "_"; "none")
  job_ranks, job_wait_share_max, job_slow_rank, job_b_input_slow,
  job_coll_share_r0
                    several ranks: how many, the largest wait share, its
                    rank and its input bucket, rank 0's share of time inside the collective
  gpu_util          mean NVML utilization, %
  disk_*            the dataset's device (--device): read MB/s, util %,
                    read await ms, request KiB, reads/s, queue depth
  wk_D, wk_R        DataLoader workers: share of process samples with a
                    thread in D (blocked in I/O) / in R (running or runnable)
                    (a worker has ~3 threads; one does the work)
  wk_cpu            mean CPU % of one core per worker process
  main_D, main_R    the same for the main process
  cpu_busy          machine CPU busy % (100 - idle - iowait)
  cg_throttled      mean % of time the job's cpu cgroup was throttled
  cg_quota          its CPU quota, cores
  mem_limit_mib, mem_usage_max_mib   the job's memory cgroup
  psi_mem, psi_io, psi_cpu           "some" %, mean
  majflt            job major faults per second, mean over the window
  rchar_mib, storage_read_mib        job bytes read through syscalls / from
                    storage over the window (MiB)
  ckpt_n, ckpt_s, ckpt_share         checkpoint phases: count, seconds, share
                    of the run's step time; gpu_util_ckpt: GPU util inside them
  verdict, input_bound, confidence, predicted_speedup   from --report
  stage_*           the loaders' stages (issue 39; train.py --stages,
                    --collate-ms): the job's own `job_stages:` line against
                    the report's metrics.loader_stages, each stage's own
                    (exclusive) time as a share of the workers' time:
                    stage_slow (the job's largest), job_stage_share and
                    fs_stage_share (its share by each), fs_stage_top (the
                    report's largest), stage_err_pts (the largest
                    difference over the stages, points), stage_named (1
                    when the verdict's evidence names stage_slow),
                    fs_stages_timed (1/0), job_stage_shares and
                    fs_stage_shares (name:share,...)
  sat_named, sat_named_share, sat_runner, sat_runner_up_share   the limit of
                    the storage the report names and its runner-up, with
                    their shares of the wait (verdict.saturation)
  fs_idle, fs_ckpt_share   the report's accelerator idle fraction, and its
                    host-I/O bucket (accounting; older reports: checkpoint
                    seconds over wait + compute + epoch_end)
  fs_coll_r0        the report's rank 0 share in collectives (accounting)

Per rank (several ranks; --job-out may be given once per node, each file's
summary lines are that node's ranks, numbered by their world rank):
  rank_list         the ranks the job printed a line for, "0,1,2,3"
  rN_job_input, rN_job_coll    rank N's own input-wait and collective shares
                    of its loop (train.py's b_input, coll_s / total_s)
  rN_fs_input, rN_fs_coll      the report's input_wait and other_ranks
                    buckets for the process it says is rank N ("ranks"[] of
                    the report if it has one, else accounting.processes[])
  rN_fs_node        the node (host) the report puts rank N on ("ranks"[]);
                    --rank-report NODE=REPORT.json (repeatable) adds the
                    processes of one node's own report (a run file per
                    node, reported one by one) for ranks --report lacks
  fs_trainer_rank   the rank the verdict speaks for (accounting.rank)
  fs_straggler_rank, fs_straggler_node, fs_straggler_cause   the report's
                    "straggler" object ("absent" when it has none)
"""
import argparse
import json
import math
import re
import sqlite3

NAN = float("nan")


def one(db, sql, args=()):
    try:
        row = db.execute(sql, args).fetchone()
    except sqlite3.Error:
        return NAN
    if not row or row[0] is None:
        return NAN
    return row[0]


def job_ranks(path):
    """The job's summary lines (train.py), {rank: {key: float}}; {} if none."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if not line.startswith("train: "):
                    continue
                kv = dict(t.split("=", 1) for t in line.split()[1:] if "=" in t)
                d = {}
                for k, v in kv.items():
                    try:
                        d[k] = float(v)
                    except ValueError:
                        pass
                out[int(d.get("rank", 0))] = d
    except OSError:
        pass
    return out


def num(x):
    """x as a float, NaN when it is missing or not a number."""
    try:
        return float(x) if x is not None else NAN
    except (TypeError, ValueError):
        return NAN


def report_ranks(rep):
    """{rank: (input_wait, other_ranks, node)} from a report's JSON: its
    "ranks" array when it has one (several nodes are told apart there),
    else accounting.processes[]. Entries without a rank are left out."""
    out = {}
    rows = rep.get("ranks")
    if isinstance(rows, list) and rows:
        for r in rows:
            if not isinstance(r, dict) or not isinstance(r.get("rank"), int):
                continue
            b = r.get("buckets") if isinstance(r.get("buckets"), dict) else r
            out[r["rank"]] = (num(b.get("input_wait")), num(b.get("other_ranks")), r.get("node"))
        return out
    for p in (rep.get("accounting") or {}).get("processes") or []:
        if isinstance(p, dict) and isinstance(p.get("rank"), int):
            b = p.get("buckets") or {}
            out[p["rank"]] = (num(b.get("input_wait")), num(b.get("other_ranks")), None)
    return out


def load_json(path):
    """A report's JSON document, {} if it cannot be read."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def per_rank(ev, ranks, report, node_reports=()):
    """The per-rank keys (docstring): each rank's own shares beside the
    report's, and whom the report names as the straggler."""
    ev["rank_list"] = ",".join(str(r) for r in sorted(ranks)) if ranks else "none"
    for r, d in ranks.items():
        total = d.get("total_s", 0)
        ev["r%d_job_input" % r] = d.get("b_input", NAN)
        ev["r%d_job_coll" % r] = d["coll_s"] / total if total and "coll_s" in d else NAN
    ev["fs_trainer_rank"], ev["fs_straggler_rank"] = NAN, NAN
    ev["fs_straggler_node"] = ev["fs_straggler_cause"] = "absent"
    rep = load_json(report) if report else {}
    fs = report_ranks(rep)
    for spec in node_reports:
        node, _, path = spec.partition("=")
        for r, (fin, fcoll, _) in report_ranks(load_json(path)).items():
            if r not in fs:
                fs[r] = (fin, fcoll, node)
            elif fs[r][2] is None:  # --report had the rank, without its node
                fs[r] = fs[r][:2] + (node,)
    for r in set(ranks) | set(fs):
        fin, fcoll, node = fs.get(r, (NAN, NAN, None))
        ev["r%d_fs_input" % r], ev["r%d_fs_coll" % r] = fin, fcoll
        ev["r%d_fs_node" % r] = str(node) if node is not None else "none"
        ev.setdefault("r%d_job_input" % r, NAN)
        ev.setdefault("r%d_job_coll" % r, NAN)
    tr = (rep.get("accounting") or {}).get("rank")
    ev["fs_trainer_rank"] = tr if isinstance(tr, int) else NAN
    st = rep.get("straggler")
    if isinstance(st, dict):
        ev["fs_straggler_rank"] = st["rank"] if isinstance(st.get("rank"), int) else NAN
        ev["fs_straggler_node"] = str(st.get("node")) if st.get("node") is not None else "none"
        ev["fs_straggler_cause"] = str(st.get("cause")) if st.get("cause") is not None else "none"


def job_epochs(paths):
    """({epoch: (start, end, wait, compute)}, t0_unix) from train.py's
    `epochs:` line (the first job's: rank 0 of a several-rank job prints
    first or alone); seconds after the job's loop started, at t0_unix on
    the wall clock."""
    for path in paths:
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("epochs: "):
                        out, t0 = {}, NAN
                        for item in line.split()[1:]:
                            if item.startswith("t0_unix="):
                                t0 = float(item.split("=", 1)[1])
                                continue
                            e, *x = item.split(":")
                            out[int(e)] = tuple(float(v) for v in x)
                        return out, t0
        except (OSError, ValueError):
            pass
    return {}, NAN


def phase_truth(ep, p, shift):
    """The job's own wait share over a phase: its epochs' where the report
    says which, else the epochs' waits weighed by their overlap with the
    phase's seconds (run seconds - shift = the job's)."""
    e = p.get("epochs")
    if e:
        rows = [ep[k] for k in range(e[0], e[1] + 1) if k in ep]
        w = sum(r[2] for r in rows)
        t = sum(r[2] + r[3] for r in rows)
        return w / t if t > 0 else NAN
    if math.isnan(shift):
        return NAN
    a, b = p["start_s"] - shift, p["end_s"] - shift
    w = t = 0.0
    for (s0, s1, wait, comp) in ep.values():
        ov = max(0.0, min(b, s1) - max(a, s0))
        if ov > 0 and s1 > s0:
            w += wait * ov / (s1 - s0)
            t += (wait + comp) * ov / (s1 - s0)
    return w / t if t > 0 else NAN


def phases(ev, job_out, report, db):
    """The report's phases beside the job's own per-epoch waits: phases
    (their verdicts, ">"-joined), phase_epochs, phase_fs (each one's
    input-bound share), phase_truth (the job's wait share over the same
    epochs, or seconds), phase_err_pts (the largest difference, points), and
    job_epoch_waits (each epoch's own wait and length)."""
    ep, t0_unix = job_epochs(job_out)
    ev["job_epoch_waits"] = ",".join("%d:%.2f/%.2f" % (e, w, b - a)
                                     for e, (a, b, w, c) in sorted(ep.items())) or "none"
    try:
        start = float(one(db, "SELECT value FROM meta WHERE key = 'start_unix'"))
    except (TypeError, ValueError):
        start = NAN
    shift = t0_unix - start  # the job's loop start in run seconds
    try:
        with open(report) as f:
            ph = json.load(f)["verdict"].get("phases") or []
    except (OSError, ValueError, KeyError, TypeError):
        ph = []
    ev["phases"] = ">".join(p.get("primary", "?") for p in ph) or "none"
    ev["phase_count"] = len(ph)
    spans, fs, truth, err = [], [], [], 0.0
    for p in ph:
        e = p.get("epochs")
        spans.append("%d-%d" % (e[0], e[1]) if e else "%.0f-%.0fs" % (p["start_s"], p["end_s"]))
        ib = p.get("input_bound_fraction")
        fs.append("%.2f" % ib if ib is not None else "nan")
        tr = phase_truth(ep, p, shift)
        truth.append("%.2f" % tr if not math.isnan(tr) else "nan")
        if ib is not None and not math.isnan(tr):
            err = max(err, abs(ib - tr) * 100)
    ev["phase_epochs"] = ",".join(spans) or "none"
    ev["phase_fs"] = ",".join(fs) or "none"
    ev["phase_truth"] = ",".join(truth) or "none"
    ev["phase_err_pts"] = err


def job_stage_shares(paths):
    """The job's own stages (train.py's job_stages: line): each stage's own
    time over the workers' time, the getitem less its transforms."""
    raw = {}
    for path in paths:
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("job_stages: "):
                        for kv in line.split()[1:]:
                            k, _, x = kv.rpartition("=")
                            raw[k] = raw.get(k, 0.0) + float(x)
        except (OSError, ValueError):
            pass
    worker = raw.pop("worker", 0.0)
    if not raw or worker <= 0:
        return {}
    transforms = sum(x for k, x in raw.items() if k.startswith("transform"))
    if "getitem" in raw:
        raw["getitem"] = max(0.0, raw["getitem"] - transforms)
    return {k: x / worker for k, x in raw.items()}


def stages(ev, job_out, report):
    """The stage_* keys (the docstring)."""
    job = job_stage_shares(job_out)
    fs, text, timed = {}, "", 0
    try:
        with open(report) as f:
            doc = json.load(f)
        m = doc.get("metrics", {})
        timed = 1 if m.get("loader_stages_timed") else 0
        for st in m.get("loader_stages") or []:
            name = st["name"]
            key = "getitem" if st.get("kind") == "getitem" else ("collate" if st.get("kind") == "collate" else name)
            fs[key] = float(st.get("self_share") or 0)
        v = doc.get("verdict", {})
        text = " ".join(e.get("text", "") for e in v.get("evidence") or [])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ev["fs_stages_timed"] = timed
    ev["job_stage_shares"] = ",".join("%s:%.3f" % kv for kv in sorted(job.items())) or "none"
    ev["fs_stage_shares"] = ",".join("%s:%.3f" % kv for kv in sorted(fs.items())) or "none"
    ev["stage_slow"] = max(job, key=job.get) if job else "none"
    ev["fs_stage_top"] = max(fs, key=fs.get) if fs else "none"
    slow = ev["stage_slow"]
    ev["job_stage_share"] = job.get(slow, NAN)
    ev["fs_stage_share"] = fs.get(slow, NAN)
    both = [k for k in job if k in fs]
    ev["stage_err_pts"] = max(abs(job[k] - fs[k]) * 100 for k in both) if both and len(both) == len(job) else NAN
    label = {"getitem": ".__getitem__", "collate": "collate_fn"}.get(slow, slow)
    ev["stage_named"] = 1 if job and label in text else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--device", default="")
    ap.add_argument("--job-out", action="append", default=[],
                    help="the job's stdout; once per node for a several-node job")
    ap.add_argument("--rank-report", action="append", default=[], metavar="NODE=REPORT",
                    help="one node's own report: its ranks, for those --report lacks")
    ap.add_argument("--report", default="")
    a = ap.parse_args()
    ev = {}
    db = sqlite3.connect("file:%s?mode=ro" % a.db, uri=True)

    t0 = one(db, "SELECT min(t - wait_s) FROM steps")
    t1 = one(db, "SELECT max(t + compute_s) FROM steps")
    if math.isnan(t0) or math.isnan(t1) or t1 <= t0:
        t0 = one(db, "SELECT min(t) FROM proc WHERE role = 'worker'")
        t1 = one(db, "SELECT max(t) FROM proc WHERE role = 'worker'")
    if math.isnan(t0) or math.isnan(t1) or t1 <= t0:
        t0, t1 = one(db, "SELECT min(t) FROM ticks"), one(db, "SELECT max(t) FROM ticks")
    w = (t0, t1)
    ev["window_s"] = t1 - t0

    # steps
    ev["steps"] = one(db, "SELECT count(*) FROM steps")
    wait = one(db, "SELECT sum(wait_s) FROM steps")
    comp = one(db, "SELECT sum(compute_s) FROM steps")
    ev["wait_share"] = wait / (wait + comp) if wait + comp > 0 else NAN
    ev["step_mean_s"] = one(db, "SELECT avg(wait_s + compute_s) FROM steps")
    ev["compute_mean_s"] = one(db, "SELECT avg(compute_s) FROM steps")
    ev["steps_wait_s"] = wait
    # the device's own idle inside each wait (a device timeline's events)
    ev["dev_events_n"] = one(db, "SELECT count(device_idle_s) FROM steps")
    ev["dev_events_idle_s"] = one(db, "SELECT sum(device_idle_s) FROM steps")
    n_steps = ev["steps"]
    ev["dev_events_frac"] = (ev["dev_events_n"] / n_steps
                             if isinstance(n_steps, (int, float)) and n_steps > 0 else NAN)
    try:
        tl = [r[0] for r in db.execute("SELECT value FROM meta WHERE key LIKE 'hook.device_timeline.%'")]
    except sqlite3.Error:
        tl = []
    ev["timeline"] = ",".join(sorted(set(str(x).replace(" ", "_") for x in tl))) or "none"
    first = one(db, "SELECT sum(wait_s) FROM steps WHERE step = 0")
    ev["first_wait_frac"] = first / wait if wait > 0 else NAN
    ev["epochs"] = one(db, "SELECT count(DISTINCT epoch) FROM steps")

    # the job's own account
    ev["job_wait_share"] = NAN
    ranks = {}
    for path in a.job_out:
        ranks.update(job_ranks(path))
    if ranks:
        r0 = ranks.get(0, ranks[min(ranks)])
        for k in ("busy", "input", "ckpt", "coll", "val", "other"):
            ev["job_b_" + k] = r0.get("b_" + k, NAN)
        ev["job_ranks"] = len(ranks)
        slow = max(ranks, key=lambda r: ranks[r].get("wait_share", -1))
        ev["job_slow_rank"] = slow
        ev["job_wait_share_max"] = ranks[slow].get("wait_share", NAN)
        ev["job_b_input_slow"] = ranks[slow].get("b_input", NAN)
        ev["job_coll_share_r0"] = (r0["coll_s"] / r0["total_s"]
                                   if r0.get("total_s") and "coll_s" in r0 else NAN)
        # the accelerator's busy share of the loop: training steps and the
        # validation passes' compute (b_busy holds the former only)
        ev["job_accel_busy"] = (r0.get("b_busy", NAN) + r0["val_busy_s"] / r0["total_s"]
                                if r0.get("total_s") and "val_busy_s" in r0 else r0.get("b_busy", NAN))
        # the emulated accelerator's own account (--device async's truth)
        for k, x in r0.items():
            if k.startswith("dev_") or k in ("ideal_speedup", "step_s", "host_step_s", "launch_s",
                                             "launch_blocks", "sync_s", "syncs", "ckpt_sync_s"):
                ev["job_" + k] = x
    for path in a.job_out:
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("train: ") and "rank=" in line and " rank=0 " not in line \
                            and len(ranks) > 1:
                        continue  # several ranks: rank 0's line is the job's
                    if line.startswith("train: "):
                        m = re.search(r"wait_share=([0-9.]+)", line)
                        if m:
                            ev["job_wait_share"] = float(m.group(1))
                        m = re.search(r"wait_s=([0-9.]+) compute_s=([0-9.]+)", line)
                        if m:
                            ev["job_wait_s"], ev["job_compute_s"] = map(float, m.groups())
                        m = re.search(r"steps=(\d+)", line)
                        if m:
                            ev["job_steps"] = int(m.group(1))
        except OSError:
            pass

    ev["gpu_util"] = one(db, "SELECT avg(util_pct) FROM gpu WHERE t BETWEEN ? AND ?", w)

    if a.device:
        d = (a.device,) + w
        base = "FROM disk WHERE device = ? AND t BETWEEN ? AND ?"
        ev["disk_mbps"] = one(db, "SELECT avg(read_bytes_per_s) / 1e6 " + base, d)
        ev["disk_util"] = one(db, "SELECT avg(util_pct) " + base, d)
        ev["disk_await_ms"] = one(db, "SELECT sum(read_await_ms * reads_per_s) / sum(reads_per_s) "
                                  + base, d)
        ev["disk_req_kib"] = one(db, "SELECT sum(read_bytes_per_s) / sum(reads_per_s) / 1024 "
                                 + base, d)
        ev["disk_rps"] = one(db, "SELECT avg(reads_per_s) " + base, d)
        ev["disk_qd"] = one(db, "SELECT avg(queue_depth) " + base, d)
        ev["disk_wmbps_max"] = one(db, "SELECT max(write_bytes_per_s) / 1e6 " + base, d)

    for role, key in (("worker", "wk"), ("main", "main")):
        r = (role,) + w
        base = "FROM proc WHERE role = ? AND t BETWEEN ? AND ?"
        ev[key + "_D"] = one(db, "SELECT avg(blocked_io > 0) " + base, r)
        ev[key + "_R"] = one(db, "SELECT avg(running > 0) " + base, r)
        ev[key + "_cpu"] = one(db, "SELECT avg(cpu_pct) " + base, r)

    ev["cpu_busy"] = one(db, "SELECT avg(100 - idle_pct - iowait_pct) FROM cpu WHERE t BETWEEN ? AND ?", w)
    ev["cg_throttled"] = one(db, "SELECT avg(throttled_pct) FROM cgroup WHERE throttled_pct IS NOT NULL "
                             "AND cpu_quota_cores IS NOT NULL AND t BETWEEN ? AND ?", w)
    ev["cg_quota"] = one(db, "SELECT max(cpu_quota_cores) FROM cgroup")
    ev["mem_limit_mib"] = one(db, "SELECT min(mem_limit_bytes) / 1048576.0 FROM cgroup")
    ev["mem_usage_max_mib"] = one(db, "SELECT max(mem_usage_bytes) / 1048576.0 FROM cgroup "
                                  "WHERE mem_limit_bytes IS NOT NULL")
    for res in ("memory", "io", "cpu"):
        ev["psi_" + res[:3]] = one(db, "SELECT avg(some_pct) FROM psi WHERE resource = ? AND t BETWEEN ? AND ?",
                                   (res,) + w)
    # rates integrated over the window: per-process rows, each over its tick
    sums = "SELECT sum(p.%s * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t WHERE p.t BETWEEN ? AND ?"
    ev["rchar_mib"] = one(db, sums % "rchar_per_s", w) / 1048576.0
    ev["storage_read_mib"] = one(db, sums % "read_bytes_per_s", w) / 1048576.0
    ev["majflt"] = one(db, sums % "majflt_per_s", w) / (t1 - t0) if t1 > t0 else NAN

    ev["ckpt_n"] = one(db, "SELECT count(*) FROM phases WHERE name = 'checkpoint'")
    ck = one(db, "SELECT sum(t_end - t_start) FROM phases WHERE name = 'checkpoint'")
    ev["ckpt_s"] = ck if ev["ckpt_n"] else 0.0
    total = one(db, "SELECT sum(wait_s + compute_s) FROM steps")
    ev["ckpt_share"] = ev["ckpt_s"] / total if total > 0 else NAN
    ev["gpu_util_ckpt"] = one(db, "SELECT avg(g.util_pct) FROM gpu g, phases p WHERE p.name = 'checkpoint' "
                              "AND g.t > p.t_start + 0.1 AND g.t <= p.t_end")

    ev["verdict"], ev["input_bound"], ev["confidence"], ev["predicted_speedup"] = "none", NAN, NAN, NAN
    ev["sat_named"], ev["sat_runner"], ev["sat_named_share"], ev["sat_runner_up_share"] = "none", "none", NAN, NAN
    ev["fs_idle"], ev["fs_ckpt_share"], ev["fs_coll_r0"] = NAN, NAN, NAN
    if a.report:
        try:
            with open(a.report) as f:
                v = json.load(f)["verdict"]
            ev["verdict"] = str(v.get("primary", "none"))
            x = v.get("accelerator_idle_fraction")
            ev["fs_idle"] = float(x) if x is not None else NAN
            with open(a.report) as f:
                m = json.load(f).get("metrics", {})
            loop = sum(float(m.get(k) or 0) for k in ("wait_s", "compute_s", "epoch_end_s"))
            ck = m.get("checkpoint_s")
            ev["fs_ckpt_share"] = float(ck) / loop if ck is not None and loop > 0 else NAN
            with open(a.report) as f:
                acct = json.load(f).get("accounting", {})
            b = acct.get("buckets") or {}
            if b.get("host_io") is not None:
                ev["fs_ckpt_share"] = float(b["host_io"])
            # rank 0's share in collectives (the broad suite's torchrun truth
            # is rank 0's): the process the accounting says is rank 0
            for p in acct.get("processes") or []:
                if p.get("rank") == 0 and (p.get("buckets") or {}).get("other_ranks") is not None:
                    ev["fs_coll_r0"] = float(p["buckets"]["other_ranks"])
            # which limit of the storage the report names (saturation)
            sat = v.get("saturation") or {}
            ev["sat_named"] = str(sat.get("named") or "none")
            ev["sat_runner"] = str(sat.get("runner_up") or "none")
            for k in ("named_share", "runner_up_share"):
                x = sat.get(k)
                ev["sat_" + k] = float(x) if x is not None else NAN
            for k in ("input_bound_fraction", "confidence", "predicted_speedup"):
                x = v.get(k)
                ev[{"input_bound_fraction": "input_bound"}.get(k, k)] = float(x) if x is not None else NAN
        except (OSError, ValueError, KeyError, TypeError):
            ev["verdict"] = "unreadable"

    per_rank(ev, ranks, a.report, a.rank_report)
    phases(ev, a.job_out, a.report, db)
    stages(ev, a.job_out, a.report)

    for k, v in ev.items():
        if isinstance(v, float):
            v = "nan" if math.isnan(v) else ("%.4g" % v)
        print("%s=%s" % (k, v))


if __name__ == "__main__":
    main()
