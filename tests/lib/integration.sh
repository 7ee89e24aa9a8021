# lib.sh - helpers for integration tests (sourced). Each test runs in its own
# empty directory ($TEST_TMP), with $FEEDSCOPE pointing at the binary under
# test. Exit 0 = pass, 77 = skipped (last line says why; tests/run.sh counts
# it as a failure under CI=true), anything else = fail. A part of a test that
# cannot run here is a skip too, never an exit 0.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }

# expect_status WANT CMD... : run CMD, fail unless its exit status is WANT.
expect_status() {
	local want_=$1 got_
	shift
	"$@"; got_=$?
	[ "$got_" -eq "$want_" ] || fail "'$*' exited $got_, expected $want_"
}

# q DB SQL : one value from a run file
# read-only: a query must never create the file feedscope is about to create
q() { sqlite3 -readonly -batch -noheader "$1" "$2"; }

# record_states STATES DB OUT CMD...: feedscope run of CMD at 0.1 s, no
# tracer, thread states read as STATES (bpf or proc), into DB, CMD's
# stdout to OUT; fails unless meta job.states says that path was used.
record_states() {
	rs_states=$1 rs_db=$2 rs_out=$3
	shift 3
	"$FEEDSCOPE" run -q --no-trace --states "$rs_states" -o "$rs_db" -i 0.1 -- "$@" >"$rs_out" ||
		fail "--states $rs_states: the run failed"
	rs_got=$(q "$rs_db" "SELECT value FROM meta WHERE key='job.states'")
	case $rs_states in
	bpf) [ "$rs_got" = bpf ] || fail "the BPF path did not load (meta job.states: $rs_got)" ;;
	proc) [ "$rs_got" = "proc: --states proc" ] || fail "--states proc: meta job.states is '$rs_got'" ;;
	esac
}

# approx A B REL : |A-B| <= REL*|B|
approx() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }

# in_private_ns CMD... : CMD in a mount namespace of its own whose mounts do
# not propagate back. Where / is a mount point, unshare makes every mount
# private. In a chroot (no mountinfo line for /) that cannot be done for /,
# so every mount that is visible is made private instead; CMD must then mount
# only on those (check_private checks a mount it made).
in_private_ns() {
	if awk '$5 == "/" { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		unshare -m "$@"
	else
		unshare -m --propagation unchanged sh -c \
			'awk '\''{ print $5 }'\'' /proc/self/mountinfo | while read -r m; do
				mount --make-private "$(printf "%b" "$m")" 2>/dev/null; done; exec "$@"' sh "$@"
	fi
}

# check_private MOUNTPOINT: fail unless the mount there shares with nothing
# (a mount under a shared parent would appear outside the namespace too).
check_private() {
	awk -v m="$1" '$5 == m { line = $0 } END { exit !(line != "" && line !~ / shared:/) }' /proc/self/mountinfo
}
