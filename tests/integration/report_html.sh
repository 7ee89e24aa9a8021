# feedscope report --format html: one self-contained file, loaded in a real
# browser (headless Chromium, Debian's `chromium`): no console message, no
# URL, an <svg> per timeline whose series have points, the min/max per
# column equal to the run file's own samples, hover that shows values, every
# run-file string escaped; for a real recorded PyTorch job, a synthetic
# 1-hour run and two nodes merged. Screenshots are kept in
# $FEEDSCOPE_BUILD/report_html/ (printed) to be looked at.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/browser.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || fail "needs $PY"
command -v sqlite3 >/dev/null 2>&1 || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq sqlite3 >/dev/null 2>&1; } ||
	fail "needs sqlite3 (apt-get install sqlite3 failed)"
need_chromium
SHOTS=$FEEDSCOPE_BUILD/report_html
mkdir -p "$SHOTS" || fail "cannot make $SHOTS"
SYNTH=$FEEDSCOPE_BUILD/tests/synth_run
[ -x "$SYNTH" ] || fail "no $SYNTH (make unit)"

# The console check can fail: a page whose script throws is caught.
printf '<!DOCTYPE html><html><body><script>throw new Error("planted")</script></body></html>\n' >throw.html
if (browse throw.html throw) >/dev/null 2>&1; then fail "a page that throws passed the console check"; fi

# The DOM checks (python, on the dumped DOM): CHARTS must each have a
# series with points; the phases strip is there; at most FS_HTML_COLUMNS
# points a series; the script ran (body data-hover).
check_dom() { # DOM NODES "CHART ..." [hover]
	"$PY" - "$@" <<'PY' || fail "DOM checks of $1 (above)"
import re, sys
dom, nodes, charts = open(sys.argv[1], encoding='utf-8').read(), int(sys.argv[2]), sys.argv[3].split()
hover = len(sys.argv) > 4
assert 'data-hover="ready"' in dom, "the report's script did not run"
svgs = re.findall(r'<svg class="timeline" data-chart="(\w+)"(.*?)</svg>', dom, re.S)
assert len(svgs) == 11 * nodes, ("timelines", len(svgs))
assert sum(1 for c, _ in svgs if c == "phases") == nodes
for i in range(nodes):
    mine = dict(svgs[11 * i:11 * i + 11])
    for c in charts:
        series = re.findall(r'<path class="series[^"]*"[^>]*data-points="(\d+)"[^>]*d="([^"]*)"', mine[c])
        assert series, (i, c, "no series")
        for pts, d in series:
            assert 0 < int(pts) <= 1200, (c, pts)
            assert len(re.findall(r'[ML]', d)) >= min(int(pts), 2), (c, d[:80])
assert len(re.findall(r'<script', dom)) == 1, "a script element that is not the report's"
assert not re.search(r'<[^>]*\s(src|href)\s*=', dom), "a src or href attribute in the report"
if hover:
    tip = re.search(r'<div id="tip" style="display: block;[^"]*">(.*?)</div>', dom, re.S)
    assert tip, "hover showed no values"
    assert tip.group(1).startswith("t = ") and ": " in tip.group(1).split("\n", 1)[1], tip.group(1)
PY
}

# Bad usage: exit 2, one line, nothing written.
"$SYNTH" s.db 3600 >/dev/null || fail "synth_run"
for args in "--format html s.db" "--format json -o x.html s.db" "-o x.html s.db" "--format html -o . s.db" \
	"--format html -o /dev/null s.db" "--format xml -o x.html s.db" "--format html -o nodir/x.html s.db"; do
	# shellcheck disable=SC2086
	"$FEEDSCOPE" report $args >out.txt 2>err.txt && fail "report $args: exit 0"
	rc=$?
	[ $rc -eq 2 ] || fail "report $args: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -s out.txt ] || fail "report $args: $(cat err.txt out.txt)"
done
[ ! -e x.html ] || fail "a refused report wrote x.html"

# A synthetic 1-hour run (0.1 s ticks): size and the browser's load time.
start=$(date +%s.%N)
"$FEEDSCOPE" report --format html -o s.html s.db || fail "report --format html"
made=$(date +%s.%N)
ls s.html.partial-* 2>/dev/null && fail "a partial file was left beside the report"
"$FEEDSCOPE" report --format html -o - s.db >stdout.html || fail "report --format html -o -"
cmp -s s.html stdout.html || fail "-o - and -o FILE differ (the report is not deterministic)"
grep -Eiq 'https?:|url\(|@import' s.html && fail "the report names a URL: $(grep -Eio '.{20}(https?:|url\(|@import).{20}' s.html | head -3)"
t0=$(date +%s.%N)
browse s.html s "#fs-hover-test"
t1=$(date +%s.%N)
printf '<!DOCTYPE html><html><body><p>blank</p></body></html>\n' >blank.html
browse blank.html blank
t2=$(date +%s.%N)
check_dom s.dom 1 "gpu wait threads cpu psi disk util net mem" hover
awk -v s="$(stat -c %s s.html)" -v a="$start" -v m="$made" -v b="$t0" -v c="$t1" -v d="$t2" 'BEGIN {
	printf "synthetic 1 h: %.0f KiB, report %.2f s, chromium --dump-dom %.2f s (a blank page: %.2f s)\n",
		s / 1024, m - a, c - b, d - c }'
shoot s.html "$SHOTS/synth-1h.png"

# The downsampling against the run file itself: each column of the GPU
# timeline holds the least and the largest util_pct of its ticks.
"$PY" - s.html s.db <<'PY' || fail "the GPU column min/max differ from the run file's samples"
import math, re, sqlite3, sys
html = open(sys.argv[1], encoding='utf-8').read()
svg = re.search(r'<svg class="timeline" data-chart="gpu" data-t0="([^"]+)" data-w="([^"]+)"(.*?)</svg>', html, re.S)
t0, w = float(svg.group(1)), float(svg.group(2))
v = re.search(r'data-v="([^"]*)"', svg.group(3)).group(1).split(";")
assert len(v) == 1200, len(v)
want = {}
for t, u in sqlite3.connect(sys.argv[2]).execute("SELECT t, util_pct FROM gpu"):
    c = min(int((t - t0) / w), 1199)  # the last tick, at the axis's end, is the last column's
    if 0 <= c:
        lo, hi = want.get(c, (u, u))
        want[c] = (min(lo, u), max(hi, u))
assert len(want) == 1200, len(want)
for c, cell in enumerate(v):
    got = [float(x) for x in cell.split(",")]
    lo, hi = got[0], got[-1]
    assert math.isclose(lo, want[c][0], rel_tol=1e-3) and math.isclose(hi, want[c][1], rel_tol=1e-3), (c, cell, want[c])
print("gpu: 1200 columns, each the min and max of %d ticks" % round(w / 0.1))
PY

# A window: the axis starts at its start.
"$FEEDSCOPE" report --format html --window 600:1200 -o win.html s.db || fail "report --window"
grep -q 'data-chart="gpu" data-t0="600"' win.html || fail "--window 600:1200: the axis does not start at 600"

# A real recorded job: PyTorch DataLoader with 2 workers, 3 epochs each
# ending with torch.save, a GPU from the tests' NVML stand-in.
NVML=$FEEDSCOPE_BUILD/tests/nvml/full
[ -e "$NVML/libnvidia-ml.so.1" ] || fail "no $NVML/libnvidia-ml.so.1 (make unit)"
"$PY" -c 'import torch' 2>/dev/null || fail "needs python3-torch for $PY (scripts/deps.sh test)"
printf 'count=1\ngpu0.name=Fake GPU\ngpu0.util=20,90,60,95\n' >nvml.txt
LD_LIBRARY_PATH=$NVML FAKE_NVML_SCRIPT=$PWD/nvml.txt "$FEEDSCOPE" run -q -o real.db -- "$PY" \
	"$FEEDSCOPE_TOP/tests/python/torch_job.py" --workers 2 --context fork --batch 4 --item-ms 8 --compute-ms 15 \
	--steps 25 --epochs 3 >job.out 2>job.err || fail "the recorded job failed: $(tail -5 job.err)"
"$FEEDSCOPE" report --format html -o real.html real.db || fail "report --format html of a real run"
browse real.html real "#fs-hover-test"
check_dom real.dom 1 "gpu wait threads cpu mem jobmem" hover
# The job's memory: the trainer's and its 2 workers' PSS stacked, each
# column's mean within the least and the largest per-tick sum of the run
# file in it; /dev/shm used as a line where the run file has it.
"$PY" - real.dom real.db <<'PY' || fail "the job memory chart (above)"
import re, sqlite3, sys
dom = open(sys.argv[1], encoding='utf-8').read()
svg = re.search(r'<svg class="timeline" data-chart="jobmem" data-t0="([^"]+)" data-w="([^"]+)"(.*?)</svg>', dom, re.S)
assert svg, "no jobmem chart"
t0, w = float(svg.group(1)), float(svg.group(2))
paths = {l: (k, v) for k, l, v in re.findall(r'<path class="series (\w+)" data-label="([^"]*)"[^>]*data-v="([^"]*)"', svg.group(3))}
db = sqlite3.connect(sys.argv[2])
trainer = db.execute("SELECT pid FROM steps GROUP BY pid ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
for label, where in (("main (trainer)", "pid = %d" % trainer), ("workers", "ppid = %d" % trainer)):
    assert label in paths and paths[label][0] == "area", (label, sorted(paths))
    want = {}
    for t, v in db.execute("SELECT t, sum(pss_bytes) FROM proc WHERE %s AND pss_bytes IS NOT NULL GROUP BY t" % where):
        c = min(int((t - t0) / w), 1199)
        lo, hi = want.get(c, (v, v))
        want[c] = (min(lo, v), max(hi, v))
    cells = paths[label][1].split(";")
    got = {c: float(x.split(",")[-1]) * 2**20 for c, x in enumerate(cells) if x}
    assert got and set(got) == set(want), (label, len(got), len(want))
    for c, v in got.items():
        assert want[c][0] * 0.999 <= v <= want[c][1] * 1.001, (label, c, v, want[c])
    print("jobmem %s: %d columns, each within its ticks' sums" % (label, len(got)))
shm = db.execute("SELECT count(dev_shm_bytes) FROM mem").fetchone()[0]
assert (shm > 0) == ("/dev/shm used" in paths), (shm, sorted(paths))
PY
grep -q '<rect class="ckpt"' real.dom || fail "no checkpoint shaded (torch.save ends each epoch)"
grep -q 'ckpt.pt' real.dom || fail "the files table does not list the checkpoint file"
grep -q 'loader.SleepyDataset.num_workers</td><td>2<' real.dom || fail "the loader knobs table lacks num_workers 2"
shoot real.html "$SHOTS/real-job.png"

# Hostile strings in the run file: each reaches the page as text only.
cp real.db hostile.db
sqlite3 hostile.db "UPDATE meta SET value = '<script>alert(1)</script>\"'' onx=' || CAST(X'1bff' AS TEXT) WHERE key = 'command';
	INSERT INTO meta VALUES ('loader.<img src=x onerror=alert(2)>.num_workers', '<b>9</b>');
	UPDATE files SET path = '\"><svg onload=alert(3)>' || CAST(X'c0af' AS TEXT);
	UPDATE steps SET loader = '</script><script>alert(4)</script>';" || fail "sqlite3"
"$FEEDSCOPE" report --format html -o hostile.html hostile.db || fail "report of hostile strings"
browse hostile.html hostile
check_dom hostile.dom 1 "gpu wait threads"
"$PY" - hostile.dom <<'PY' || fail "hostile strings (above)"
import re, sys
dom = open(sys.argv[1], encoding='utf-8').read()
for bad in ("<img", "<b>9", "<svg onload", "alert(4)</script>"):
    assert bad not in dom, bad
assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom and "\\x1b" in dom and "\ufffd" in dom
assert "&lt;img src=x onerror=alert(2)&gt;" in dom
PY

# Two nodes merged: one section per node on one axis, the nodes and ranks tables.
"$SYNTH" a.db 120 nodeA 0 >/dev/null && "$SYNTH" b.db 120 nodeB 1 >/dev/null || fail "synth_run nodes"
"$FEEDSCOPE" report --format html -o nodes.html a.db b.db || fail "report --format html of two nodes"
browse nodes.html nodes
check_dom nodes.dom 2 "gpu wait threads cpu psi disk net mem"
grep -q '<table id="nodes">' nodes.dom && grep -q '<table id="ranks">' nodes.dom || fail "no nodes or ranks table"
[ "$(grep -o 'data-chart="gpu" data-t0="[^"]*" data-w="[^"]*"' nodes.dom | sort -u | wc -l)" -eq 1 ] ||
	fail "the nodes' timelines are not on one axis"
shoot nodes.html "$SHOTS/two-nodes.png"
exit 0
