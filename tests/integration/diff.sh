# feedscope diff on two real runs of a PyTorch DataLoader job: each sample
# waits 10 ms (a sleep: a remote service), a step computes 5 ms; A loads
# in the main process (num_workers 0), B with two workers. The diff must
# name the knob that changed, give the step time and the buckets the run
# files' own steps give (worked out here with sqlite3, not with feedscope),
# say which run is faster by the same figures, parse as JSON, say that a
# run compared with itself does not differ, and refuse bad input (exit 2,
# nothing on stdout) before it prints anything.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
cd "$TEST_TMP" || fail "no TEST_TMP"
. "$FEEDSCOPE_TOP/tests/lib/diff_runs.sh"

"$FEEDSCOPE" diff a.db b.db >diff.txt 2>diff.err || fail "diff: exit $? ($(cat diff.err))"
"$FEEDSCOPE" diff --json a.db b.db >diff.json || fail "diff --json"
"$FEEDSCOPE" diff --format json --window 0:100000 a.db b.db >win.json || fail "diff --window"
"$FEEDSCOPE" diff --format json a.db a.db >same.json || fail "diff of a run with itself"
cat diff.txt

# the trainer's steps as the run file holds them (pid: the job's main
# process), and its epoch_end phases (the workers' shutdown), which are loop
# time too (docs/verdicts.md)
steps() { q "$1.db" "SELECT count(*), sum(wait_s), sum(compute_s),
	(SELECT total(t_end - t_start) FROM phases WHERE name = 'epoch_end' AND pid = s.pid)
	FROM steps s WHERE pid = (SELECT value FROM meta WHERE key = 'pid')"; }
"$PY" - "$(steps a)" "$(steps b)" <<'PY' || fail "JSON checks (above)"
import json, sys
def side(s):
    n, w, c, e = s.split("|")
    n, w, c, e = int(n), float(w), float(c), float(e)
    return n, (w + c + e) / n, w / (w + c + e)
(na, sa, wa), (nb, sb, wb) = side(sys.argv[1]), side(sys.argv[2])
d = json.load(open("diff.json"))
assert d["a"]["steps"] == na and d["b"]["steps"] == nb, (d["a"]["steps"], na, d["b"]["steps"], nb)
assert abs(d["a"]["step_s"] - sa) < 1e-9 and abs(d["b"]["step_s"] - sb) < 1e-9, (d["a"]["step_s"], sa)
assert abs(d["step_time_ratio"] - sb / sa) < 1e-9
# samples/s: steps x batch (4) / loop time
assert abs(d["a"]["samples_per_s"] - 4 / sa) < 1e-6, d["a"]["samples_per_s"]
# the input-wait bucket: the steps' wait share of the loop (one epoch: its
# boundary is the epoch_end phase alone)
for k, w in (("a", wa), ("b", wb)):
    assert abs(d[k]["buckets"]["input_wait"] - w) < 0.02, (k, d[k]["buckets"], w)
    assert abs(sum(d[k]["buckets"].values()) - 1) < 1e-6, d[k]["buckets"]
knobs = {p["key"]: (p["a"], p["b"]) for p in d["knobs"]}
assert knobs.get("num_workers") == ("0", "2"), d["knobs"]
assert all(p["main_loader"] for p in d["knobs"] if p["key"] == "num_workers")
env = {p["key"] for p in d["environment"]}
assert "command" in env, d["environment"]  # --workers 0 / --workers 2
assert not any(k.startswith("user.") for k in env)
h = d["headline"]
assert "num_workers 0 → 2" in h, h
# faster or slower, as the steps say (FS_DIFF_CHANGED = 10% of the larger step)
if sa - sb >= 0.1 * sa:
    assert h.startswith("B is ") and " faster per step" in h, h
elif sb - sa >= 0.1 * sb:
    assert " slower per step" in h, h
else:
    assert h.startswith("B is as fast per step"), h
assert not d["identical"]
for r in d["resources"]:
    assert set(r) >= {"metric", "unit", "a", "b", "ratio", "changed"}, r
w = json.load(open("win.json"))
assert w["knobs"] == d["knobs"]
s = json.load(open("same.json"))
assert s["identical"] and s["headline"].startswith("A and B do not differ"), s["headline"]
assert s["knobs"] == [] and s["environment"] == [] and s["resources_changed"] == 0
PY
# the text ends with the headline, the same as the JSON's
tail -1 diff.txt | grep -q '^B is ' || fail "the text does not end with the headline: $(tail -1 diff.txt)"
"$PY" -c 'import json, sys; h = json.load(open("diff.json"))["headline"]
sys.exit(open("diff.txt").read().rstrip("\n").split("\n")[-1] != h)' || fail "text and JSON headlines differ"

bad() {
	"$FEEDSCOPE" diff "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "diff $*: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "diff $*: expected one line on stderr: $(cat err.txt)"
	[ -s out.txt ] && fail "diff $*: wrote to stdout"
	return 0
}
mkfifo fifo.db
mkdir dir.db
echo "not sqlite" >junk.db
bad
bad a.db
bad a.db b.db a.db
bad a.db missing.db
bad missing.db a.db
bad a.db fifo.db
bad dir.db b.db
bad a.db junk.db
bad --format xml a.db b.db
bad --window 20:10 a.db b.db
bad --window abc a.db b.db
bad --bogus a.db b.db
"$FEEDSCOPE" diff --help | grep -q '^usage: feedscope diff' || fail "diff --help"
"$FEEDSCOPE" diff a.db b.db >/dev/full 2>err.txt
[ $? -eq 1 ] || fail "diff >/dev/full: expected exit 1"
exit 0
