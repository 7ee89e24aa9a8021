# feedscope-binary: unused (builds its own programs; one pass is enough)
# The fuzz targets (tests/fuzz/fuzz_*.c) built without clang, with a plain
# main() (tests/fuzz/standalone.c, `make fuzz-replay`), still compile against
# the public APIs they call and run every seed of their corpus and every
# known reproducer (tests/fuzz/crashes/) to the end: no crash, and each
# input counted.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
make -s -C "$FEEDSCOPE_TOP" BUILD="$FEEDSCOPE_BUILD" fuzz-replay >make.out 2>&1 ||
	{ tail -20 make.out; fail "make fuzz-replay failed"; }
n=0
for src in "$FEEDSCOPE_TOP"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	t=${t#fuzz_}
	bin=$FEEDSCOPE_BUILD/tests/fuzz_replay_$t
	seeds=$FEEDSCOPE_TOP/tests/fuzz/$t
	[ -d "$seeds" ] || fail "no seed corpus tests/fuzz/$t/ for fuzz_$t"
	inputs=("$seeds")
	want=$(find "$seeds" -maxdepth 1 -type f ! -name '.*' | wc -l)
	for r in "$FEEDSCOPE_TOP"/tests/fuzz/crashes/"$t"-*; do
		[ -f "$r" ] && inputs+=("$r") && want=$((want + 1))
	done
	[ "$want" -gt 0 ] || fail "tests/fuzz/$t/ is empty"
	out=$(TMPDIR=$TEST_TMP "$bin" "${inputs[@]}" 2>err.txt) || { tail -5 err.txt; fail "fuzz_replay_$t failed (status $?)"; }
	[ "$out" = "fuzz_replay_$t: $want inputs" ] || fail "fuzz_replay_$t said '$out', expected $want inputs"
	n=$((n + 1))
done
[ $n -ge 4 ] || fail "only $n fuzz targets (expected workload, procfs, runfile, runfile_raw)"
leftover=$(find "$TEST_TMP" -maxdepth 1 -name 'fuzz_*' | head -3)
[ -z "$leftover" ] || fail "the targets left scratch files: $leftover"
exit 0
