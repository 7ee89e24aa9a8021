# A long window is read from the per-minute tables (report --resolution,
# docs/verdicts.md section 6): past FS_Q_TIER_TICKS ticks by default, on
# request at any length, never where the file has none. What the report
# says from them must be what every sample says: the verdict, the
# accounting's buckets within half a point, every figure of the metrics
# within 1% (the per-minute tables keep means, extremes and sums, not the
# samples: a maximum of sums over processes is read as the largest minute's
# mean). Two synthetic hours at 0.1 s (72 000 ticks); a DDP node's
# collectives over 2.5 hours, their raw rows let go past the first hour.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
cd "$TEST_TMP" || fail "no TEST_TMP"
"$FEEDSCOPE_BUILD/tests/synth_run" b.db 7200 >/dev/null || fail "synth_run"
res() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"]["resolution"])' "$1"; }

"$FEEDSCOPE" report --format json b.db >auto.json || fail "report (auto)"
"$FEEDSCOPE" report --format json --resolution raw b.db >raw.json || fail "report --resolution raw"
"$FEEDSCOPE" report --format json --resolution minute b.db >minute.json || fail "report --resolution minute"
[ "$(res auto.json)" = minute ] || fail "two hours of ticks: auto read $(res auto.json), not the per-minute tables"
[ "$(res raw.json)" = raw ] || fail "--resolution raw read $(res raw.json)"
cmp -s auto.json minute.json || fail "auto and --resolution minute differ on a two-hour run"

/usr/bin/python3 - raw.json minute.json <<'EOF' || fail "the per-minute report differs from every sample's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
if a["verdict"]["primary"] != b["verdict"]["primary"]:
    bad.append("verdict %s, per minute %s" % (a["verdict"]["primary"], b["verdict"]["primary"]))
def walk(x, y, path, tol, absolute):
    if isinstance(x, dict):
        for k in x:
            if k not in y:
                bad.append(path + "." + k + " missing per minute")
            else:
                walk(x[k], y[k], path + "." + k, tol, absolute)
    elif isinstance(x, list):
        if len(x) != len(y):
            bad.append("%s: %d items, per minute %d" % (path, len(x), len(y)))
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, "%s[%d]" % (path, i), tol, absolute)
    elif isinstance(x, bool) or not isinstance(x, (int, float)):
        if x != y and not path.endswith(".resolution"):
            bad.append("%s: %r, per minute %r" % (path, x, y))
    elif not isinstance(y, (int, float)):
        bad.append("%s: %r, per minute %r" % (path, x, y))
    else:
        d = abs(x - y) if absolute else abs(x - y) / max(abs(x), abs(y), 1e-12)
        if d > tol:
            bad.append("%s: %.6g, per minute %.6g" % (path, x, y))
n = 0
# the training process's CPU inside its waits is fitted over its raw
# samples against its steps' waits, never per minute (docs/verdicts.md,
# "main_process"): null there
for k in ("main_cpu_in_wait_cores", "main_cpu_in_compute_cores", "main_cpu_basis"):
    if b["metrics"].get(k) is not None:
        bad.append("metrics.%s: %r per minute, where it is not measured" % (k, b["metrics"][k]))
    a["metrics"].pop(k, None), b["metrics"].pop(k, None)
for m in (a["metrics"],):
    walk(m, b["metrics"], "metrics", 0.01, False)
# On the device's clock (docs/verdicts.md, "The device's clock") the idle
# inside the waits is an upper bound taken a bin at a time: a second from
# every sample, a minute from the per-minute tables, and the sum of minima
# grows with the bin. So per minute it lies between every sample's figure
# and the host's waits, and what it takes from busy it gives to the input
# wait; every other bucket is the same.
def device_clock(x, y, path, proc):
    if "device clock" not in str(x.get("basis")):
        return
    for k in ("device_idle_in_wait_s", "device_idle_in_wait_lower_s"):
        x.pop(k, None), y.pop(k, None)
    bx, by = x["buckets"], y["buckets"]
    host = proc["wait_s"] / proc["loop_s"]
    if not (bx["input_wait"] - 0.005 <= by["input_wait"] <= host + 0.005):
        bad.append("%s input_wait %.6g, per minute %.6g: not between it and the host's waits %.6g"
                   % (path, bx["input_wait"], by["input_wait"], host))
    if abs((bx["busy"] + bx["input_wait"]) - (by["busy"] + by["input_wait"])) > 0.005:
        bad.append("%s busy + input_wait %.6g, per minute %.6g" % (path, bx["busy"] + bx["input_wait"],
                   by["busy"] + by["input_wait"]))
    for k in ("busy", "input_wait"):
        bx.pop(k), by.pop(k)
trainer = [p for p in a["accounting"]["processes"] if p["trainer"]][0]
device_clock(a["accounting"], b["accounting"], "accounting", trainer)
for i, (x, y) in enumerate(zip(a["accounting"]["processes"], b["accounting"]["processes"])):
    device_clock(x, y, "accounting.processes[%d]" % i, x)
walk(a["accounting"], b["accounting"], "accounting", 0.005, True)
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# the HTML timelines per minute (asked for): the same series, a point a minute
"$FEEDSCOPE" report --format html --resolution raw -o raw.html b.db &&
	"$FEEDSCOPE" report --format html --resolution minute -o minute.html b.db || fail "report --format html"
grep -q "timelines per minute" minute.html || fail "the per-minute HTML does not say so"
grep -o 'label="[^"]*"' raw.html >raw.labels && grep -o 'label="[^"]*"' minute.html >minute.labels || fail "no series in the HTML"
cmp -s raw.labels minute.labels || { diff raw.labels minute.labels | head; fail "the per-minute HTML has other series"; }
grep -o 'data-points="[0-9]*"' minute.html | grep -qv 'data-points="1[12][0-9]"' &&
	fail "a per-minute series of two hours has not 110 to 129 points: $(grep -o 'data-points="[0-9]*"' minute.html | sort | uniq -c)"

# by default a window past an hour of ticks but narrower than 20 hours
# (a minute wider than a column) is drawn from series_1s: the node's
# series, a point per column (1200 columns of 6 s); a file without it
# (schema 8) per minute
"$FEEDSCOPE" report --format html -o second.html b.db || fail "report --format html (auto)"
grep -q "timelines per second" second.html || fail "the auto HTML of two hours is not per second"
grep -o 'label="[^"]*"' second.html | LC_ALL=C sort -u | tr '\n' ';' >second.labels
[ "$(cat second.labels)" = 'label="GPU";label="all loaders";label="available";label="blocked in I/O (D)";label="busiest disk read";label="busiest disk write";label="busiest disk";label="busiest interface rx";label="busiest interface tx";label="busy";label="cpu some";label="dirty";label="io full";label="io some";label="iowait";label="memory some";label="other";label="page cache";label="running";label="sleeping";' ] ||
	fail "per-second series: $(cat second.labels)"
grep -o 'data-points="[0-9]*"' second.html | grep -qv 'data-points="1[12][0-9][0-9]"' &&
	fail "a per-second series of two hours has not 1100 to 1299 points: $(grep -o 'data-points="[0-9]*"' second.html | sort | uniq -c)"
cp b.db s8.db && sqlite3 s8.db "DROP TABLE series_1s" || fail "copy without series_1s"
"$FEEDSCOPE" report --format html -o s8.html s8.db && grep -q "timelines per minute" s8.html ||
	fail "a file without series_1s is not drawn per minute"

# a short window of the same file: every sample
"$FEEDSCOPE" report --format json --window 600:1800 b.db >w.json || fail "report --window 600:1800"
[ "$(res w.json)" = raw ] || fail "a 20-minute window read $(res w.json)"
"$FEEDSCOPE" report --format json --window 0:7200 b.db >w2.json || fail "report --window 0:7200"
[ "$(res w2.json)" = minute ] || fail "the whole run as a window read $(res w2.json)"
# the text says how it was read
"$FEEDSCOPE" report b.db >b.txt || fail "report (text)"
grep -q "read per minute" b.txt || fail "the text report does not say it read the per-minute tables"
"$FEEDSCOPE" report --resolution raw b.db | grep -q "read per minute" && fail "raw text says per minute"
# a file without per-minute tables (schema 5): every sample, even when asked
cp b.db old.db && sqlite3 old.db "DROP TABLE ticks_1m" || fail "copy without ticks_1m"
"$FEEDSCOPE" report --format json --resolution minute old.db >old.json || fail "report --resolution minute (no tiers)"
[ "$(res old.json)" = raw ] || fail "a file without ticks_1m was read as $(res old.json)"
# a DDP node (a collective per step) past its first hour: its collectives
# between the raw windows are gone (store/retain.h), phases_1m counts them;
# the per-minute report's collective bucket ("other_ranks") and collective
# time within half a point / 1% of every raw row's of the --keep-all twin
"$FEEDSCOPE_BUILD/tests/synth_run" d.db 9000 node0 0 >/dev/null || fail "synth_run (DDP)"
"$FEEDSCOPE_BUILD/tests/synth_run" --keep-all dk.db 9000 node0 0 >/dev/null || fail "synth_run --keep-all (DDP)"
"$FEEDSCOPE" report --format json d.db >d.json || fail "report (DDP)"
"$FEEDSCOPE" report --format json --resolution raw dk.db >dk.json || fail "report --resolution raw (DDP, keep-all)"
[ "$(res d.json)" = minute ] || fail "the DDP run was read $(res d.json)"
[ "$(q d.db "SELECT count(*) FROM phases WHERE name = 'collective'")" -lt \
	"$(q dk.db "SELECT count(*) FROM phases WHERE name = 'collective'")" ] || fail "no collective was let go"
/usr/bin/python3 - d.json dk.json <<'EOF' || fail "the per-minute collectives differ from every raw one's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
x, y = a["accounting"]["buckets"]["other_ranks"], b["accounting"]["buckets"]["other_ranks"]
assert y > 0.1 and abs(x - y) <= 0.005, (x, y)
cx, cy = a["accounting"]["processes"][0]["collective_s"], b["accounting"]["processes"][0]["collective_s"]
assert abs(cx - cy) <= 0.01 * cy, (cx, cy)
assert a["verdict"]["primary"] == b["verdict"]["primary"], (a["verdict"]["primary"], b["verdict"]["primary"])
print("collective bucket: per minute %.6f, raw %.6f; collective time %.3f s, raw %.3f s" % (x, y, cx, cy))
EOF
echo "DDP node, 9000 s: retained $(wc -c <d.db) bytes, every row $(wc -c <dk.db) bytes"

# a bad value: exit 2 before reading anything
"$FEEDSCOPE" report --resolution hourly b.db >/dev/null 2>err
[ $? = 2 ] || fail "--resolution hourly: not exit 2"
grep -q "unknown resolution 'hourly'" err || fail "--resolution hourly: $(cat err)"
echo "report_tier ok"
