# feedscope diff --format html on two real runs of a PyTorch DataLoader job
# (as tests/integration/diff.sh makes them: each sample waits 10 ms, a step
# computes 5 ms; A loads in the main process, B with two workers), loaded
# in a real browser (headless Chromium): no console message, no URL, no
# script; the headline first and equal to the JSON's; two stacked bars
# (A, B) whose segments are the JSON's buckets, in the report's colours;
# the knob, environment and resource tables with the JSON's figures;
# every run-file string escaped; bad usage refused (exit 2) with nothing
# written; a write that fails (exit 1) leaves the file as it was. The
# screenshot is kept as $FEEDSCOPE_BUILD/diff_html/diff.png.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
. "$FEEDSCOPE_TOP/tests/lib/browser.sh"
need_torch
need_chromium
SHOTS=$FEEDSCOPE_BUILD/diff_html
mkdir -p "$SHOTS" || fail "cannot make $SHOTS"
cd "$TEST_TMP" || fail "no TEST_TMP"
. "$FEEDSCOPE_TOP/tests/lib/diff_runs.sh"

# Bad usage: exit 2, one line on stderr, nothing on stdout, no file written
# (not even a partial one), an existing -o file left as it was.
mkfifo fifo.db
echo "not sqlite" >junk.db
echo "keep me" >keep.html
for args in "--format html a.db b.db" "-o x.html a.db b.db" "--format json -o x.html a.db b.db" \
	"--json -o x.html a.db b.db" "--format xml -o x.html a.db b.db" "--format html -o . a.db b.db" \
	"--format html -o /dev/null a.db b.db" "--format html -o nodir/x.html a.db b.db" \
	"--format html -o x.html a.db" "--format html -o x.html a.db junk.db" "--format html -o x.html fifo.db b.db" \
	"--format html -o x.html --window 9:1 a.db b.db" "--format html -o keep.html a.db junk.db"; do
	# shellcheck disable=SC2086
	"$FEEDSCOPE" diff $args >out.txt 2>err.txt && fail "diff $args: exit 0"
	rc=$?
	[ $rc -eq 2 ] || fail "diff $args: exit $rc, expected 2 ($(cat err.txt))"
	[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -s out.txt ] || fail "diff $args: $(cat err.txt out.txt)"
done
[ ! -e x.html ] || fail "a refused diff wrote x.html"
[ "$(cat keep.html)" = "keep me" ] || fail "a refused diff changed keep.html"
ls ./*.partial-* 2>/dev/null && fail "a refused diff left a partial file"

"$FEEDSCOPE" diff --format html -o d.html a.db b.db 2>err.txt || fail "diff --format html: exit $? ($(cat err.txt))"
[ ! -s err.txt ] || fail "diff --format html said something: $(cat err.txt)"
ls ./*.partial-* 2>/dev/null && fail "a partial file was left beside the diff"
"$FEEDSCOPE" diff --format html -o - a.db b.db >stdout.html || fail "diff --format html -o -"
cmp -s d.html stdout.html || fail "-o - and -o FILE differ"
"$FEEDSCOPE" diff --format html -o keep.html a.db b.db || fail "diff --format html over an existing file"
cmp -s d.html keep.html || fail "an existing -o file was not replaced by the diff"
# A write that fails (here: NAME.partial-PID is longer than a file name may
# be, so it cannot be created) exits 1 with a message and leaves NAME as it was.
long=$(printf 'k%.0s' $(seq 250)).html
echo "keep me" >"$long"
"$FEEDSCOPE" diff --format html -o "$long" a.db b.db >out.txt 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "a failed write: exit $rc, expected 1 ($(cat err.txt))"
grep -q 'writing .* failed' err.txt && [ ! -s out.txt ] || fail "a failed write: $(cat err.txt out.txt)"
[ "$(cat "$long")" = "keep me" ] || fail "a failed write changed the file"
"$FEEDSCOPE" diff --json a.db b.db >d.json || fail "diff --json"
"$FEEDSCOPE" report --format html -o a-report.html a.db || fail "report --format html"
grep -Eiq 'https?:|url\(|@import|<script' d.html && fail "the diff names a URL or has a script"

browse d.html d
cp d.dom "$SHOTS/diff.dom"
"$PY" - d.dom d.json a-report.html <<'PY' || fail "DOM checks (above)"
import html, json, re, sys
dom, d, report = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
def text(s):  # an element's text, tags dropped
    return html.unescape(re.sub(r"<[^>]+>", "", s)).strip()
# the headline comes first (before any table), and is the JSON's
head = re.search(r'<p class="verdict" id="headline">(.*?)</p>', dom, re.S)
assert head and text(head.group(1)) == d["headline"], (head and text(head.group(1)), d["headline"])
assert head.start() < dom.index("<table"), "the headline is not at the top"
# the verdicts, side by side
row = re.search(r"<tr><td>verdict</td><td>(\w+)</td><td>(\w+)</td>", dom)
assert row and row.groups() == (d["a"]["verdict"], d["b"]["verdict"]), row and row.groups()
assert re.search(r"<tr><td>step time</td>.*?B/A ", dom), "no step time ratio"
assert re.search(r"<tr><td>samples/s</td>.*?B/A ", dom), "no samples/s ratio"
# two stacked bars, A above B, each segment a bucket at the JSON's share of
# the same 1000-unit width, in the report's colours
colour = dict(re.findall(r'<rect class="bucket" data-bucket="(\w+)"[^>]*fill="(#\w+)"', report))
assert colour, "no bucket in the report's bar"
bars = re.findall(r'<div class="runbar" id="bar-(\w)"><b>\w</b>(.*?)</div>', dom, re.S)
assert [k for k, _ in bars] == ["a", "b"], [k for k, _ in bars]
for k, svg in bars:
    assert 'viewBox="0 0 1000 30"' in svg, (k, svg[:80])
    seg = re.findall(r'<rect class="bucket" data-bucket="(\w+)" x="([\d.]+)" y="0" width="([\d.]+)"[^>]*fill="(#\w+)"', svg)
    assert len(seg) >= 2, (k, "segments", seg)
    x = 0
    for b, x0, w, fill in seg:
        assert abs(float(x0) - x) < 0.2, (k, b, x0, x)  # stacked, in order
        assert abs(float(w) / 1000 - d[k]["buckets"][b]) < 1e-3, (k, b, w, d[k]["buckets"][b])
        assert colour.get(b, fill) == fill, (b, fill, colour.get(b))
        x += float(w)
    assert abs(x - 1000) < 0.5, (k, "the bar is not whole", x)
# the buckets' table: the change in points, the one that moved most marked
rows = re.findall(r'<tr[^>]*data-bucket="(\w+)"><td>[^<]*</td><td class="n">([^<]*)</td><td class="n">([^<]*)</td>'
                  r'<td class="n">([^<]*)</td><td class="mark">([^<]*)</td>', dom)
assert len(rows) == 6, rows
for b, sa, sb, ch, mark in rows:
    c = d["bucket_change"][b]
    assert ch == ("0 points" if abs(100 * c) < 0.5 else "%+.0f points" % (100 * c)), (b, ch, c)
    assert (mark == "moved most") == (d["bucket_moved"] and b == d["largest_bucket_change"]), (b, mark)
# the knob that changed, the environment that differs
knobs = re.search(r'<table id="knobs">(.*?)</table>', dom, re.S)
assert knobs, "no knob table"
assert re.search(r"<tr><td>num_workers</td><td>0</td><td>2</td><td>main loader</td></tr>", knobs.group(1)), knobs.group(1)
env = re.search(r'<table id="environment">(.*?)</table>', dom, re.S)
assert env and "<td>command</td>" in env.group(1), "no command in the environment table"
# every resource figure, the changed ones marked
res = re.search(r'<table id="resources">(.*?)</table>', dom, re.S).group(1)
figs = re.findall(r"<tr( class=\"changed\")?><td>(\w+)</td>", res)
assert [f for _, f in figs] == [r["metric"] for r in d["resources"]], figs
assert [bool(c) for c, _ in figs] == [r["changed"] for r in d["resources"]], figs
assert res.count(">changed</td>") == d["resources_changed"]
assert "<script" not in dom and not re.search(r'<[^>]*\s(src|href)\s*=', dom), "a script, src or href"
print("diff html: headline, 2 bars (%d and %d segments), %d knobs, %d figures (%d changed)" % (
    bars[0][1].count("<rect"), bars[1][1].count("<rect"), knobs.group(1).count("<tr>") - 1, len(figs),
    d["resources_changed"]))
PY
shoot d.html "$SHOTS/diff.png" 1400,1500
awk -v s="$(stat -c %s d.html)" 'BEGIN { printf "diff.html: %.1f KiB\n", s / 1024 }'

# A run compared with itself: it does not differ, and says so.
"$FEEDSCOPE" diff --format html -o same.html a.db a.db || fail "diff of a run with itself"
grep -q '<p class="verdict" id="headline">A and B do not differ' same.html || fail "same: $(grep headline same.html)"
grep -q '<p class="meta" id="knobs">the same in both</p>' same.html || fail "same: the knobs differ"

# Hostile strings in B: a command with a script, quotes and an escape
# sequence, a loader (steps and its meta keys) and a knob value that are
# tags, a hostname that is markup, a byte that is not UTF-8. Each must reach
# the page as text only.
cp b.db hostile.db
sqlite3 hostile.db "UPDATE meta SET value = '<script>alert(1)</script>\"'' onx=' || CAST(X'1bff' AS TEXT) WHERE key = 'command';
	UPDATE meta SET value = '<b>host</b>' WHERE key = 'hostname';
	UPDATE meta SET key = replace(key, 'loader.Samples.', 'loader.<img src=x onerror=alert(2)>.') WHERE key LIKE 'loader.Samples.%';
	UPDATE meta SET value = '2\"><svg onload=alert(3)>' WHERE key LIKE 'loader.%.num_workers';
	UPDATE steps SET loader = '<img src=x onerror=alert(2)>';" || fail "sqlite3"
"$FEEDSCOPE" diff --format html -o hostile.html a.db hostile.db || fail "diff of hostile strings"
browse hostile.html hostile
"$PY" - hostile.dom hostile.html <<'PY' || fail "hostile strings (above)"
import re, sys
dom, raw = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
for bad in ("<img", "<b>host", "<svg onload", "<script"):
    assert bad not in dom, bad
# as text, each character of the markup escaped in the file itself
assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; onx=\\x1b\ufffd" in raw, "the command is not escaped"
assert "&lt;b&gt;host&lt;/b&gt;" in raw
assert "&lt;img src=x onerror=alert(2)&gt;" in raw  # the loader, in the table and the headline
assert re.search(r'<p class="verdict" id="headline">[^<]*&lt;img src=x onerror=alert\(2\)&gt;', raw), "headline"
assert "2&quot;&gt;&lt;svg onload=alert(3)&gt;" in raw
PY
exit 0
