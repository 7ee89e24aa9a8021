# top: a full-screen view, driven in tmux (a real terminal emulator):
# its sections, the job's processes with their role and rank, a GPU panel
# from the fake NVML library, every line within 80 columns, a resize, q
# quitting with 0, the end of the job ending it; bad usage and no terminal
# exit 2.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"

if ! command -v tmux >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] || skip "needs tmux (apt-get install tmux)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux >/dev/null 2>&1 ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux >/dev/null 2>&1; } ||
		skip "needs tmux, and apt-get could not install it"
fi
nvml_dir=$FEEDSCOPE_BUILD/tests/nvml/full
[ -f "$nvml_dir/libnvidia-ml.so.1" ] || fail "no fake NVML library in $nvml_dir (make unit builds it)"

# Bad usage is said before anything starts, terminal or not.
bad() { # WANT_MESSAGE ARGS...
	want=$1
	shift
	"$FEEDSCOPE" top "$@" </dev/null >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] || fail "top $*: exit $rc, expected 2 ($(cat bad.err))"
	grep -qF -- "$want" bad.err || fail "top $*: said '$(cat bad.err)', expected '$want'"
	[ -s bad.out ] && fail "top $*: wrote on stdout: $(cat bad.out)"
	return 0
}
bad "bad interval '0'" -i 0
bad "bad interval 'x'" -i x
bad "no process 999999999" 999999999
bad "bad PID 'abc'" abc
bad "unexpected argument '2'" 1 2
bad "--bogus" --bogus
bad "top needs a terminal; use watch" --no-gpu
expect_status 0 "$FEEDSCOPE" top --help >help.txt
grep -q "q quits" help.txt || fail "top --help: $(cat help.txt)"

# A private tmux server, ended with the test.
sock=$TEST_TMP/tmux.sock
tm() { tmux -S "$sock" "$@"; }
jobs_to_kill=""
trap 'tm kill-server 2>/dev/null; for p in $jobs_to_kill; do pkill -P $p 2>/dev/null; kill $p 2>/dev/null; done' EXIT

# start NAME WIDTH HEIGHT ARGS...: top in a pane of its own (window NAME);
# its exit status lands in NAME.rc, its stderr in NAME.err.
start() {
	name=$1 w=$2 h=$3
	shift 3
	rm -f "$name.rc"
	tm new-session -d -s "$name" -x "$w" -y "$h" \
		"env LD_LIBRARY_PATH=$nvml_dir FAKE_NVML_SCRIPT=$TEST_TMP/nvml.txt $FEEDSCOPE top $* 2>$TEST_TMP/$name.err; echo \$? >$TEST_TMP/$name.rc; sleep 60" ||
		fail "tmux new-session failed"
}
screen() { tm capture-pane -p -t "$1" >"$1.screen"; }
# wait_for NAME PATTERN: until the screen shows PATTERN (grep -E); the
# wait is bounded only to end a broken test, never a measure.
# wait_for NAME PATTERN COUNT: until COUNT lines show it.
wait_for() {
	for _ in $(seq 300); do
		screen "$1"
		[ "$(grep -Ec -- "$2" "$1.screen")" -ge "${3:-1}" ] && return 0
		sleep 0.1
	done
	fail "$1: the screen never showed '$2':
$(cat "$1.screen") $(cat "$1.err" 2>/dev/null)"
}
has() { grep -Eq -- "$2" "$1.screen" || fail "$1: no '$2' on the screen:
$(cat "$1.screen")"; }
# no line wider than WIDTH (trailing blanks are the pane's)
fits() {
	awk -v w="$2" '{ sub(/ +$/, "") } length($0) > w { print "line " NR " has " length($0) " columns: " $0; bad = 1 }
		END { exit bad }' "$1.screen" || fail "$1: a line wider than $2 columns"
}
quit() { # NAME: q ends top with status 0
	tm send-keys -t "$1" q
	for _ in $(seq 300); do
		[ -s "$1.rc" ] && break
		sleep 0.1
	done
	[ "$(cat "$1.rc" 2>/dev/null)" = 0 ] || fail "$1: q: exit '$(cat "$1.rc" 2>/dev/null)', expected 0 ($(cat "$1.err"))"
}

# The job: a shell (main) and two sleeps (workers); with a rank, which
# its children inherit.
RANK=3 sh -c 'sleep 120 & sleep 120 & wait' </dev/null >/dev/null 2>&1 &
job=$!
jobs_to_kill="$jobs_to_kill $job"
for _ in $(seq 100); do
	[ "$(pgrep -P $job | wc -l)" -eq 2 ] && break
	sleep 0.05
done

# 80x24, no GPU: every section, the job's three processes.
start a 80 24 --no-gpu -i 0.2 $job
wait_for a "^ +[0-9]+ +$job +worker" 2
for s in "^feedscope top  PID $job \(sh\)" "q quits" "^CPU +usr" "^PSI +cpu" "^MEM +available" \
	"^GPU +not read \(--no-gpu\)" "^DISK" "^NET" "^JOB +processes 3, threads 3" "^STEPS" \
	"PID +PPID +ROLE +RANK +THR +R +D +CPU%"; do
	has a "$s"
done
has a "^ +$job +[0-9]+ +main +3 +1 "
[ "$(grep -Ec "^ +[0-9]+ +$job +worker +\(3\) +1 +0 +0 .* sleep$" a.screen)" -eq 2 ] ||
	fail "expected two sleeping workers of rank 3: $(cat a.screen)"
fits a 80
quit a

# 120 columns: the layout itself stays within 80; the GPU panel from the
# fake NVML: two GPUs, what it serves.
cat >nvml.txt <<'EOF'
count=2
gpu0.name=NVIDIA H200
gpu0.util=37
gpu0.mem_total=150000000000
gpu0.mem_used=12000000000
gpu0.pcie_rx_kbps=1200000
gpu0.pcie_tx_kbps=100000
gpu1.name=NVIDIA H200
gpu1.util=81
EOF
start b 120 40 -i 0.2 $job
wait_for b "^ +[0-9]+ +$job +worker"
has b "^GPU +util +mem used / +total +PCIe rx +PCIe tx +name"
has b "^  0 +37% +11\.2 GiB / 140 GiB +1\.23 GB/s +102 MB/s +NVIDIA H200$"
has b "^  1 +81% .*NVIDIA H200$"
fits b 80
# a resize to 60x15: redrawn for the new size (cut, fewer lines), still running
tm resize-window -t b -x 60 -y 15
wait_for b "^feedscope top  PID $job.* q quits$"
fits b 60
[ "$(wc -l <b.screen)" -le 15 ] || fail "after the resize: $(wc -l <b.screen) lines"
[ -s b.rc ] && fail "top ended after a resize: $(cat b.err)"
# and back to 80x40: the three processes again
tm resize-window -t b -x 80 -y 40
wait_for b "^ +[0-9]+ +$job +worker"
has b "^ +$job +[0-9]+ +main"
fits b 80
quit b

# Without a PID: the machine only.
# (wait for its last line: a screen caught mid-draw lacks the lines below)
start c 80 24 --no-gpu -i 0.2
wait_for c "^JOB +none"
has c "^feedscope top  this machine"
has c "^DISK"
fits c 80
quit c

# In a terminal, but stdout is not one: the same refusal.
tm new-session -d -s e -x 80 -y 24 "$FEEDSCOPE top --no-gpu >$TEST_TMP/e.out 2>$TEST_TMP/e.err; echo \$? >$TEST_TMP/e.rc; sleep 60"
for _ in $(seq 300); do
	[ -s e.rc ] && break
	sleep 0.1
done
[ "$(cat e.rc 2>/dev/null)" = 2 ] || fail "top >file: exit '$(cat e.rc 2>/dev/null)', expected 2"
grep -qF "top needs a terminal; use watch" e.err || fail "top >file said: $(cat e.err)"

# The job's end ends top (exit 0, and said).
sleep 1 &
short=$!
start d 80 24 --no-gpu -i 0.2 $short
for _ in $(seq 300); do
	[ -s d.rc ] && break
	sleep 0.1
done
[ "$(cat d.rc 2>/dev/null)" = 0 ] || fail "top of an exiting process: exit '$(cat d.rc 2>/dev/null)' ($(cat d.err))"
grep -q "top: process $short exited" d.err || fail "top of an exiting process said: $(cat d.err)"
exit 0
