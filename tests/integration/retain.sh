# A run file past its first hour keeps the raw rows of that hour, of the
# latest hour, and what the analysis reads raw in between (the GPU's
# samples inside phases, each epoch's first steps; stalls: unit/test_retain),
# around each new generation of DataLoader workers (a job without steps),
# and the per-minute tables of the whole run (store/retain.h). Three
# synthetic hours of one DDP node (a collective phase per step) through
# the store, with and without --keep-all: the
# middle hour's raw rows and collectives are gone (phases_1m counts them),
# the file is smaller, its freed pages are
# reused, and the report says the same from both files; a window inside
# the middle hour is read per minute.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
cd "$TEST_TMP" || fail "no TEST_TMP"
"$FEEDSCOPE_BUILD/tests/synth_run" r.db 10800 node0 0 >/dev/null || fail "synth_run"
"$FEEDSCOPE_BUILD/tests/synth_run" --keep-all k.db 10800 node0 0 >/dev/null || fail "synth_run --keep-all"
[ "$(q k.db "SELECT value FROM meta WHERE key = 'retention'")" = all ] || fail "--keep-all: meta retention"

# the first and the latest hour: every tick, in both
for f in r k; do
	[ "$(q $f.db "SELECT count(*) FROM ticks WHERE t <= 3600")" = "$(q k.db "SELECT count(*) FROM ticks WHERE t <= 3600")" ] ||
		fail "$f.db: the first hour's ticks are not all there"
	[ "$(q $f.db "SELECT count(*) FROM proc WHERE t > 7200")" = "$(q k.db "SELECT count(*) FROM proc WHERE t > 7200")" ] ||
		fail "$f.db: the latest hour's process samples are not all there"
	[ "$(q $f.db "SELECT count(*) FROM ticks_1m")" = 180 ] || fail "$f.db: not 180 minutes of ticks_1m"
done
# the middle hour (its minutes left the latest hour while recording): no
# tick, no process sample; GPU samples only inside phases (checkpoints);
# steps only the first of each epoch
mid="t > 3600 AND t <= 7140"
[ "$(q r.db "SELECT count(*) FROM ticks WHERE $mid")" = 0 ] || fail "middle hour: ticks kept"
[ "$(q r.db "SELECT count(*) FROM proc WHERE $mid")" = 0 ] || fail "middle hour: proc rows kept"
[ "$(q r.db "SELECT count(*) FROM disk WHERE $mid")" = 0 ] || fail "middle hour: disk rows kept"
[ "$(q k.db "SELECT count(*) FROM proc WHERE $mid")" -gt 0 ] || fail "--keep-all: middle hour's proc rows gone"
g=$(q r.db "SELECT count(*) FROM gpu WHERE $mid")
[ "$g" -gt 0 ] || fail "middle hour: the GPU's samples inside checkpoints are gone"
[ "$(q r.db "SELECT count(*) FROM gpu g WHERE g.t > 3660 AND g.t <= 7080 AND NOT EXISTS (SELECT 1 FROM phases p
	WHERE p.name <> 'collective' AND g.t >= p.t_start - 2 AND g.t <= p.t_end + 2)")" = 0 ] ||
	fail "middle hour: GPU samples kept outside the phases"
[ "$(q r.db "SELECT count(*) FROM steps WHERE t > 3660 AND t <= 7080 AND step >= 64")" = 0 ] ||
	fail "middle hour: steps past each epoch's first 64 kept"
[ "$(q r.db "SELECT count(*) FROM steps WHERE t > 3660 AND t <= 7080 AND step = 0")" = \
	"$(q k.db "SELECT count(*) FROM steps WHERE t > 3660 AND t <= 7080 AND step = 0")" ] ||
	fail "middle hour: an epoch's step 0 is gone"
# the collectives: those of the first and the latest hour all there, none
# in between; the per-minute table counts every one, as the raw rows of the
# --keep-all twin do; the other phases are whole
coll="SELECT count(*) FROM phases WHERE name = 'collective'"
for w in "t_end <= 3600" "t_end > 7260"; do
	[ "$(q r.db "$coll AND $w")" = "$(q k.db "$coll AND $w")" ] || fail "collectives with $w: not all kept"
done
[ "$(q k.db "$coll AND t_end > 3600 AND t_end <= 7140")" -gt 0 ] || fail "--keep-all: no collectives in the middle hour"
[ "$(q r.db "$coll AND t_end > 3660 AND t_end <= 7080")" = 0 ] || fail "middle hour: collectives kept"
for f in r k; do
	[ "$(q $f.db "SELECT sum(n) FROM phases_1m WHERE name = 'collective'")" = "$(q k.db "$coll")" ] ||
		fail "$f.db: phases_1m does not count every collective"
done
[ "$(q r.db "SELECT count(*) FROM phases WHERE name <> 'collective'")" = \
	"$(q k.db "SELECT count(*) FROM phases WHERE name <> 'collective'")" ] || fail "phases other than collectives deleted"
echo "collectives: $(q r.db "$coll") kept of $(q k.db "$coll")"
# smaller, and the pages the deletes freed went to later rows
rs=$(wc -c <r.db) ks=$(wc -c <k.db)
[ "$rs" -lt $((ks * 8 / 10)) ] || fail "the retained file ($rs bytes) is not smaller than the kept one ($ks)"
[ "$(q r.db "PRAGMA freelist_count")" -lt $(($(q r.db "PRAGMA page_count") / 100)) ] ||
	fail "freed pages not reused: $(q r.db "PRAGMA freelist_count") free of $(q r.db "PRAGMA page_count")"
echo "retained $rs bytes, every row $ks bytes; middle hour: $g GPU samples kept"

# the report: the same from both (both read per minute: 3 hours)
"$FEEDSCOPE" report --format json r.db >r.json && "$FEEDSCOPE" report --format json k.db >k.json || fail "report"
sed 's/r\.db/k.db/g' r.json | cmp -s - k.json || { diff r.json k.json | head; fail "the reports differ"; }
# a window in the middle hour: per minute (its raw rows are gone); in
# the first hour: every sample
"$FEEDSCOPE" report --format json --window 5000:5600 r.db >w.json || fail "report --window 5000:5600"
grep -q '"resolution":"minute"' w.json || fail "a window without raw rows was not read per minute"
grep -q '"steps":0\b' w.json && fail "the middle hour's window has no steps"
"$FEEDSCOPE" report --format json --window 5000:5600 k.db >wk.json || fail "report --window (keep-all)"
grep -q '"resolution":"raw"' wk.json || fail "a window with every raw row was not read raw"
"$FEEDSCOPE" report --format json --window 600:1200 r.db >h.json || fail "report --window 600:1200"
grep -q '"resolution":"raw"' h.json || fail "a window in the first hour was not read raw"
# without step timing, the epoch boundaries come from the DataLoader
# workers' restarts (analysis/load/epochs.c): the rows around each new generation
# are kept (every table, 30 s either side), so the per-minute report finds
# every restart of the middle hour, and the same seconds, as every raw row
# of the --keep-all twin does
"$FEEDSCOPE_BUILD/tests/synth_run" --epochs 600 e.db 9000 >/dev/null || fail "synth_run --epochs"
"$FEEDSCOPE_BUILD/tests/synth_run" --keep-all --epochs 600 ek.db 9000 >/dev/null || fail "synth_run --keep-all --epochs"
[ "$(q e.db "SELECT count(*) FROM proc WHERE t > 3900 AND t <= 4100")" = 0 ] || fail "--epochs: rows kept between restarts"
[ "$(q e.db "SELECT count(*) FROM proc WHERE t > 4180 AND t <= 4220")" = \
	"$(q ek.db "SELECT count(*) FROM proc WHERE t > 4180 AND t <= 4220")" ] || fail "--epochs: the rows around a restart are gone"
"$FEEDSCOPE" report --format json e.db >e.json && "$FEEDSCOPE" report --format json --resolution raw ek.db >ek.json ||
	fail "report (--epochs)"
/usr/bin/python3 - e.json ek.json <<'EOF' || fail "the epoch boundaries of the retained file differ from every row's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["verdict"]["resolution"] == "minute" and b["verdict"]["resolution"] == "raw"
x, y = a["metrics"]["epoch_start_excess_s"], b["metrics"]["epoch_start_excess_s"]
# 14 restarts (every 600 s), the GPU idle about 6 s at each
assert y > 13 * 5 and abs(x - y) <= 0.01 * y, (x, y)
u, v = a["accounting"]["buckets"]["epoch_boundary"], b["accounting"]["buckets"]["epoch_boundary"]
assert abs(u - v) <= 0.005, (u, v)
print("epoch boundaries: %.1f s per minute, %.1f s raw" % (x, y))
EOF
# feedscope run writes what it keeps
"$FEEDSCOPE" run -q -o run.db --keep-all -- true || fail "run --keep-all"
[ "$(q run.db "SELECT value FROM meta WHERE key = 'retention'")" = all ] || fail "run --keep-all: meta retention"
"$FEEDSCOPE" run -q -o run2.db -- true || fail "run"
q run2.db "SELECT value FROM meta WHERE key = 'retention'" | grep -q "^first 3600 s, latest 3600 s" ||
	fail "run: meta retention $(q run2.db "SELECT value FROM meta WHERE key = 'retention'")"
echo "retain ok"
