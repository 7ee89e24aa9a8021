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

# Whatever a run file holds, what report prints is safe: escape sequences,
# C1 controls, newlines and invalid UTF-8 in every string the renderers
# print (command, loader, phase, disk, interface, GPU, file names, meta
# values), and infinities in rows and "nan"/"inf" in meta.
"$FEEDSCOPE_BUILD/tests/synth_run" evil.db 20 >/dev/null || fail "synth_run"
E="char(27)" BAD="CAST(x'ff' AS TEXT)" C1="CAST(x'c29b' AS TEXT)" L="'tr' || char(27) || '[1main' || CAST(x'ff' AS TEXT)"
sqlite3 evil.db <<SQL || fail "sqlite3"
INSERT OR REPLACE INTO meta VALUES ('command', 'python3 ' || $E || '[31mred' || $E || ']0;title' || char(7) || ' '
	|| $BAD || CAST(x'fe' AS TEXT) || ' ' || $C1 || '2J' || char(10) || 'fake line' || char(127) || char(13));
UPDATE meta SET value = 'inf' WHERE key = 'interval_s';
UPDATE meta SET value = 'nan' WHERE key = 'ncpu';
INSERT INTO meta VALUES ('source.gpu', 'unavailable: ' || $E || '[5mblink' || $BAD);
UPDATE steps SET loader = $L;
UPDATE meta SET key = 'loader.' || $L || '.num_workers' WHERE key = 'loader.train.num_workers';
INSERT INTO meta VALUES ('loader.' || $L || '.pin_memory', 'no' || $E || '[0m');
UPDATE disk SET device = 'loop0' || $E || '[2J' || $BAD WHERE device = 'loop0';
UPDATE net SET iface = 'eth' || $E || '[K' WHERE iface = 'eth0';
DELETE FROM gpu;
INSERT INTO gpu (t, gpu, name, util_pct, mem_used_bytes) VALUES (1.0, 0, 'GPU' || $E || '[41m' || $BAD, 50, 1000);
INSERT INTO phases VALUES (5.0, 9.0, 100, 'checkpoint');
INSERT INTO phases VALUES (1.0, 1.2, 100, 'ph' || $E || '[7m' || $BAD);
UPDATE proc SET cpu_pct = 9e999 WHERE role = 'worker';
UPDATE cgroup SET cpu_quota_cores = 9e999, throttled_pct = 40;
INSERT INTO files (pid, path, opens, reads, read_bytes) VALUES (101, '/data/' || $E || '[2J' || $BAD, 1, 1, 100);
SQL
# the same file, but CPU-bound (the cgroup quota and the loaders' cores are printed)
cp evil.db evil_cpu.db
sqlite3 evil_cpu.db "UPDATE proc SET running = threads, blocked_io = 0, sleeping = 0 WHERE role = 'worker'" || fail "sqlite3"
for f in evil.db evil_cpu.db; do
	"$FEEDSCOPE" report "$f" >"$f.txt" 2>"$f.err" || fail "report $f: exit $? ($(cat "$f.err"))"
	grep -q '^verdict: ' "$f.txt" || fail "report $f: no verdict: $(cat -v "$f.txt")"
	LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]' "$f.txt" "$f.err" | cat -v | head -3 | grep . &&
		fail "report $f printed a raw control character (above)"
	LC_ALL=C grep -naP '\xc2[\x80-\x9f]' "$f.txt" | cat -v | head -3 | grep . && fail "report $f printed a raw C1 control"
	/usr/bin/python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$f.txt" ||
		fail "report $f: the text is not valid UTF-8"
	grep -nwiE 'nan|inf|-nan|infinity' "$f.txt" && fail "report $f printed a number that is not finite (above)"
	grep -qF 'python3 \x1b[31mred\x1b]0;title\x07' "$f.txt" || fail "report $f: the command is not shown escaped"
	grep -qF 'fake line\x7f\x0d' "$f.txt" || fail "report $f: the command's newline/DEL/CR not shown escaped"
	grep -qF 'loop0\x1b[2J' "$f.txt" || fail "report $f: the disk name is not shown escaped"
	"$FEEDSCOPE" report --json "$f" >"$f.json" || fail "report --json $f"
done
grep -qF 'every nan steps' evil.db.txt && fail "checkpoint cadence printed as nan"
grep -qF '1 checkpoint, 4 s each' evil.db.txt || fail "the single checkpoint is not described: $(cat evil.db.txt)"
grep -q 'quota unknown' evil_cpu.db.txt || fail "an infinite cgroup quota is not 'unknown': $(cat evil_cpu.db.txt)"
/usr/bin/python3 - <<'PY' || fail "JSON of the hostile run files"
import json
for name in ("evil.db.json", "evil_cpu.db.json"):
    raw = open(name, "rb").read()
    text = raw.decode("utf-8")          # valid UTF-8, or this raises
    d = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError("bare " + c)))
    m = d["metrics"]
    assert m["loader"] == "tr\x1b[1main\ufffd", repr(m["loader"])
    assert m["disk"] == "loop0\x1b[2J\ufffd", repr(m["disk"])
    assert m["cgroup_quota_cores"] is None, m["cgroup_quota_cores"]
    assert m["ncpu"] == 0, m["ncpu"]
    for c in text:                    # no raw control character in the document
        assert not (ord(c) < 0x20 and c != "\n") and not (0x7f <= ord(c) <= 0x9f), repr(c)
PY

# A bench run file (feedscope bench --output) is summarised, not diagnosed:
# its strings are escaped the same way.
"$FEEDSCOPE_BUILD/tests/synth_run" bench.db 1 >/dev/null || fail "synth_run"
sqlite3 bench.db <<SQL || fail "sqlite3"
UPDATE meta SET value = 'bench' WHERE key = 'mode';
INSERT OR REPLACE INTO meta VALUES ('command', 'bench ' || $E || '[31m' || $BAD);
INSERT INTO bench (workload, epoch, accelerators, au, passed, engine, dir)
	VALUES ('unet' || $E || '[2J', -1, 2, 0.5, 0, 'psync' || $C1, '/d' || $E);
INSERT INTO bench_checkpoint (workload, bytes, write_bytes_per_s) VALUES ('ck' || $E || ']0;x' || char(7), 1e9, 9e999);
SQL
"$FEEDSCOPE" report bench.db >bench.txt || fail "report of a bench run file"
"$FEEDSCOPE" report --json bench.db >bench.json || fail "report --json of a bench run file"
grep -qF 'unet\x1b[2J' bench.txt || fail "bench workload not shown escaped: $(cat -v bench.txt)"
grep -qF 'ck\x1b]0;x\x07' bench.txt || fail "bench checkpoint name not shown escaped: $(cat -v bench.txt)"
LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' bench.txt | cat -v | grep . && fail "raw control in the bench report"
/usr/bin/python3 -c '
import json, sys
d = json.loads(open("bench.json", "rb").read().decode("utf-8"))
assert d["command"] == "bench \x1b[31m\ufffd", repr(d["command"])
assert d["bench"][0]["engine"] == "psync\x9b", d["bench"]
assert d["bench_checkpoint"][0]["write_bytes_per_s"] is None, d["bench_checkpoint"]
' || fail "JSON of the bench run file"

# An incomplete run: synth_run writes no end record; a recording whose
# recorder was killed has none either; a finished one has it.
"$FEEDSCOPE" report s.db >inc.txt || fail "report s.db"
grep -q '^  incomplete *the recording stopped at 59.9 s without an end record' inc.txt ||
	fail "summary does not say the run is incomplete: $(cat inc.txt)"
grep -q '^  incomplete: the recording stopped at 59.9 s' inc.txt || fail "verdict does not say the run is incomplete"
"$FEEDSCOPE" run -q -o k.db -i 0.05 -- sleep 30 &
fs=$!
for i in $(seq 100); do # until a second's samples are committed (a loaded machine starts slowly)
	[ -e k.db ] && [ "$(q k.db 'SELECT count(*) FROM ticks' 2>/dev/null)" -gt 10 ] 2>/dev/null && break
	sleep 0.2
done
kill -KILL $fs
wait $fs 2>/dev/null
job=$(q k.db "SELECT value FROM meta WHERE key='pid'")
[ -n "$job" ] && kill "$job" 2>/dev/null
"$FEEDSCOPE" run -q -o done.db -- sleep 0.3 || fail "run"
for f in k.db done.db; do "$FEEDSCOPE" report --json "$f" >"$f.json" || fail "report --json $f"; done
"$FEEDSCOPE" report k.db | grep -q 'incomplete: the recording stopped at' || fail "killed recording not called incomplete"
"$FEEDSCOPE" report done.db | grep -q 'incomplete' && fail "a finished recording called incomplete"
/usr/bin/python3 - <<'PY' || fail "incomplete in JSON"
import json
k, d, s = (json.load(open(n))["verdict"] for n in ("k.db.json", "done.db.json", "all.json"))
assert k["incomplete"] is True and 0.5 < k["recorded_until_s"] < 10, k
assert s["incomplete"] is True and abs(s["recorded_until_s"] - 59.9) < 0.2, s
assert d["incomplete"] is False, d
PY

# report reads a regular file (a symlink to one is fine); a FIFO, a device
# or a directory is refused at once, exit 2 (a FIFO used to hang in open).
ln -s s.db link.db
"$FEEDSCOPE" report link.db >/dev/null || fail "report through a symlink to a run file"
mkfifo f.fifo
mkdir empty.d # a directory of run files is a merged report (report_merge.sh); an empty one is refused
for f in f.fifo /dev/null empty.d; do
	timeout 20 "$FEEDSCOPE" report "$f" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "report $f: exit $rc, expected 2 at once ($(cat err.txt))"
	grep -q "is a\(n\)\? \(FIFO\|device\|directory\)" err.txt || fail "report $f: $(cat err.txt)"
	[ -s out.txt ] && fail "report $f wrote to stdout"
done

# stdout that cannot be written: exit 1 and say so (a full device, a pipe
# whose reader has gone), for text, JSON and a bench run file alike.
for args in "s.db" "--json s.db"; do
	"$FEEDSCOPE" report $args >/dev/full 2>err.txt
	rc=$?
	[ $rc -eq 1 ] || fail "report $args >/dev/full: exit $rc, expected 1"
	grep -q 'writing to stdout failed: No space left on device' err.txt || fail "report >/dev/full: $(cat err.txt)"
done
/usr/bin/python3 - "$FEEDSCOPE" <<'PY' || fail "report into a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)                          # the reader is gone before report writes
p = subprocess.run([sys.argv[1], "report", "s.db"], stdout=w, stderr=subprocess.PIPE, timeout=60)
assert p.returncode == 1, (p.returncode, p.stderr)
assert b"writing to stdout failed: Broken pipe" in p.stderr, p.stderr
PY
exit 0
