#!/usr/bin/env bash
# tests/fuzz/run.sh FUZZ_BUILD [SECONDS] [TARGET...] - run the libFuzzer
# targets built by `make fuzz` (FUZZ_BUILD/fuzz_*), each for SECONDS
# (default 60), and print one line per target:
#
#   fuzz TARGET: N execs in Ss (N exec/s), corpus N (+N new), crashes N [artifact]
#
# Each target starts from its seed corpus tests/fuzz/TARGET/ (read, never
# written) and FUZZ_BUILD/corpus/TARGET/ (what earlier runs found), with
# tests/fuzz/TARGET.dict when there is one. A crash, leak, timeout or
# sanitizer report stops that target; the input is kept as
# FUZZ_BUILD/crashes/TARGET-crash-<sha1> (replay it: FUZZ_BUILD/fuzz_TARGET FILE).
# Before fuzzing, each known reproducer tests/fuzz/crashes/TARGET-* is run
# once: one that still fails is said ("still fails") and fails the run; fix
# the bug, and the file stays as a regression input. While fuzzing (not while
# replaying), the UBSan reports listed in tests/fuzz/ubsan.supp (known bugs,
# each with its reproducer) are suppressed, so the fuzzer looks past them. The targets' scratch
# files go in a private directory under /dev/shm (or /tmp), removed at the
# end. Exits 1 if any target crashed, a reproducer still fails, or a target
# did not run.
set -u
cd "$(dirname "$0")/../.."
dir=${1:?usage: tests/fuzz/run.sh FUZZ_BUILD [SECONDS] [TARGET...]}
secs=${2:-60}
shift $(($# > 1 ? 2 : 1))
case $secs in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for b in "$dir"/fuzz_*; do [ -x "$b" ] && targets+=("${b##*/fuzz_}"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no targets built in $dir (make fuzz)" >&2; exit 1; }

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
scratch=$(mktemp -d "$base/feedscope-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$dir/crashes"

ubsan=halt_on_error=1:print_stacktrace=1
supp=$PWD/tests/fuzz/ubsan.supp

stat_of() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }

bad=0
for t in "${targets[@]}"; do
	bin=$dir/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz $t: FAIL: $bin is not built (make fuzz)"; bad=1; continue; }
	for r in tests/fuzz/crashes/"$t"-*; do
		[ -f "$r" ] || continue
		if UBSAN_OPTIONS=$ubsan TMPDIR=$scratch "$bin" "$r" >"$dir/$t.repro.log" 2>&1; then
			echo "fuzz $t: reproducer $r: fixed (passes)"
		else
			bad=1
			echo "fuzz $t: reproducer $r: still fails"
			grep -m2 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$dir/$t.repro.log" | sed 's/^/    /'
		fi
	done
	corpus=$dir/corpus/$t
	mkdir -p "$corpus"
	seeds=()
	[ -d "tests/fuzz/$t" ] && seeds=("tests/fuzz/$t")
	opts=(-max_total_time="$secs" -print_final_stats=1 -close_fd_mask=1 -rss_limit_mb=2048
		-timeout=10 -artifact_prefix="$dir/crashes/$t-")
	[ -f "tests/fuzz/$t.dict" ] && opts+=(-dict="tests/fuzz/$t.dict")
	before=$(find "$corpus" -type f | wc -l)
	log=$dir/$t.log
	fuzz_ubsan=$ubsan
	[ -f "$supp" ] && fuzz_ubsan=$ubsan:suppressions=$supp
	UBSAN_OPTIONS=$fuzz_ubsan TMPDIR=$scratch "$bin" "${opts[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	runs=$(stat_of number_of_executed_units "$log")
	eps=$(stat_of average_exec_per_sec "$log")
	after=$(find "$corpus" -type f | wc -l)
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	line="fuzz $t: ${runs:-?} execs in ${secs}s (${eps:-?} exec/s), corpus $after (+$((after - before)) new)"
	if [ $rc -ne 0 ] || [ -n "$crash" ]; then
		bad=1
		echo "$line, crashes 1: ${crash:-exit $rc, see $log}"
		grep -m3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
	else
		echo "$line, crashes 0"
	fi
done
exit $bad
