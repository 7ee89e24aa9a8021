"""memcheck.py REPORT.json JOB.out EXPECT [TOLERANCE] - a memory scenario's
check: the report's memory findings (JSON findings[] entries of kind
"memory") against the job's own account (memjob.py's `memjob:` line).
Prints key=value lines for the scenario's result:
  got=        the memory findings' ids (comma-separated), or none
  fs_bytes=   the expected finding's `bytes`
  truth_bytes= the job's own figure for it (growth: its PSS summed at the
              end less the main process's before the workers; shm: the
              most /dev/shm it saw)
  err=        |fs - truth| / truth
  ok=         yes when the expected finding is there and within TOLERANCE
              (default 0.30), or EXPECT is none and there is no finding
"""
import json, sys


def main():
    rep = json.load(open(sys.argv[1]))
    job = None
    for line in open(sys.argv[2]):
        if line.startswith("memjob: "):
            job = json.loads(line[len("memjob: "):])
    expect = sys.argv[3]
    tol = float(sys.argv[4]) if len(sys.argv) > 4 else 0.30
    finds = [f for f in rep.get("findings", []) if f.get("kind") == "memory"]
    ids = [f["id"] for f in finds]
    print("got=%s" % (",".join(ids) if ids else "none"))
    mem = rep.get("memory", {})
    print("fs_growth=%s" % mem.get("growth_bytes"))
    if job:
        print("truth_growth=%s" % job["growth"])
    ok = False
    if expect == "none":
        ok = not ids
    elif expect in ids and job:
        f = finds[ids.index(expect)]
        truth = {"loader_memory_growth": job["growth"], "shm_headroom": job["shm_max"],
                 "memory_limit_headroom": job["job_pss_end"]}[expect]
        err = abs(f["bytes"] - truth) / truth if truth else float("inf")
        print("fs_bytes=%.0f" % f["bytes"])
        print("truth_bytes=%.0f" % truth)
        print("err=%.3f" % err)
        ok = err <= tol
    print("ok=%s" % ("yes" if ok else "no"))


if __name__ == "__main__":
    main()
