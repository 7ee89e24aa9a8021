#!/usr/bin/env bash
# tests/run.sh - run every test: unit binaries, source fixtures (golden
# files), integration scripts. Prints one line per test and a summary; exits
# non-zero if any test failed.
#
#   FEEDSCOPE_BUILD       build directory to test (default build)
#   FEEDSCOPE_ASAN_BUILD  if set, also run every test again with
#                         this sanitizer build (ASan+UBSan)
#   TESTS=PATTERN         run only tests whose name matches (grep -E)
#   UPDATE_GOLDEN=1       rewrite fixture expected.txt files (review the diff!)
#   CI=true              a skipped test (exit 77) is a failure: CI must run everything
#   FS_KEEP=1             keep the temporary directory (every run file made)
#
# Every tests/unit/test_*.c is a test: a binary that is missing, or older than
# its source, is a failure (it did not build), never silently left out.
set -u
cd "$(dirname "$0")/.."
top=$PWD
build=${FEEDSCOPE_BUILD:-build}
pattern=${TESTS:-.}
tmp=$(mktemp -d /tmp/feedscope-tests.XXXXXX)
# FS_KEEP=1 keeps it (the run files the fixtures and the integration tests
# made: tests/tools/same_reports.sh reads them), as the scenario suite does
if [ "${FS_KEEP:-0}" = 1 ]; then
	trap 'echo "tests/run.sh: kept $tmp"' EXIT
else
	trap 'rm -rf "$tmp"' EXIT
fi

pass=0 fail=0 skip=0
failed=()

# each test's wall time, printed beside its line and the slowest listed at the
# end (make test has a time budget: docs/testing.md)
times=$(mktemp /tmp/feedscope-times.XXXXXX)
t_start=$(date +%s%N)
took() { echo "$(( ($(date +%s%N) - t_start) / 100000000 ))" | sed 's/.$/.&/;s/^\./0./'; }

report() { # name status [detail]
	local secs; secs=$(took)
	printf '%s %s\n' "$secs" "$1" >>"$times"
	t_start=$(date +%s%N)
	case $2 in
	0) pass=$((pass + 1)); printf 'PASS  %s  %ss\n' "$1" "$secs" ;;
	77)
		if [ "${CI:-}" = true ]; then
			fail=$((fail + 1)); failed+=("$1")
			printf 'FAIL  %s  (skipped, and CI=true runs everything: %s)\n' "$1" "${3:-}"
		else
			skip=$((skip + 1)); printf 'SKIP  %s  (%s)\n' "$1" "${3:-}"
		fi ;;
	*) fail=$((fail + 1)); failed+=("$1"); printf 'FAIL  %s%s\n' "$1" "${3:+  ($3)}" ;;
	esac
}

want() { echo "$1" | grep -Eq -- "$pattern"; }

# One test per tests/unit/test_*.c, whether or not its binary was built.
run_units() { # build label
	for src in tests/unit/test_*.c; do
		[ -f "$src" ] || continue
		t="$1/tests/$(basename "$src" .c)"
		name="$2unit/$(basename "$src" .c)"
		want "$name" || continue
		if [ ! -x "$t" ]; then
			report "$name" 1 "no binary $t: it did not build (make unit)"
			continue
		fi
		if [ "$t" -ot "$src" ]; then
			report "$name" 1 "$t is older than $src: it did not rebuild (make unit)"
			continue
		fi
		out=$("$t" 2>&1); rc=$?
		if [ $rc -eq 77 ]; then
			report "$name" 77 "$(printf '%s\n' "$out" | sed -n 's/^SKIPPED: //p' | paste -sd';' -)"
			continue
		fi
		[ $rc -ne 0 ] && printf '%s\n' "$out" | tail -20
		report "$name" $rc
	done
}

run_fixtures() { # build label
	for exp in tests/fixtures/*/*/expected.txt; do
		[ -f "$exp" ] || continue
		case_dir=$(dirname "$exp")
		src=$(basename "$(dirname "$case_dir")")
		name="$2fixture/$src/$(basename "$case_dir")"
		want "$name" || continue
		work="$tmp/fx-${2%/}-$src-$(basename "$case_dir")"
		rm -rf "$work"
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			"$1/tests/replay" "$src" "$case_dir" "$work" >"$exp"
		fi
		if "$1/tests/replay" "$src" "$case_dir" "$work" >"$work.out" 2>"$work.err" &&
			diff -u "$exp" "$work.out" >"$work.diff"; then
			report "$name" 0
		else
			head -40 "$work.diff" "$work.err"
			report "$name" 1
		fi
	done
}

run_integration() { # build label glob
	for t in tests/integration/$3; do
		[ -f "$t" ] || continue
		name="$2integration/$(basename "$t" .sh)"
		want "$name" || continue
		# a test that does not run the binary gains nothing from a second pass
		[ -n "$2" ] && grep -q '^# feedscope-binary: unused' "$t" && continue
		work="$tmp/it-${2%/}-$(basename "$t" .sh)"
		mkdir -p "$work"
		out=$(cd "$work" && FEEDSCOPE="$top/$1/feedscope" FEEDSCOPE_BUILD="$top/$1" \
			FEEDSCOPE_TOP="$top" TEST_TMP="$work" bash "$top/$t" 2>&1)
		rc=$?
		if [ $rc -eq 77 ]; then
			report "$name" 77 "$(printf '%s\n' "$out" | tail -1)"
			continue
		fi
		[ $rc -ne 0 ] && printf '%s\n' "$out" | tail -30
		report "$name" $rc
	done
}

run_units "$build" ""
run_fixtures "$build" ""
run_integration "$build" "" "*.sh"
if [ -n "${FEEDSCOPE_ASAN_BUILD:-}" ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
	run_units "$FEEDSCOPE_ASAN_BUILD" "asan/"
	run_fixtures "$FEEDSCOPE_ASAN_BUILD" "asan/"
	run_integration "$FEEDSCOPE_ASAN_BUILD" "asan/" "*.sh"
fi

echo "----"
echo "slowest:"
sort -rn "$times" | head -15 | sed 's/^/  /'
rm -f "$times"
echo "passed $pass, failed $fail, skipped $skip"
if [ $fail -ne 0 ]; then
	printf 'failed: %s\n' "${failed[@]}"
	exit 1
fi
