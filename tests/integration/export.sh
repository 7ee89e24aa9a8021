# feedscope export: a Perfetto / chrome://tracing trace and CSV files of a
# real recorded Python job (steps, phases, --trace-ops) and of synthetic run
# files: the trace is valid JSON with a slice per step, phase and recorded
# I/O call, counters decimated to at most 10 000 points per track with their
# means kept, baseTimeNanoseconds = start_unix in ns and the job's own wall
# clock on the slices; every CSV file parses, has the table's rows, base
# units and t_unix = start_unix + t; bad input exits 2.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3
need_cmd sqlite3
PY=/usr/bin/python3

# --- a real run: feedscope.watch() steps, a phase, file reads, --trace-ops.
# The job prints the wall clock at which it got each batch.
cat >job.py <<'PY'
import os, sys, time
import feedscope
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for i in range(6):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(b"x" * 8192)
def load():
    for i in range(6):
        with open(os.path.join(d, "f%d" % i), "rb") as f:
            f.read()
        time.sleep(0.01)
        yield i
got = open("got.txt", "w")
# a stand-in for a torch >= 2.4 profiler trace (kineto's contract: absolute
# ns = baseTimeNanoseconds + ts * 1000), its base 10 s before feedscope's
# t = 0, so that a merge that did not shift by the bases is 10 s off
base = time.time_ns() - 10 * 10**9
prof = []
for epoch in range(3):
    for b in feedscope.watch(load(), name="train"):
        now = time.time_ns()
        got.write("%d %d %.6f\n" % (epoch, b, now / 1e9))
        time.sleep(0.02)
        prof.append({"ph": "X", "name": "ProfilerStep#%d" % len(prof), "pid": os.getpid(), "tid": 1,
                     "ts": (now - base) / 1000, "dur": (time.time_ns() - now) / 1000})
    with feedscope.phase("eval"):
        time.sleep(0.03)
import json
json.dump({"baseTimeNanoseconds": base, "traceEvents": prof}, open("torch.json", "w"))
PY
"$FEEDSCOPE" run -q --trace-ops -o run.db -- "$PY" job.py data >run.out 2>run.err || fail "feedscope run: $(cat run.err)"
[ "$(q run.db 'SELECT count(*) FROM steps')" -eq 18 ] || fail "the job's 18 steps were not recorded"
[ "$(q run.db 'SELECT count(*) FROM ops')" -gt 0 ] || fail "--trace-ops recorded no ops"

"$FEEDSCOPE" export --format perfetto run.db -o run.json 2>err.txt || fail "export perfetto: $(cat err.txt)"
"$FEEDSCOPE" export --format perfetto -o - run.db >stdout.json || fail "export perfetto -o -"
cmp -s run.json stdout.json || fail "-o - and -o FILE differ"
ls run.json.partial-* >/dev/null 2>&1 && fail "a partial trace was left behind"

# check_trace TRACE DB : the trace against the run file's rows
cat >check_trace.py <<'PY'
import collections, decimal, json, sqlite3, sys
trace, db = sys.argv[1], sys.argv[2]
def no_constant(c):   # Python takes NaN and Infinity, which are not JSON
    raise ValueError("not JSON: " + c)
doc = json.load(open(trace, encoding="utf-8"), parse_constant=no_constant)
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
# a string is written up to a NUL byte, invalid UTF-8 as U+FFFD
con.text_factory = lambda b: b.split(b"\0")[0].decode("utf-8", "replace")
one = lambda sql: con.execute(sql).fetchone()[0]
def has(table):
    return one("SELECT count(*) FROM sqlite_master WHERE name = '%s'" % table) and one("SELECT count(*) FROM %s" % table)
assert doc["displayTimeUnit"] == "ms"
start = con.execute("SELECT value FROM meta WHERE key = 'start_unix'").fetchone()
if start:
    want = int(decimal.Decimal(start[0]) * 10**9)
    assert doc["baseTimeNanoseconds"] == want, (doc["baseTimeNanoseconds"], want)
    assert isinstance(doc["baseTimeNanoseconds"], int)
ev = doc["traceEvents"]
X = [e for e in ev if e["ph"] == "X"]
C = [e for e in ev if e["ph"] == "C"]
named = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
for e in X:
    assert (e["pid"], e["tid"]) in named, ("slice on an unnamed thread", e)
    assert e["dur"] >= 0 and e["ts"] >= -1e9, e
rank = dict(con.execute("SELECT pid, rank FROM ranks r WHERE t = (SELECT max(t) FROM ranks WHERE pid = r.pid)")
            if has("ranks") else [])
for p, comm, role in con.execute("SELECT pid, max(comm), max(role) FROM proc GROUP BY pid") if has("proc") else []:
    r = ", rank %d" % rank[p] if rank.get(p) is not None else ""
    assert procs.get(p) == "%s (%s%s)" % (comm, role, r), (p, procs.get(p))
kinds = collections.Counter((e["cat"], e["name"]) for e in X)
steps = one("SELECT count(*) FROM steps") if has("steps") else 0
assert kinds[("step", "wait")] == steps and kinds[("step", "compute")] == steps, (kinds, steps)
# each wait ends, and each compute starts, at its step's t (µs since t = 0),
# in the order of the rows (a loader's epoch and step numbers may repeat)
def ordered(name, end):
    return sorted((e for e in X if e["cat"] == "step" and e["name"] == name),
                  key=lambda e: (e["pid"], e["ts"] + (e["dur"] if end else 0)))
rows = list(con.execute("SELECT pid, epoch, step, t, wait_s, compute_s FROM steps ORDER BY pid, t")) if steps else []
for (pid, ep, st, t, w, c), wait, comp in zip(rows, ordered("wait", True), ordered("compute", False)):
    assert wait["pid"] == comp["pid"] == pid and wait["args"] == comp["args"] == {"epoch": ep, "step": st}
    assert abs(wait["ts"] + wait["dur"] - t * 1e6) < 0.01 and abs(comp["ts"] - t * 1e6) < 0.01, (wait, comp, t)
    assert abs(wait["dur"] - w * 1e6) < 0.01 and abs(comp["dur"] - c * 1e6) < 0.01
    assert wait["tid"] == comp["tid"] and wait["tid"] != pid
if has("phases"):
    for name, n in con.execute("SELECT name, count(*) FROM phases GROUP BY name"):
        assert kinds[("phase", name)] == n, (name, n, kinds)
if has("ops"):
    assert sum(v for (cat, _), v in kinds.items() if cat == "io") == one("SELECT count(*) FROM ops")
    tids = {(p, t) for p, t in con.execute("SELECT DISTINCT pid, tid FROM ops")}
    assert tids == {(e["pid"], e["tid"]) for e in X if e["cat"] == "io"}
tracks = collections.defaultdict(list)
for e in C:
    for k, v in e["args"].items():
        assert isinstance(v, (int, float)), e
        tracks[e["name"] + " " + k].append((e["ts"], v))
def table_mean(sql):
    return one(sql)
want = {"CPU user %": "SELECT avg(user_pct + coalesce(nice_pct, 0)) FROM cpu",
        "PSI some io %": "SELECT avg(some_pct) FROM psi WHERE resource = 'io'"}
for (dev,) in con.execute("SELECT DISTINCT device FROM disk") if has("disk") else []:
    want["disk %s read MB/s" % dev] = "SELECT avg(read_bytes_per_s) / 1e6 FROM disk WHERE device = '%s'" % dev
for (i,) in con.execute("SELECT DISTINCT iface FROM net WHERE iface <> 'lo'") if has("net") else []:
    want["net %s tx MB/s" % i] = "SELECT avg(tx_bytes_per_s) / 1e6 FROM net WHERE iface = '%s'" % i
assert not any(name.startswith("net lo ") for name in tracks), "lo has a track"
for (g,) in con.execute("SELECT DISTINCT gpu FROM gpu") if has("gpu") else []:
    want["GPU %d busy %%" % g] = "SELECT avg(util_pct) FROM gpu WHERE gpu = %d" % g
table_of = {"CPU user %": "cpu", "PSI some io %": "psi"}
for name, sql in want.items():
    table = table_of.get(name) or name.split()[0].lower()
    if not has(table):
        continue
    pts = tracks[name]
    assert pts, ("no counter track", name, sorted(tracks))
    assert len(pts) <= 10000, (name, len(pts))
    assert pts == sorted(pts), name
    if "\ufffd" in name:
        continue   # a device name with invalid UTF-8: the SQL cannot name it back
    mean = table_mean(sql)
    # decimated or not, each point is the mean of a bin of samples: the
    # points' mean is the samples' (bins of equal counts but the last)
    got = sum(v for _, v in pts) / len(pts)
    assert abs(got - mean) <= 0.02 * abs(mean) + 1e-6, (name, got, mean)
print("trace ok: %d events, %d step slices, %d counter tracks, max %d points"
      % (len(ev), 2 * steps, len(tracks), max((len(p) for p in tracks.values()), default=0)))
PY
"$PY" check_trace.py run.json run.db || fail "trace checks (real run)"

# the job's wall clock lines up: baseTimeNanoseconds + ts × 1000 of each
# compute slice (the batch handed over) is when the job printed it got it
"$PY" - <<'PY' || fail "the trace's clock is not the job's"
import json
doc = json.load(open("run.json"))
base = doc["baseTimeNanoseconds"]
comp = sorted(((e["args"]["epoch"], e["args"]["step"], e["ts"]) for e in doc["traceEvents"]
               if e["ph"] == "X" and e["name"] == "compute"), key=lambda c: c[2])
got = [tuple(l.split()) for l in open("got.txt")]
assert len(comp) == len(got) == 18, (len(comp), len(got))
worst = 0
for (ep, st, ts), (gep, gst, wall) in zip(comp, got):
    assert st == int(gst)   # each watch() is an epoch 0 of its own
    worst = max(worst, abs((base + ts * 1000) / 1e9 - float(wall)))
# the same clock read twice in one process, a few µs apart; a wrong anchor
# or unit is off by seconds to years
assert worst < 0.5, worst
print("job clock vs trace: worst %.6f s" % worst)
PY

# the README's merge recipe puts the "torch" steps on feedscope's compute slices
sed -n '/^# merge.py/,/^```/p' "$FEEDSCOPE_TOP/README.md" | sed '$d' >merge.py
grep -q 'json.dump(out' merge.py || fail "no merge recipe in README.md"
"$PY" merge.py run.json torch.json || fail "the README's merge.py failed"
"$PY" - <<'PY' || fail "merged traces do not line up"
import json
ev = json.load(open("merged.json"))["traceEvents"]
comp = sorted(e["ts"] for e in ev if e.get("name") == "compute")
steps = sorted(e["ts"] for e in ev if e.get("name", "").startswith("ProfilerStep#"))
assert len(comp) == len(steps) == 18, (len(comp), len(steps))
worst = max(abs(a - b) for a, b in zip(comp, steps))
assert worst < 50000, worst   # µs: the job read both clocks a few µs apart (a busy CI box: a few ms)
print("merged: worst %.1f µs apart" % worst)
PY

# --window: only steps with t in the window
"$FEEDSCOPE" export --format perfetto --window 0:0.3 run.db -o win.json || fail "export --window"
n=$(q run.db "SELECT count(*) FROM steps WHERE t BETWEEN 0 AND 0.3")
"$PY" -c "
import json, sys
d = json.load(open('win.json'))
n = sum(1 for e in d['traceEvents'] if e['ph'] == 'X' and e['name'] == 'wait')
assert n == $n, (n, $n)
assert all(e['ts'] <= 0.3e6 for e in d['traceEvents'] if e['ph'] == 'C')
" || fail "--window 0:0.3: wrong steps"

# --- synthetic run files: 600 s (6 000 samples of a per-tick track, the
# GPU's: as they are) and 1 500 s (15 000: decimated to 10 000 means), with
# start_unix (HOST RANK); the machine-wide tracks (CPU) a sample a second
"$FEEDSCOPE_BUILD/tests/synth_run" s600.db 600 node0 0 >/dev/null || fail "synth_run"
"$FEEDSCOPE_BUILD/tests/synth_run" s1500.db 1500 node0 0 >/dev/null || fail "synth_run"
"$FEEDSCOPE_BUILD/tests/synth_run" plain.db 30 >/dev/null || fail "synth_run"
for f in s600 s1500 plain; do
	"$FEEDSCOPE" export --format perfetto "$f.db" -o "$f.json" || fail "export $f"
	"$PY" check_trace.py "$f.json" "$f.db" || fail "trace checks ($f)"
done
"$PY" -c "
import json
for f, n, cpu in (('s600', 6000, 599), ('s1500', 10000, 1499)):
    d = json.load(open(f + '.json'))
    pts = sum(1 for e in d['traceEvents'] if e['ph'] == 'C' and e['name'] == 'GPU 0')
    assert pts == n, (f, pts, n)
    pts = sum(1 for e in d['traceEvents'] if e['ph'] == 'C' and e['name'] == 'CPU')
    assert pts == cpu, (f, pts, cpu)
assert 'baseTimeNanoseconds' not in json.load(open('plain.json'))   # no start_unix, no anchor made up
" || fail "counter decimation"

# whatever the run file's strings hold, the trace is valid JSON, the CSV valid UTF-8
cp s600.db evil.db
E="char(27)" BAD="CAST(x'ff' AS TEXT)" Q="'\"'"
sqlite3 evil.db <<SQL || fail "sqlite3"
UPDATE steps SET loader = 'tr' || $E || '[1m' || $BAD || $Q || char(10) || ',x';
UPDATE proc SET comm = 'py' || $BAD || $Q || char(13) || char(0) || 'c';
UPDATE disk SET device = 'd' || $E || $BAD || '%s%n' WHERE device = 'loop0';
INSERT INTO phases VALUES (1.0, 1.2, 100, 'ph' || char(0) || $E || '[7m' || $BAD);
SQL
"$FEEDSCOPE" export --format perfetto evil.db -o evil.json || fail "export evil.db"
"$PY" check_trace.py evil.json evil.db >/dev/null || fail "trace checks (hostile strings)"

# --- CSV
# check_csv DIR DB : every table with rows has DIR/TABLE.csv with its rows
cat >check_csv.py <<'PY'
import csv, decimal, os, sqlite3, sys
d, db = sys.argv[1], sys.argv[2]
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
# the CSV has U+FFFD for a byte that is not UTF-8, and for a NUL
con.text_factory = lambda b: b.replace(b"\0", b"\xff").decode("utf-8", "replace")
# rowids_1m is the file's own index of rowids: no CSV (rowids mean nothing outside it)
tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'rowids_1m'")]
start = con.execute("SELECT value FROM meta WHERE key = 'start_unix'").fetchone()
start = float(start[0]) if start else None
files = sorted(os.listdir(d))
def conv(c):  # a column's CSV name; a per-minute table's NAME_min/_max keep NAME's unit
    tail = c[-4:] if c.endswith(("_min", "_max")) else ""
    c = c[:len(c) - len(tail)]
    return (c[:-4] + "_ratio" if c.endswith("_pct") else c[:-3] + "_s" if c.endswith("_ms") else
            c[:-3] + "_s" if c.endswith("_us") else c[:-5] + "_bits_per_s" if c.endswith("_mbps") else c) + tail
for t in tables:
    n = con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
    assert (t + ".csv" in files) == (n > 0), (t, n, files)
for f in files:
    t = f[:-4]
    assert f.endswith(".csv") and t in tables, f
    with open(os.path.join(d, f), newline="", encoding="utf-8") as fh:  # strict: invalid UTF-8 raises
        raw = fh.read()
    assert "\0" not in raw
    rows = list(csv.reader(raw.splitlines(keepends=True)))
    head, body = rows[0], rows[1:]
    assert len(body) == con.execute("SELECT count(*) FROM %s" % t).fetchone()[0], (t, len(body))
    assert all(len(r) == len(head) for r in body), t
    cols = [c[1] for c in con.execute("PRAGMA table_info(%s)" % t)]
    for c in cols:
        name = conv(c)
        assert name in head, (t, c, name, head)
    stored = list(con.execute("SELECT * FROM %s ORDER BY rowid" % t))
    for r, s in zip(body, stored):
        row = dict(zip(head, r))
        src = dict(zip(cols, s))
        for c, v in src.items():
            if v is None:
                continue
            if conv(c).rsplit("_", 1)[0].endswith("_ratio") or conv(c).endswith("_ratio"):
                if isinstance(v, (int, float)):
                    assert abs(float(row[conv(c)]) - v / 100) <= 1e-12 * max(1, abs(v)), (t, c)
            if c == "t" and start is not None:
                assert abs(float(row["t_unix"]) - (start + v)) < 2e-6, (t, row["t_unix"], start, v)
            if isinstance(v, str) and t != "meta":
                assert row[c] == v, (t, c, row[c], v)   # text comes back as stored (U+FFFD for bad bytes)
print("csv ok: %d files" % len(files))
PY
"$FEEDSCOPE" export --format csv run.db -o csv_run || fail "export csv"
"$PY" check_csv.py csv_run run.db || fail "csv checks (real run)"
head -1 csv_run/steps.csv | grep -q '^t,t_unix,pid,loader,' || fail "steps.csv header: $(head -1 csv_run/steps.csv)"
mkdir csv_s600
"$FEEDSCOPE" export --format csv s600.db -o csv_s600 || fail "export csv into an empty directory"
"$PY" check_csv.py csv_s600 s600.db || fail "csv checks (synthetic)"
"$FEEDSCOPE" export --format csv evil.db -o csv_evil || fail "export csv evil.db"
"$PY" check_csv.py csv_evil evil.db >/dev/null || fail "csv checks (hostile strings)"

# --- bad input: exit 2, one line on stderr, nothing written
bad() {
	timeout 20 "$FEEDSCOPE" export "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "export $*: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "export $*: expected one line on stderr: $(cat err.txt)"
	[ -s out.txt ] && fail "export $*: wrote to stdout"
	return 0
}
mkfifo fifo.db fifo.out
mkdir full && echo keep >full/mine.txt
bad run.db -o x.json
bad --format xml run.db -o x.json
bad --format perfetto missing.db -o x.json
bad --format perfetto fifo.db -o x.json
bad --format perfetto run.db
bad --format perfetto run.db run.db -o x.json
bad --format perfetto --window 9:1 run.db -o x.json
bad --format perfetto run.db -o fifo.out
bad --format perfetto run.db -o full
ln -s elsewhere.json link.json
bad --format perfetto run.db -o link.json
bad --format csv run.db -o full
bad --format csv run.db -o -
bad --format csv run.db -o run.json
bad --format csv fifo.db -o newdir
bad --bogus run.db -o x.json
[ "$(cat full/mine.txt)" = keep ] && [ "$(ls full)" = mine.txt ] || fail "a non-empty -o directory was touched"
[ -e x.json ] && fail "a refused export wrote x.json"
[ -e elsewhere.json ] && fail "an export followed the -o link"
[ -e newdir ] && fail "a refused export made its directory"
echo "not sqlite" >junk.db
"$FEEDSCOPE" export --format perfetto junk.db -o junk.json 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "export of a non-run file: exit $rc, expected 1"
[ -e junk.json ] && fail "a failed export left junk.json"
"$FEEDSCOPE" export --format csv junk.db -o junk-csv 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "csv export of a non-run file: exit $rc, expected 1"
[ -e junk-csv ] && fail "a failed csv export left the directory it made"
ls junk.json.partial-* >/dev/null 2>&1 && fail "a failed export left its partial file"
if [ -w /dev/full ]; then
	"$FEEDSCOPE" export --format perfetto run.db -o - >/dev/full 2>err.txt; rc=$?
	[ $rc -eq 1 ] || fail "export to /dev/full: exit $rc, expected 1"
fi
"$FEEDSCOPE" export --help | grep -q 'usage: feedscope export' || fail "export --help"
"$FEEDSCOPE" --help | grep -q '^  export ' || fail "export is not in feedscope --help"
exit 0
