# feedscope-binary: unused (tests the test runner itself)
# Skips are never passes. tests/run.sh: a unit test whose binary is missing
# or older than its source FAILs; exit 77 is SKIP, and FAIL under CI=true;
# the summary keeps its shape. Not as root: tests/scenarios/run.sh exits 77
# (and says SKIPPED), 1 under CI=true; .ci/run refuses before running make.
# Unit "binaries" here are stand-in scripts in a build directory of our own.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
top=$FEEDSCOPE_TOP
fake=$TEST_TMP/build
mkdir -p "$fake/tests"
units=("$top"/tests/unit/test_*.c)
[ ${#units[@]} -ge 3 ] || fail "fewer than 3 unit tests in tests/unit: nothing to test with"
names=()
for u in "${units[@]}"; do names+=("$(basename "$u" .c)"); done
missing=${names[0]} skipping=${names[1]} stale=${names[2]}
for n in "${names[@]}"; do
	[ "$n" = "$missing" ] && continue
	if [ "$n" = "$skipping" ]; then
		printf '#!/bin/sh\necho "SKIPPED: no widget here"\nexit 77\n' >"$fake/tests/$n"
	else
		printf '#!/bin/sh\necho "%s: 1 checks passed"\n' "$n" >"$fake/tests/$n"
	fi
	chmod +x "$fake/tests/$n"
done
touch -d '2000-01-01' "$fake/tests/$stale"

runner() { FEEDSCOPE_BUILD=$fake TESTS='^unit/' "$top/tests/run.sh" >"$1" 2>&1; }
(unset CI; runner out.txt)
rc=$?
[ $rc -eq 1 ] || fail "run.sh exited $rc with a missing and a stale unit test, expected 1: $(cat out.txt)"
grep -q "^FAIL  unit/$missing  (no binary" out.txt || fail "missing $missing not a FAIL: $(cat out.txt)"
grep -q "^FAIL  unit/$stale  (.* is older than" out.txt || fail "stale $stale not a FAIL: $(cat out.txt)"
grep -q "^SKIP  unit/$skipping  (no widget here)" out.txt || fail "$skipping not a SKIP with its reason: $(cat out.txt)"
n=${#names[@]}
summary="passed $((n - 3)), failed 2, skipped 1"
grep -qx "$summary" out.txt || fail "summary is not '$summary': $(tail -4 out.txt)"

# CI=true: the skip is a failure too; the summary keeps its shape
rm "$fake/tests/$stale"
for u in "$missing" "$stale"; do printf '#!/bin/sh\necho ok\n' >"$fake/tests/$u" && chmod +x "$fake/tests/$u"; done
(unset CI; runner out2.txt) || fail "run.sh failed with only a skip outside CI: $(cat out2.txt)"
grep -qx "passed $((n - 1)), failed 0, skipped 1" out2.txt || fail "summary: $(tail -3 out2.txt)"
CI=true runner out3.txt && fail "run.sh passed under CI=true with a skipped test: $(cat out3.txt)"
grep -q "^FAIL  unit/$skipping  (skipped, and CI=true runs everything: no widget here)" out3.txt ||
	fail "the skip under CI is not a FAIL: $(cat out3.txt)"
grep -qx "passed $((n - 1)), failed 1, skipped 0" out3.txt || fail "CI summary: $(tail -3 out3.txt)"

# not root: the scenario suite and .ci/run
as_user() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	need_cmd setpriv
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
fi
# a place user 65534 can reach ($TEST_TMP's parent is private): a stand-in
# make, and a copy of the scripts run here when the checkout itself is
# private (a clone under /root, mode 700: what a newcomer gets)
shim=$(mktemp -d /tmp/feedscope-ci-shim.XXXXXX) || fail "mktemp"
trap 'rm -rf "$shim"' EXIT
chmod 755 "$shim"
if ! as_user test -r "$top/tests/scenarios/run.sh"; then
	mkdir -p "$shim/tree/tests" || fail "mkdir"
	cp -r "$top/.ci" "$shim/tree/" && cp -r "$top/tests/scenarios" "$top/tests/lib" "$shim/tree/tests/" ||
		fail "copying .ci and tests/scenarios"
	chmod -R a+rX "$shim/tree"
	top=$shim/tree
	as_user test -r "$top/tests/scenarios/run.sh" || fail "user 65534 cannot read the copy in $top"
fi
(cd /tmp && unset CI && as_user "$top/tests/scenarios/run.sh" >"$TEST_TMP/scen.txt" 2>&1)
rc=$?
[ $rc -eq 77 ] || fail "scenarios/run.sh not as root exited $rc, expected 77: $(tail -3 "$TEST_TMP/scen.txt")"
(cd /tmp && CI=true as_user "$top/tests/scenarios/run.sh" >/dev/null 2>&1)
rc=$?
[ $rc -eq 1 ] || fail "scenarios/run.sh not as root under CI=true exited $rc, expected 1"
printf '#!/bin/sh\necho "make ran" >&2\nexit 0\n' >"$shim/make" && chmod 755 "$shim/make"
out=$(PATH=$shim:$PATH as_user "$top/.ci/run" 2>&1) && fail ".ci/run succeeded without root: $out"
echo "$out" | grep -q "must run as root" || fail ".ci/run's message: $out"
echo "$out" | grep -q "make ran" && fail ".ci/run ran make without root"
exit 0
