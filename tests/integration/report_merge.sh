# feedscope report of several run files (one per node) and of a directory
# of them: one merged report (nodes, ranks, the straggler, the clocks, the
# skew of step ends), valid JSON; a directory is its *.db files in name
# order; bad input (a missing file, a FIFO, a device, a file that is not a
# run file, a bench run file, the same file twice, a directory without run
# files) exits 2 before anything is printed.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
[ -x /usr/bin/python3 ] || apt-get install -y -q python3 >/dev/null 2>&1 || fail "needs /usr/bin/python3 (apt-get failed)"
command -v sqlite3 >/dev/null 2>&1 || apt-get install -y -q sqlite3 >/dev/null 2>&1 ||
	fail "needs sqlite3 (apt-get install sqlite3 failed)"
synth="$FEEDSCOPE_BUILD/tests/synth_run"
mkdir nodes
"$synth" nodes/run-b.db 60 node-b 1 >/dev/null || fail "synth_run"
"$synth" nodes/run-a.db 60 node-a 0 >/dev/null || fail "synth_run"

# Several files: one report.
"$FEEDSCOPE" report nodes/run-a.db nodes/run-b.db >two.txt 2>err.txt || fail "report A B: exit $? ($(cat err.txt))"
[ -s err.txt ] && fail "report A B wrote to stderr: $(cat err.txt)"
grep -q '^feedscope: 2 run files, one per node, 2 training processes' two.txt || fail "no merged header: $(cat two.txt)"
grep -q '^  clock      aligned by wall clock (meta start_unix), corrected by up to .* from 1195 collective ends, ± ' two.txt ||
	fail "clock line: $(grep clock two.txt)"
grep -q '^  skew       step ends across ranks: median ' two.txt || fail "no skew line: $(cat two.txt)"
grep -q '^  straggler: rank [01] on node-[ab] (pid 100), the one that ' two.txt || fail "no straggler line: $(cat two.txt)"
grep -q '^verdict: ' two.txt || fail "no verdict: $(cat two.txt)"
grep -q 'feedscope: recorded' two.txt && fail "a merged report printed a file's summary"

# A directory: its *.db files sorted by name (run-a before run-b, though
# run-b was written first); other files, and a FIFO named *.db, are left out.
touch nodes/notes.txt
mkfifo nodes/zz.db
timeout 60 "$FEEDSCOPE" report nodes >dir.txt 2>err.txt || fail "report DIR: exit $? ($(cat err.txt))"
cmp -s two.txt dir.txt || fail "report DIR differs from report A B: $(diff two.txt dir.txt | head -5)"
rm nodes/zz.db nodes/notes.txt

"$FEEDSCOPE" report --json nodes/run-a.db nodes/run-b.db >two.json || fail "report --json A B"
/usr/bin/python3 -m json.tool two.json >/dev/null || fail "report --json A B: not JSON"
"$FEEDSCOPE" report --json --window 10:20 nodes >win.json || fail "report --json --window DIR"
/usr/bin/python3 -m json.tool win.json >/dev/null || fail "report --json --window: not JSON"
# node-b's clock 4 ms further ahead: the collectives must show it
cp nodes/run-b.db late.db
sqlite3 late.db "UPDATE meta SET value = printf('%.6f', value + 0.004) WHERE key = 'start_unix'" || fail "sqlite3"
"$FEEDSCOPE" report --json nodes/run-a.db late.db >late.json || fail "report --json A late"
# the same hostname twice: told apart by file name
cp nodes/run-a.db twin.db
sqlite3 twin.db "UPDATE meta SET value = 'node-b' WHERE key = 'hostname'" || fail "sqlite3"
"$FEEDSCOPE" report --json twin.db nodes/run-b.db >twin.json || fail "report --json twin B"
"$FEEDSCOPE" report --json nodes/run-a.db >one.json || fail "report --json A"
/usr/bin/python3 - <<'PY' || fail "JSON checks"
import json
d = json.load(open("two.json"))
v = d["verdict"]
assert v["primary"] in {"compute_bound", "storage_bandwidth", "storage_latency", "metadata", "cpu_preprocess",
                        "loader_parallelism", "network", "memory_pressure", "checkpoint_stall", "epoch_start",
                        "host_to_device", "undetermined"}, v["primary"]
for k in ("accounting", "findings", "signals_missing", "metrics"):      # the one-file keys stay
    assert k in d, k
assert d["files"] == 2, d["files"]
assert [n["node"] for n in d["nodes"]] == ["node-a", "node-b"], d["nodes"]
assert [n["file"] for n in d["nodes"]] == ["nodes/run-a.db", "nodes/run-b.db"], d["nodes"]
assert sum(n["straggler"] for n in d["nodes"]) == 1, d["nodes"]
assert len(d["ranks"]) == 2 and sorted(r["rank"] for r in d["ranks"]) == [0, 1], d["ranks"]
for r in d["ranks"]:
    assert set(r) >= {"rank", "local_rank", "node", "pid", "loop_s", "buckets", "input_wait_s", "lost_waiting_s",
                      "steps"}, r
    # a step every 50 ms for 60 s; node-b's recording began 0.25 s later
    assert r["steps"] == (1200 if r["node"] == "node-a" else 1195), r
    assert abs(sum(r["buckets"].values()) - 1) < 1e-6, r["buckets"]
s = d["straggler"]
assert set(s) >= {"rank", "node", "pid", "cause", "lost_by_others_s"}, s
assert s["cause"] == v["primary"] and s["pid"] == 100, s
other = [r for r in d["ranks"] if not r["straggler"]]
assert len(other) == 1 and abs(s["lost_by_others_s"] - other[0]["lost_waiting_s"]) < 1e-9, (s, other)
c = d["clock"]
# synth_run: node-b starts 0.25 s later by its wall clock, and its ranks
# leave each collective at the same instant as node-a's: nothing to correct
assert c["basis"] == "wall clock + collectives" and c["collective_ends"] == 1195, c
assert abs(d["nodes"][1]["offset_s"] - 0.25) < 1e-6, d["nodes"][1]
assert abs(c["max_correction_s"]) < 1e-4 and c["uncertainty_s"] < 1e-4, c
assert d["skew"]["steps"] == 1195 and d["skew"]["median_s"] < 1e-6 and d["skew"]["in_step"], d["skew"]
w = json.load(open("win.json"))
assert all(r["steps"] <= 201 for r in w["ranks"]) and w["skew"]["steps"] <= 201, (w["ranks"], w["skew"])
late = json.load(open("late.json"))
b = late["nodes"][1]
assert abs(b["clock_correction_s"] - 0.004) < 1e-3, b
twin = json.load(open("twin.json"))
assert [n["node"] for n in twin["nodes"]] == ["node-b (twin.db)", "node-b (run-b.db)"], twin["nodes"]
one = json.load(open("one.json"))                          # one file, one process: as before
assert not set(one) & {"ranks", "straggler", "nodes", "clock", "skew", "files"}, sorted(one)
PY

# Bad input: exit 2, one line on stderr, nothing on stdout, whatever the
# other files are.
bad() { # WHAT MESSAGE ARGS...
	what=$1 msg=$2
	shift 2
	timeout 60 "$FEEDSCOPE" report "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "report of $what: exit $rc, expected 2 ($(cat err.txt))"
	grep -qF "$msg" err.txt || fail "report of $what: expected '$msg' on stderr, got: $(cat err.txt)"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "report of $what: expected one line on stderr: $(cat err.txt)"
	[ -s out.txt ] && fail "report of $what wrote to stdout: $(head -3 out.txt)"
	return 0
}
mkfifo f.fifo
echo "not sqlite" >junk.db
cp nodes/run-a.db bench.db
sqlite3 bench.db "UPDATE meta SET value = 'bench' WHERE key = 'mode'" || fail "sqlite3"
mkdir empty
bad "a missing file" "missing.db: No such file or directory" nodes/run-a.db missing.db
bad "a FIFO" "f.fifo: is a FIFO, not a run file" nodes/run-a.db f.fifo
bad "a device" "/dev/null: is a device, not a run file" /dev/null nodes/run-b.db
bad "a file that is not a run file" "junk.db: file is not a database" nodes/run-a.db junk.db
bad "a bench run file" "bench.db: is a feedscope bench run file: report it alone" nodes/run-a.db bench.db
bad "the same file twice" "run-a.db: given twice" nodes/run-a.db nodes/run-b.db nodes/../nodes/run-a.db
bad "a directory and a file in it" "given twice" nodes nodes/run-b.db
bad "a directory without run files" "empty: is a directory without run files (*.db)" empty
bad "a bad window" "bad window" --window 20:10 nodes
exit 0
