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

# approx A B REL : |A-B| <= REL*|B|
approx() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= r * m) }'; }
