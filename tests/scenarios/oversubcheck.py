"""The oversubscription finding of a report against the job's own account
of its threads (tests/scenarios/s_oversub.sh).

    oversubcheck.py REPORT.json JOB.out

Prints key=value lines: found (yes/no), the finding's figures (runnable,
cores, cores_from, threads_at_work: per worker, its main thread and its
pool's; wait_share, predicted), its fix, the job's own (train.py's
`threads:` line: job_workers, job_per_worker, job_cpus), and figures_ok:
the finding's cores are the job's CPUs and its threads at work per worker
within a third of a thread of the job's own setting (a worker's helper
threads at work now and then add a little)."""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        rep = json.load(f)
    job = {}
    with open(sys.argv[2]) as f:
        for line in f:
            if line.startswith("threads: "):
                job = dict(w.split("=", 1) for w in line.split()[1:])
    find = [x for x in rep.get("findings") or [] if x.get("id") == "oversubscription"]
    out = {"found": "yes" if find else "no", "job_workers": job.get("workers", "?"),
           "job_per_worker": job.get("per_worker", "?"), "job_cpus": job.get("cpus", "?")}
    th = rep.get("threads") or {}
    o = find[0] if find else {}
    cores = o.get("cores", th.get("cores"))
    pool = o.get("pool_threads_per_worker", th.get("worker_pool_threads"))
    at_work = 1 + pool if isinstance(pool, (int, float)) else None
    out.update(runnable="%.2f" % (o.get("runnable_threads") or th.get("runnable_threads") or float("nan")),
               cores=cores, cores_from=o.get("cores_from", th.get("cores_from")),
               threads_at_work="%.2f" % at_work if at_work is not None else "nan",
               wait_share="%.2f" % (o.get("run_wait_share") or th.get("run_wait_share") or float("nan")),
               predicted="%.2f" % o["predicted_speedup"] if o.get("predicted_speedup") else "nan",
               fix=(o.get("fix") or {}).get("suggested", "none"))
    why = []
    try:
        if cores is None or abs(float(cores) - float(job["cpus"])) > 0.01:
            why.append("cores %s, the job's %s" % (cores, job.get("cpus")))
        if at_work is None or abs(at_work - float(job["per_worker"])) > 1 / 3:
            why.append("threads at work %s, the job's %s" % (out["threads_at_work"], job.get("per_worker")))
    except (KeyError, ValueError):
        why.append("no threads: line from the job")
    out["figures_ok"] = "no" if why else "yes"
    out["figures_why"] = "; ".join(why).replace(" ", "_") or "-"
    for k, v in out.items():
        print("%s=%s" % (k, v))


if __name__ == "__main__":
    main()
