# A window's rows are read by rowid range (rowids_1m, docs/verdicts.md
# section 6): the figures must be the ones a whole-table scan gives. One
# synthetic 20 minutes at 0.1 s, reported over windows at minute boundaries, inside
# one minute, across many, at the edges and the whole run, with and without
# rowids_1m (a file from before it: the whole range; JSON and HTML), and as a file still
# being recorded looks (its latest minutes not yet in rowids_1m). The JSON
# documents must be identical.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
cd "$TEST_TMP" || fail "no TEST_TMP"
"$FEEDSCOPE_BUILD/tests/synth_run" a.db 1200 >/dev/null || fail "synth_run"
[ "$(q a.db "SELECT count(*) FROM rowids_1m WHERE tbl = 'proc'")" = 20 ] || fail "rowids_1m: not one proc row a minute"
# every raw row in exactly one minute's span, and a tick table's rows in the
# span of the minute their t is in
[ "$(q a.db "SELECT sum(last - first + 1) FROM rowids_1m WHERE tbl = 'proc'")" = "$(q a.db "SELECT count(*) FROM proc")" ] ||
	fail "rowids_1m: proc spans do not cover its rows once"
[ "$(q a.db "SELECT count(*) FROM proc p JOIN rowids_1m r ON r.tbl = 'proc' AND p.rowid BETWEEN r.first AND r.last
	WHERE NOT (p.t > r.t - 60 AND p.t <= r.t) AND NOT (p.t = 0 AND r.t = 60)")" = 0 ] ||
	fail "rowids_1m: a proc row outside its minute's span"
cp a.db none.db && sqlite3 none.db "DROP TABLE rowids_1m" || fail "copy without rowids_1m"
cp a.db live.db && sqlite3 live.db "DELETE FROM rowids_1m WHERE t > 600" || fail "copy as while recording"
for w in 600:660 630.5:631.5 0:300 59.95:60.05 1000:1200 1190:1500 100.5:1000.25 500:700 650:1000 0:1200; do
	"$FEEDSCOPE" report --format json --window "$w" a.db >a.json || fail "report --window $w"
	for f in none live; do
		"$FEEDSCOPE" report --format json --window "$w" $f.db >$f.json || fail "report --window $w ($f)"
		cmp -s a.json $f.json || { diff a.json $f.json | head -20; fail "window $w: $f.db's figures differ from a.db's"; }
	done
	grep -q '"verdict"' a.json || fail "window $w: no verdict in the JSON"
done
# the HTML report's timelines and tables read windows the same way
"$FEEDSCOPE" report --format html --window 500:700 -o a.html a.db && "$FEEDSCOPE" report --format html --window 500:700 -o none.html none.db ||
	fail "report --format html --window"
sed 's/none\.db/a.db/g' none.html | cmp -s - a.html || fail "the HTML report of a window differs with and without rowids_1m"
"$FEEDSCOPE" report --format json a.db >a.json && "$FEEDSCOPE" report --format json none.db >none.json ||
	fail "report of the whole run"
cmp -s a.json none.json || fail "the whole run's figures differ with and without rowids_1m"
echo "report_window ok"
