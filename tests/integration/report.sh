# feedscope report: options in any order, bad input exits 2, JSON is one
# valid document with the documented keys, --window restricts the analysis.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3
"$FEEDSCOPE_BUILD/tests/synth_run" s.db 60 >/dev/null || fail "synth_run"

bad() {
	"$FEEDSCOPE" report "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "report $*: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "report $*: expected one line on stderr: $(cat err.txt)"
	[ -s out.txt ] && fail "report $*: wrote to stdout"
	return 0
}
bad
bad s.db s.db
bad --format xml s.db
bad --window 20:10 s.db
bad --window abc s.db
bad --window 5 s.db
bad --bogus s.db
bad missing.db
echo "not sqlite" >junk.db
"$FEEDSCOPE" report junk.db >/dev/null 2>err.txt; rc=$?
[ $rc -eq 1 ] || fail "report of a non-run file: exit $rc, expected 1"

"$FEEDSCOPE" report s.db --format json >all.json || fail "report --format json"
"$FEEDSCOPE" report --json --window 10:20 s.db >win.json || fail "report --window"
/usr/bin/python3 - <<'PY' || fail "JSON checks"
import json
a = json.load(open("all.json"))
w = json.load(open("win.json"))
ids = {"compute_bound", "storage_bandwidth", "storage_latency", "metadata", "cpu_preprocess",
       "loader_parallelism", "network", "memory_pressure", "checkpoint_stall", "epoch_start",
       "host_to_device", "undetermined"}
for d in (a, w):
    v = d["verdict"]
    assert v["primary"] in ids, v["primary"]
    for k in ("input_bound_fraction", "confidence", "predicted_speedup", "evidence", "recommendations"):
        assert k in v, k
    assert 0 <= v["input_bound_fraction"] <= 1 and 0 <= v["confidence"] <= 1
    for e in v["evidence"]:
        assert set(e) >= {"metric", "value", "unit", "source"}, e
    for r in v["recommendations"]:
        assert set(r) >= {"knob", "current", "suggested", "why"}, r
    for f in d["findings"]:
        assert set(f) >= {"id", "severity", "fraction_of_time", "evidence"}, f
    assert isinstance(d["signals_missing"], list) and isinstance(d["metrics"], dict)
# synth_run: a step every 50 ms, 2 per 0.1 s tick: 1200 steps in 60 s, 200 in 10..20 s
assert a["metrics"]["steps"] == 1200, a["metrics"]["steps"]
assert abs(w["metrics"]["steps"] - 200) <= 2, w["metrics"]["steps"]
assert abs(w["metrics"]["duration_s"] - 10) < 0.2, w["metrics"]["duration_s"]
PY
"$FEEDSCOPE" report s.db >text.txt || fail "report text"
grep -q '^verdict: ' text.txt || fail "no verdict line: $(cat text.txt)"
grep -q 'feedscope: recorded' text.txt || fail "no summary in the text report"

# Which disk the diagnosis names: the one read most, unless a stacked device
# (loop, dm, md) carries at least 80% of that (the disk under it passes its
# reads on). synth_run's reads are on loop0; nvme0n1 is given more.
disk_named() { # FACTOR: nvme0n1 reads FACTOR x loop0's; prints the disk named
	cp s.db "st$1.db"
	sqlite3 "st$1.db" "UPDATE disk SET read_bytes_per_s = $1 * (SELECT l.read_bytes_per_s FROM disk l
		WHERE l.t = disk.t AND l.device = 'loop0') WHERE device = 'nvme0n1'" || fail "sqlite3"
	"$FEEDSCOPE" report --json "st$1.db" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["metrics"]["disk"])'
}
[ "$(disk_named 1.1)" = loop0 ] || fail "loop0 carries 91% of nvme0n1's reads: expected loop0, got $(disk_named 1.1)"
[ "$(disk_named 2)" = nvme0n1 ] || fail "loop0 carries 50% of nvme0n1's reads: expected nvme0n1, got $(disk_named 2)"
exit 0
