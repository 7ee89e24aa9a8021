# `feedscope bench --summary FILE`: DLIO's summary.json, parsed here and
# checked against the same run's own figures in its --json document (AU per
# epoch, their mean and population stdev, the checkpoint's duration and
# size) and against DLIO's definitions: with one accelerator and a fixed
# computation_time c, a step of the AU window computes for exactly c, so
# DLIO's throughput (the window's samples ÷ its time) is AU × batch ÷ c;
# train_io_mean_MB_per_second is that × record_length / 2^20 (MiB, as DLIO
# computes it). Also: --summary refused before anything runs (exit 2,
# nothing made) when it names a directory or an unwritable place.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd python3
PY=python3

FILES=8 PER=16 REC=32768 BATCH=4 EPOCHS=3 C=0.002
cat >w.yaml <<EOF
model:
  name: sumtest
  model_size: 1048576
framework: pytorch
workflow:
  train: True
dataset:
  format: npz
  num_files_train: $FILES
  num_samples_per_file: $PER
  record_length_bytes: $REC
reader:
  data_loader: pytorch
  batch_size: $BATCH
  read_threads: 2
  prefetch_size: 2
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: $EPOCHS
  computation_time: $C
metric:
  au: 0.5
EOF
D=$TEST_TMP/data
expect_status 0 "$FEEDSCOPE" bench generate --config w.yaml --dir "$D" --seed 1 >gen.out 2>&1 || cat gen.out

expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --checkpoint --json --summary s.json >run.json 2>run.err
[ -f s.json ] || fail "no summary.json written"
ls s.json.tmp.* >/dev/null 2>&1 && fail "a temporary summary file was left"

$PY - s.json run.json $BATCH $C $REC $EPOCHS <<'EOF' || fail "summary.json (above)"
import json, math, sys, datetime
s = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
batch, c, rec, epochs = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)
m = s["metric"]
job = d["jobs"][0]
for k in ("start", "end", "num_accelerators", "hostname", "metric", "potential_caching", "num_files_train",
          "num_samples_per_file", "host_memory_GB", "epochs"):
    check(k in s, "top-level key %r" % k)
check(s["num_accelerators"] == job["accelerators"] * job["ranks"], "num_accelerators %s" % s["num_accelerators"])
check(s["epochs"] == epochs, "epochs %s" % s["epochs"])
# AU: percent, per epoch, as our JSON's epochs say
au = m["train_au_percentage"]
check(len(au) == epochs, "%d AU values for %d epochs" % (len(au), epochs))
for i, (a, e) in enumerate(zip(au, job["epochs"])):
    check(close(a, 100 * e["au"]), "epoch %d: AU %s%% vs our %s" % (i, a, e["au"]))
mean = sum(au) / len(au)
std = math.sqrt(sum((x - mean) ** 2 for x in au) / len(au))  # numpy's np.std
check(close(m["train_au_mean_percentage"], mean), "AU mean %s vs %s" % (m["train_au_mean_percentage"], mean))
check(close(m["train_au_mean_percentage"], 100 * job["au"]), "AU mean vs our run's AU %s" % job["au"])
check(abs(m["train_au_stdev_percentage"] - std) <= 1e-9 * max(1, std), "AU stdev %s vs %s" % (m["train_au_stdev_percentage"], std))
# throughput without the first step: AU x batch / c with one accelerator and a fixed c
tp = m["train_throughput_samples_per_second"]
for i, (t, e) in enumerate(zip(tp, job["epochs"])):
    check(close(t, e["au"] * batch / c, 1e-6), "epoch %d: throughput %s vs AU x batch / c = %s" % (i, t, e["au"] * batch / c))
    check(close(t, e["window_samples_per_s"]), "epoch %d: throughput %s vs our window_samples_per_s" % (i, t))
tmean = sum(tp) / len(tp)
check(close(m["train_throughput_mean_samples_per_second"], tmean), "throughput mean")
check(close(m["train_io_mean_MB_per_second"], tmean * rec / 1024 / 1024), "io MB/s %s vs %s" % (m["train_io_mean_MB_per_second"], tmean * rec / 2**20))
tstd = math.sqrt(sum((x - tmean) ** 2 for x in tp) / len(tp))
check(abs(m["train_io_stdev_MB_per_second"] - tstd * rec / 2**20) <= 1e-6 * max(1, tstd), "io stdev")
# the verdict: "success" only when our document claims the PASS
check(m["train_au_meet_expectation"] == ("success" if job["passed"] else "fail"),
      "meet_expectation %s vs passed %s" % (m["train_au_meet_expectation"], job["passed"]))
check(s["potential_caching"] == [1 if d["potential_caching"] else 0], "potential_caching %s vs %s" % (s["potential_caching"], d["potential_caching"]))
# the checkpoint: one, GiB and seconds
ck = d["checkpoint"]
check(close(m["save_checkpoint_duration_mean_seconds"], ck["write_s"]), "save duration %s vs %s" % (m["save_checkpoint_duration_mean_seconds"], ck["write_s"]))
check(close(m["load_checkpoint_duration_mean_seconds"], ck["read_s"]), "load duration")
check(close(m["checkpoint_size_GB"], ck["bytes"] / 2**30), "checkpoint size %s" % m["checkpoint_size_GB"])
check(close(m["save_checkpoint_io_mean_GB_per_second"], ck["bytes"] / 2**30 / ck["write_s"]), "save GB/s")
check(m["save_checkpoint_io_stdev_GB_per_second"] == 0, "one checkpoint: stdev 0")
# DLIO's time format, UTC, start before end, around our timestamp
fmt = "%Y-%m-%dT%H:%M:%S.%f"
t0 = datetime.datetime.strptime(s["start"], fmt).replace(tzinfo=datetime.timezone.utc).timestamp()
t1 = datetime.datetime.strptime(s["end"], fmt).replace(tzinfo=datetime.timezone.utc).timestamp()
check(t0 <= t1 and abs(t1 - d["timestamp_ms"] / 1000) < 2, "start %s end %s timestamp %s" % (s["start"], s["end"], d["timestamp"]))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
EOF

# text mode writes the same file; the AU on its verdict line is the summary's mean
expect_status 0 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --summary s2.json --quiet >text.out 2>text.err
au_text=$(sed -n 's/^AU \([0-9.]*\)% .*/\1/p' text.out)
[ -n "$au_text" ] || fail "no AU line: $(cat text.out)"
$PY -c 'import json,sys; m=json.load(open("s2.json"))["metric"]; sys.exit(0 if abs(m["train_au_mean_percentage"] - float(sys.argv[1])) <= 0.05 else 1)' "$au_text" ||
	fail "text AU $au_text% vs the summary's $(cat s2.json)"

# bad --summary: exit 2, one line, nothing made
mkdir adir
expect_status 2 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --summary adir >bad.out 2>bad.err
grep -q 'summary' bad.err || fail "--summary DIR: $(cat bad.err)"
expect_status 2 "$FEEDSCOPE" bench --config w.yaml --dir "$D" --summary /nonexistent/x/s.json --output bad.db >bad.out 2>bad.err
[ ! -e bad.db ] || fail "--summary refused, but the run file was made"
[ "$(wc -l <bad.err)" -eq 1 ] || fail "--summary in a missing directory: $(cat bad.err)"
exit 0
