# The merged report of nodes whose run files went past their first hour
# (store/retain.h): their collectives are kept in the first and the latest
# hour only (phases_1m counts them all). The clocks are aligned on the
# first hour's collectives (analysis/compare/merge.c), and the straggler, the
# others' loss and each rank's buckets are those of the --keep-all twins
# (every collective kept). Two DDP nodes, 2.5 synthetic hours each.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
[ -x /usr/bin/python3 ] || apt-get install -y -q python3 >/dev/null 2>&1 || fail "needs /usr/bin/python3 (apt-get failed)"
command -v sqlite3 >/dev/null 2>&1 || apt-get install -y -q sqlite3 >/dev/null 2>&1 ||
	fail "needs sqlite3 (apt-get install sqlite3 failed)"
cd "$TEST_TMP" || fail "no TEST_TMP"
synth="$FEEDSCOPE_BUILD/tests/synth_run"
for n in a:0 b:1; do
	"$synth" r-${n%:*}.db 9000 node-${n%:*} ${n#*:} >/dev/null || fail "synth_run node-${n%:*}"
	"$synth" --keep-all k-${n%:*}.db 9000 node-${n%:*} ${n#*:} >/dev/null || fail "synth_run --keep-all node-${n%:*}"
done
coll="SELECT count(*) FROM phases WHERE name = 'collective'"
[ "$(q r-b.db "$coll AND t_end > 3660 AND t_end <= 5280")" = 0 ] || fail "node-b kept collectives past its first hour"
head=$(q r-b.db "$coll AND t_end <= 3600")
# node-b's clock 4 ms ahead by its wall clock: the collectives correct it
cp r-b.db late-r.db && cp k-b.db late-k.db || fail "cp"
for f in late-r late-k; do
	sqlite3 $f.db "UPDATE meta SET value = printf('%.6f', value + 0.004) WHERE key = 'start_unix'" || fail "sqlite3"
done
"$FEEDSCOPE" report --json r-a.db r-b.db >r.json && "$FEEDSCOPE" report --json k-a.db k-b.db >k.json ||
	fail "report --json A B"
"$FEEDSCOPE" report --json r-a.db late-r.db >lr.json && "$FEEDSCOPE" report --json k-a.db late-k.db >lk.json ||
	fail "report --json A late-B"
/usr/bin/python3 - "$head" <<'PY' || fail "the merged report of the retained files differs from the kept ones'"
import json, sys
head = int(sys.argv[1])
r, k, lr, lk = (json.load(open(p)) for p in ("r.json", "k.json", "lr.json", "lk.json"))
# the first hour's collectives align the clocks, all of them the kept twins'
# (node-b's, less those before node-a began: 0.25 s of steps)
assert head - 10 <= r["clock"]["collective_ends"] <= head, (r["clock"], head)
assert k["clock"]["collective_ends"] > 2 * head, k["clock"]
for x, y in ((r, k), (lr, lk)):
    assert x["straggler"]["node"] == y["straggler"]["node"] and x["straggler"]["pid"] == y["straggler"]["pid"], \
        (x["straggler"], y["straggler"])
    a, b = x["straggler"]["lost_by_others_s"], y["straggler"]["lost_by_others_s"]
    assert abs(a - b) <= 0.01 * b, (a, b)
    for u, v in zip(x["ranks"], y["ranks"]):
        for name, share in v["buckets"].items():
            assert abs(u["buckets"][name] - share) <= 0.005, (u["node"], name, u["buckets"][name], share)
# the 4 ms: found from the first hour alone as from every collective
for x in (lr, lk):
    c = abs(x["clock"]["max_correction_s"])
    assert abs(c - 0.004) < 0.0005, x["clock"]
print("collective ends: %d (first hour) vs %d kept; lost by the others %.1f s vs %.1f s" %
      (r["clock"]["collective_ends"], k["clock"]["collective_ends"], r["straggler"]["lost_by_others_s"],
       k["straggler"]["lost_by_others_s"]))
PY
echo "report_merge_retain ok"
