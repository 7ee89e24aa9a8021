# attach records a running process tree until it exits or the duration
# passes; watch prints one line per interval and stops with its --pid.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3

# A tree: sh -> (sleep, sleep), living ~2.5 s.
sh -c 'sleep 2.5 & sleep 2.5 & wait' &
tree=$!
sleep 0.3
expect_status 0 "$FEEDSCOPE" attach -q -o a.db -i 0.1 "$tree"
[ "$(q a.db "SELECT value FROM meta WHERE key='mode'")" = attach ] || fail "mode"
[ "$(q a.db "SELECT value FROM meta WHERE key='pid'")" = "$tree" ] || fail "pid"
q a.db "SELECT value FROM meta WHERE key='command'" | grep -q "sh -c" || fail "command not taken from /proc/PID/cmdline"
dur=$(q a.db "SELECT value FROM meta WHERE key='duration_s'")
awk -v d="$dur" 'BEGIN { exit !(d > 1.5 && d < 10) }' || fail "attach ran $dur s, expected to stop when the tree exited (~2.2 s)"
[ "$(q a.db "SELECT count(DISTINCT pid) FROM proc")" -eq 3 ] || fail "expected 3 processes in proc, got $(q a.db 'SELECT count(DISTINCT pid) FROM proc')"
[ "$(q a.db "SELECT count(*) FROM proc WHERE role='main' AND pid=$tree")" -gt 5 ] || fail "main process rows"
[ "$(q a.db "SELECT count(DISTINCT pid) FROM proc WHERE role='worker' AND ppid=$tree AND comm='sleep'")" -eq 2 ] || fail "worker rows"

# -d stops a recording of a process that goes on.
sleep 30 &
long=$!
expect_status 0 "$FEEDSCOPE" attach -q -o d.db -d 1 "$long"
kill -0 "$long" || fail "attach harmed the process"
kill "$long"
dur=$(q d.db "SELECT value FROM meta WHERE key='duration_s'")
awk -v d="$dur" 'BEGIN { exit !(d >= 0.9 && d < 5) }' || fail "attach -d 1 ran $dur s"

# fits FILE: every line within 80 columns
fits() { awk 'length($0) > 80 { print "line " NR ": " length($0) " columns"; bad = 1 } END { exit bad }' "$1" ||
	fail "$1: a line wider than 80 columns: $(cat "$1")"; }

# watch: a two-line header (groups, then names) and N lines on stdout,
# nothing on stderr with --no-gpu; all within 80 columns.
"$FEEDSCOPE" watch -n 3 -i 0.2 --no-gpu >w.txt 2>w.err || fail "watch failed: $(cat w.err)"
[ "$(wc -l <w.txt)" -eq 5 ] || fail "watch -n 3 printed $(wc -l <w.txt) lines: $(cat w.txt)"
head -1 w.txt | grep -q -- '-cpu %-.*-busiest disk-.*net MB/s' || fail "no group header: $(head -1 w.txt)"
sed -n 2p w.txt | grep -Eq '^ +time +usr +sys +iow +psi% +name +MB/s +util +rx +tx +gpu%$' ||
	fail "no column header: $(sed -n 2p w.txt)"
grep -q 'job\|proc' w.txt && fail "job columns without --pid"
# each line: the header's 11 columns, the time in seconds
awk 'NR > 2 && (NF != 11 || $1 !~ /^[0-9.]+s$/) { bad = 1 } END { exit bad }' w.txt || fail "watch lines: $(cat w.txt)"
fits w.txt
[ -s w.err ] && fail "watch wrote to stderr: $(cat w.err)"

# watch --pid: job columns, and it stops when the process exits.
sleep 1.2 &
short=$!
"$FEEDSCOPE" watch -i 0.2 --no-gpu --pid "$short" >p.txt 2>p.err || fail "watch --pid failed"
head -1 p.txt | grep -q -- '-job (--pid)-' || fail "no job group with --pid: $(head -1 p.txt)"
sed -n 2p p.txt | grep -Eq 'gpu% +proc +R +D +S +cpu%$' || fail "no job columns with --pid: $(sed -n 2p p.txt)"
n=$(wc -l <p.txt)
[ "$n" -ge 4 ] && [ "$n" -le 11 ] || fail "watch --pid printed $n lines"
fits p.txt
# one sleeping process while it lives; the last line, taken when it exited,
# shows no live thread (it is gone, or a zombie until its parent reaps it)
head -n -1 p.txt | awk 'NR > 2 && (NF != 16 || $(NF-4) != 1 || $(NF-1) != 1) { bad = 1 } END { exit bad }' ||
	fail "expected 1 sleeping process in the job columns: $(cat p.txt)"
tail -1 p.txt | awk '{ exit ($(NF-3) + $(NF-2) + $(NF-1)) != 0 }' ||
	fail "last line should show no live thread: $(tail -1 p.txt)"

# stdout that cannot be written: watch stops at the first failed line and
# exits 1 with a message, whether the device is full or the pipe's reader
# has gone (without -n it would otherwise print for ever, or die silently).
timeout 60 "$FEEDSCOPE" watch -i 0.1 --no-gpu >/dev/full 2>full.err
rc=$?
[ $rc -eq 1 ] || fail "watch >/dev/full: exit $rc, expected 1 ($(cat full.err))"
grep -q 'watch: writing to stdout failed: No space left on device' full.err || fail "watch >/dev/full: $(cat full.err)"
/usr/bin/python3 - "$FEEDSCOPE" <<'PY' || fail "watch into a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "watch", "-i", "0.1", "--no-gpu"], stdout=w, stderr=subprocess.PIPE, timeout=60)
assert p.returncode == 1, (p.returncode, p.stderr)
assert b"watch: writing to stdout failed: Broken pipe" in p.stderr, p.stderr
PY
exit 0
