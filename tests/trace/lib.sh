# lib.sh - shared by tests/integration/trace_*.sh (sourced after
# tests/lib/integration.sh): the tracer under test, its programs, running
# a command under it, and reading its regions with trace_dump.
#
# With an ASan build (tests/run.sh's second pass) the library needs the
# ASan runtime loaded before it: TRACE_PRELOAD lists libasan first, and
# leak checking is off for the programs traced (Python, tar... are not
# ours to fix).

TRACE_LIB=$FEEDSCOPE_BUILD/libfeedscope-trace.so
TRACE_DUMP=$FEEDSCOPE_BUILD/tests/trace_dump
TRACE_PROGS=$FEEDSCOPE_BUILD/tests/trace
TRACE_DATA=$FEEDSCOPE_TOP/tests/trace
PY=/usr/bin/python3

[ -f "$TRACE_LIB" ] || fail "no $TRACE_LIB (make unit builds it)"
[ -x "$TRACE_DUMP" ] || fail "no $TRACE_DUMP"

TRACE_PRELOAD=$TRACE_LIB
TRACE_SAN_ENV=()
asan_rt=$(ldd "$TRACE_LIB" | awk '/libasan/ { print $3 }')
if [ -n "$asan_rt" ]; then
	TRACE_PRELOAD="$asan_rt $TRACE_LIB"
	TRACE_SAN_ENV=(ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0)
fi

need_torch() {
	[ -x "$PY" ] || skip "needs $PY"
	"$PY" -c 'import torch' 2>/dev/null || skip "needs python3-torch for $PY"
}

# traced REGIONS CMD... : run CMD under the tracer, its regions in REGIONS
traced() {
	local regions=$1
	shift
	mkdir -p "$regions"
	env "${TRACE_SAN_ENV[@]}" LD_PRELOAD="$TRACE_PRELOAD" FEEDSCOPE_TRACE_DIR="$regions" "$@"
}

# untraced CMD... : the same environment without the tracer
untraced() {
	env -u LD_PRELOAD -u FEEDSCOPE_TRACE_DIR "$@"
}

# dump REGIONS OUT [STRIP] : trace_dump --no-times into OUT, once no
# process maps a region any more (a job's stragglers, such as a DataLoader
# worker or multiprocessing's resource tracker, may outlive it briefly)
dump() {
	local i_ p_
	for i_ in $(seq 100); do
		p_=$(grep -l -F "$(cd "$1" && pwd)/" /proc/[0-9]*/maps 2>/dev/null | head -1)
		[ -z "$p_" ] && break
		sleep 0.1
	done
	"$TRACE_DUMP" --no-times ${3:+--strip "$3"} "$1" >"$2" || fail "trace_dump $1"
}

# file_line DUMP REGION PATH : the record line of PATH in REGION
file_line() {
	awk -v r="$2" -v p="path=$3" '$1 == "file" && $2 == r && substr($0, length($0) - length(p) + 1) == p &&
		substr($0, length($0) - length(p), 1) == " "' "$1"
}

# expect DUMP REGION PATH KEY=VALUE... : every KEY of that record has VALUE
expect() {
	local dump_=$1 region_=$2 path_=$3 line_ kv_
	shift 3
	line_=$(file_line "$dump_" "$region_" "$path_")
	[ -n "$line_" ] || fail "region $region_ has no record of $path_"
	[ "$(printf '%s\n' "$line_" | wc -l)" -eq 1 ] || fail "region $region_ has two records of $path_"
	for kv_ in "$@"; do
		case " $line_ " in
		*" $kv_ "*) ;;
		*) fail "region $region_, $path_: want $kv_, have: ${line_#* idx=}" ;;
		esac
	done
}

# no_record DUMP REGION PATH
no_record() {
	[ -z "$(file_line "$1" "$2" "$3")" ] || fail "region $2 should have no record of $3"
}

# totals_add_up DUMP : in every region, the process totals are the sums of
# its records (every counted call lands in exactly one record, or in
# record 0), data ops = reads + writes + fsyncs when no data call failed
totals_add_up() {
	awk '
	function v(k,   i, a) { for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) return a[2] } return 0 }
	$1 == "region" { r = $2; rb[r] = v("read_bytes"); wb[r] = v("write_bytes"); mo[r] = v("meta_ops"); dop[r] = v("data_ops") }
	$1 == "file" { srb[$2] += v("read_bytes"); swb[$2] += v("write_bytes"); smo[$2] += v("meta_ops")
		sdo[$2] += v("reads") + v("writes") + v("fsyncs") }
	END { for (r in rb) {
		if (rb[r] != srb[r] || wb[r] != swb[r] || mo[r] != smo[r] || (strict && dop[r] != sdo[r])) {
			printf "region %s: totals read %s write %s meta %s data %s, records %s %s %s %s\n", r, rb[r], wb[r], mo[r], dop[r], srb[r], swb[r], smo[r], sdo[r]; bad = 1 } }
		exit bad }' strict="${2:-1}" "$1" || fail "process totals are not the sums of the records"
}
