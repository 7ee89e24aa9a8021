# fio's JSON shape from `feedscope bench --output-format fio` and `feedscope
# probe --output-format fio`: both read by one reader written as a tool that
# reads fio's output reads it (the same keys for both), checked against the
# same run's own figures (bench: its run file's whole-run row; probe: its
# row in the probes database), and the shape held against Debian's fio's own
# document (--output-format=json on a tiny job) where fio is installed.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd python3
need_cmd sqlite3
PY=python3
export FEEDSCOPE_PROBE_DB=$TEST_TMP/probes.db

cat >w.yaml <<EOF
model:
  name: fiotest
  model_size: 1048576
framework: pytorch
workflow:
  train: True
dataset:
  format: npz
  num_files_train: 8
  num_samples_per_file: 16
  record_length_bytes: 32768
reader:
  data_loader: pytorch
  batch_size: 4
  read_threads: 2
  prefetch_size: 2
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 2
  computation_time: 0.001
EOF
D=$TEST_TMP/data
expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$D" --seed 1 >gen.out 2>&1 || cat gen.out
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --checkpoint --output-format fio --output run.db \
	--quiet >bench.json 2>bench.err
P=$TEST_TMP/p
mkdir "$P"
expect_status 0 "$FEEDSCOPE" probe --dir "$P" --size 16M --runtime 0.2 --meta-files 200 --output-format fio \
	>probe.json 2>probe.err

# the reader: fio's keys only, nothing feedscope-specific
cat >fioread.py <<'EOF'
import json
PCTS = ["1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000", "50.000000", "60.000000",
        "70.000000", "80.000000", "90.000000", "95.000000", "99.000000", "99.500000", "99.900000", "99.950000",
        "99.990000"]
def read_fio(path):
    d = json.load(open(path))
    jobs = {}
    for j in d["jobs"]:
        job = {"usr_cpu": j["usr_cpu"], "sys_cpu": j["sys_cpu"], "ctx": j["ctx"], "options": j["job options"],
               "job_runtime": j["job_runtime"]}
        for rw in ("read", "write"):
            r = j[rw]
            x = {k: r[k] for k in ("io_bytes", "io_kbytes", "bw", "bw_bytes", "iops", "runtime", "total_ios")}
            c = r["clat_ns"]
            x["clat"] = {k: c[k] for k in ("min", "max", "mean", "stddev", "N")}
            x["pct"] = {float(k): v for k, v in c.get("percentile", {}).items()}
            x["lat_N"] = r["lat_ns"]["N"]
            x["slat_N"] = r["slat_ns"]["N"]
            job[rw] = x
        jobs[j["jobname"]] = job
    disks = {u["name"]: (u["read_ios"], u["write_ios"], u["util"]) for u in d["disk_util"]}
    return d["fio version"], d["timestamp"], jobs, disks
EOF

$PY - bench.json probe.json run.db "$FEEDSCOPE_PROBE_DB" <<'EOF' || fail "fio-shaped documents (above)"
import sys, sqlite3
sys.path.insert(0, ".")
from fioread import read_fio, PCTS
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
def close(a, b, rel=1e-6, absol=1.0):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), absol)
def common(name, jobs):
    for jn, j in jobs.items():
        for rw in ("read", "write"):
            x = j[rw]
            check(x["io_kbytes"] == x["io_bytes"] // 1024, "%s/%s/%s: io_kbytes" % (name, jn, rw))
            check(x["bw"] == x["bw_bytes"] // 1024, "%s/%s/%s: bw %s is bw_bytes %s in KiB/s" % (name, jn, rw, x["bw"], x["bw_bytes"]))
            if x["runtime"] > 0:  # runtime is in whole ms: bw_bytes is within its rounding
                lo, hi = x["io_bytes"] / ((x["runtime"] + 0.5) / 1000), x["io_bytes"] / ((x["runtime"] - 0.5) / 1000)
                check(lo - 1 <= x["bw_bytes"] <= hi + 1, "%s/%s/%s: bw_bytes %s vs io_bytes / runtime" % (name, jn, rw, x["bw_bytes"]))
            if x["clat"]["N"]:
                p = [x["pct"][float(k)] for k in PCTS]
                check(all(a <= b for a, b in zip(p, p[1:])), "%s/%s/%s: percentiles monotone" % (name, jn, rw))
                c = x["clat"]
                check(c["min"] <= p[0] and p[-1] <= c["max"] and c["min"] <= c["mean"] <= c["max"], "%s/%s: min <= p1, p99.99 <= max" % (name, jn))
                check(c["N"] == x["total_ios"] == x["lat_N"] and x["slat_N"] == 0, "%s/%s: N = total_ios" % (name, jn))
        check(0 <= j["usr_cpu"] and 0 <= j["sys_cpu"] and j["ctx"] >= 0, "%s/%s: cpu" % (name, jn))

# bench: its run file's whole-run row
ver, ts, jobs, disks = read_fio(sys.argv[1])
check(ver.startswith("feedscope-"), "fio version %r" % ver)
common("bench", jobs)
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[3], uri=True)
row = db.execute("select read_bytes_per_s, reads, duration_s, read_p50_us, read_p99_us from bench where epoch = -1").fetchone()
j = jobs.get("fiotest")
check(j is not None, "no job fiotest in %s" % list(jobs))
if j:
    r = j["read"]
    # the job ran for the run's wall time; its reads' runtime is the
    # readers' I/O time within it (fio's: the time spent on reads), so its
    # bw_bytes is at least the run file's rate over the wall time
    check(close(j["job_runtime"], row[2] * 1000), "bench: job_runtime %s ms vs %s s" % (j["job_runtime"], row[2]))
    check(0 <= r["runtime"] <= j["job_runtime"], "bench: read runtime %s ms vs the job's %s" % (r["runtime"], j["job_runtime"]))
    check(r["bw_bytes"] >= row[0] * (1 - 1e-6), "bench: bw_bytes %s below the run file's wall rate %s" % (r["bw_bytes"], row[0]))
    check(r["total_ios"] == row[1], "bench: total_ios %s vs reads %s" % (r["total_ios"], row[1]))
    check(close(r["pct"][50.0], row[3] * 1000, 1e-9), "bench: p50 %s ns vs %s us" % (r["pct"][50.0], row[3]))
    check(close(r["pct"][99.0], row[4] * 1000, 1e-9), "bench: p99 %s ns vs %s us" % (r["pct"][99.0], row[4]))
    check(r["io_bytes"] >= 8 * 16 * 32768 * 2, "bench: every sample of 2 epochs read")
    check(j["options"].get("ioengine") == "psync" and j["options"].get("bs") == "32768", "bench: job options %s" % j["options"])
ck = db.execute("select bytes, write_bytes_per_s, read_bytes_per_s from bench_checkpoint").fetchone()
c = jobs.get("checkpoint")
check(c is not None and c["write"]["io_bytes"] == ck[0] and c["read"]["io_bytes"] == ck[0], "checkpoint job: bytes")
if c:
    check(close(c["write"]["bw_bytes"], ck[1], 0.02), "checkpoint: write bw %s vs %s" % (c["write"]["bw_bytes"], ck[1]))

# probe: its row in the probes database
ver, ts, jobs, disks = read_fio(sys.argv[2])
common("probe", jobs)
pdb = sqlite3.connect("file:%s?mode=ro" % sys.argv[4], uri=True)
row = pdb.execute("select seq_read_bytes_per_s, randread_iops_qd1, randread_iops_qd32, device from probes").fetchone()
for name in ("seq_read", "randread_qd1", "randread_qd32", "prep_write"):
    check(name in jobs, "probe: no job %s in %s" % (name, list(jobs)))
if "seq_read" in jobs:
    check(close(jobs["seq_read"]["read"]["bw_bytes"], row[0]), "probe: seq bw_bytes %s vs the database's %s" % (jobs["seq_read"]["read"]["bw_bytes"], row[0]))
    check(jobs["seq_read"]["read"]["io_bytes"] == jobs["seq_read"]["read"]["total_ios"] * 1048576, "probe: 1 MiB requests")
if "randread_qd1" in jobs:
    check(close(jobs["randread_qd1"]["read"]["iops"], row[1], 1e-6, 1e-3), "probe: QD1 iops %s vs %s" % (jobs["randread_qd1"]["read"]["iops"], row[1]))
    check(jobs["randread_qd1"]["options"]["iodepth"] == "1", "probe: QD1 iodepth")
if "randread_qd32" in jobs:
    check(close(jobs["randread_qd32"]["read"]["iops"], row[2], 1e-6, 1e-3), "probe: QD32 iops")
if "prep_write" in jobs:
    check(jobs["prep_write"]["write"]["io_bytes"] == 16 << 20, "probe: the 16 MiB test file written")
if row[3]:
    check(row[3] in disks, "probe: the device %s is in disk_util %s" % (row[3], list(disks)))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
EOF

# fio's own document, where Debian's fio is installed: our keys are its keys
command -v fio >/dev/null 2>&1 || skip "no fio: its own JSON was not compared (the rest passed)"
fio --name=t --filename="$TEST_TMP/fio.dat" --size=4M --rw=read --bs=1M --output-format=json >fio.json 2>fio.err ||
	fail "fio: $(cat fio.err)"
$PY - fio.json bench.json probe.json <<'EOF' || fail "our shape differs from fio's (above)"
import json, sys
sys.path.insert(0, ".")
from fioread import read_fio
fio = json.load(open(sys.argv[1]))
read_fio(sys.argv[1])  # the reader reads fio's own document
bad = []
# the per-sample bandwidth and iops statistics fio logs every 500 ms are not ours
sampled = {"bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min", "iops_max", "iops_mean",
           "iops_stddev", "iops_samples"}
fj = fio["jobs"][0]
for path in sys.argv[2:]:
    d = json.load(open(path))
    miss = set(fio) - set(d)
    if miss:
        bad.append("%s: top-level keys missing %s" % (path, miss))
    for j in d["jobs"]:
        for rw in ("read", "write", "trim"):
            miss = set(fj[rw]) - sampled - set(j[rw])
            if miss:
                bad.append("%s/%s/%s: keys missing %s" % (path, j["jobname"], rw, miss))
            for lat in ("slat_ns", "clat_ns", "lat_ns"):
                miss = set(k for k in fj[rw][lat] if k != "percentile") - set(j[rw][lat])
                if miss:
                    bad.append("%s/%s/%s/%s: keys missing %s" % (path, j["jobname"], rw, lat, miss))
        if j["read"]["clat_ns"]["N"] and set(j["read"]["clat_ns"]["percentile"]) != set(fj["read"]["clat_ns"]["percentile"]):
            bad.append("%s/%s: percentile keys %s, fio's %s" % (path, j["jobname"], sorted(j["read"]["clat_ns"]["percentile"]),
                                                               sorted(fj["read"]["clat_ns"]["percentile"])))
        for k in ("jobname", "job options", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "job_runtime", "elapsed"):
            if k not in j:
                bad.append("%s/%s: no %s" % (path, j["jobname"], k))
    if fio["disk_util"] and d["disk_util"]:
        miss = set(fio["disk_util"][0]) - set(d["disk_util"][0]) - {"aggr_read_ios", "aggr_write_ios", "aggr_merges",
              "aggr_write_merge", "aggr_ticks", "aggr_write_ticks", "aggr_in_queue", "aggr_util"}
        if miss:
            bad.append("%s: disk_util keys missing %s" % (path, miss))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
EOF
exit 0
