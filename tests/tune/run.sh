#!/usr/bin/env bash
# tests/tune/run.sh [NAME...] - `feedscope tune` on jobs whose optimum is
# known by construction (issue 13).
#
# Each test (tests/tune/t_NAME.sh) builds a real situation with the scenario
# suite's set-up (tests/scenarios/lib.sh: a loop-mounted ext4 dataset,
# cgroup v1 cpu/blkio limits, cold caches), runs `feedscope tune` on
# tests/scenarios/train.py inside it, checks that the bottleneck was
# physically there, and compares tune's best setting with the optimum the
# job was built to have. One line per test:
#
#   tune NAME: trials=N time=Ts recommend=BOOL best=KNOBS optimum=WHAT speedup=Xx predicted=Yx PASS|FAIL (why)
#
# TUNE_TRUTH=1 also sweeps the candidate settings with train.py alone (no
# feedscope) and prints the job's own mean step at each: the ground truth
# that the construction's optimum is the real one (a sweep that disagrees
# with the construction fails the test: the test itself would be wrong).
# Exits 1 if any test fails or cannot be set up; 77 (skip) when not root or
# a prerequisite is missing (1 under CI=true: a skip is a failure there).
# See tests/tune/README.md.
#
#   FEEDSCOPE_BUILD   build directory (default build)
#   FS_KEEP=1         keep the run directory (tune's trial files, job output)
#   TUNE_TRUTH=1      also the ground-truth sweeps (adds a few minutes)
#   TUNE_OPTS=...     more options for tune (e.g. --knobs prefetch_factor:
#                     a tune that may not change the workers fails latency)
set -u
cd "$(dirname "$0")/../.."
FS_TOP=$PWD
FS_BUILD=$(cd "${FEEDSCOPE_BUILD:-build}" 2>/dev/null && pwd) || FS_BUILD=$FS_TOP/build
FEEDSCOPE=$FS_BUILD/feedscope
PY=/usr/bin/python3
ALL="latency cpu storage epochs compute sampler memory threads"
[ $# -gt 0 ] || set -- $ALL

. tests/scenarios/suite.sh
suite_prereqs "tune tests" blkio cpu cpuacct
# TUNE_TRUTH=only: the ground-truth sweeps alone (checking a construction), no tune
[ "${TUNE_TRUTH:-0}" = only ] || "$FEEDSCOPE" tune --help >/dev/null 2>&1 ||
	{ echo "tune tests: $FEEDSCOPE has no tune command"; exit 1; }
for n in "$@"; do
	[ -f "tests/tune/t_$n.sh" ] || { echo "tune tests: no test $n (have: $ALL)"; exit 2; }
done

suite_start tune "tune tests"

# The dataset image (gen_data.py's files), written through a loop device
# that a shell of its own attaches and mounts with lib.sh, whose ledger
# detaches it again when that shell exits.
make_data() {
	local t0=$SECONDS
	truncate -s 1200M "$FS_DATA_IMG"
	mkfs.ext4 -q -F -O inline_data -E lazy_itable_init=0,lazy_journal_init=0 "$FS_DATA_IMG" || return 1
	FS_SCEN=_data bash -c '. tests/scenarios/lib.sh
		dev=$(loop_attach "$FS_DATA_IMG") || die "losetup $FS_DATA_IMG"
		mkdir -p "$S/gen"; ledger mount "$S/gen"
		mount "$dev" "$S/gen" || die "mount $dev"
		"$PY" tests/scenarios/gen_data.py "$S/gen"' || return 1
	rm -rf "$FS_RUN_DIR/_data"
	echo "tune tests: dataset image ready ($((SECONDS - t0)) s)" >&2
}
make_data || { echo "tune tests: could not make the dataset image"; exit 1; }

declare -A R
# run_test NAME: one try, its results in R; sets rc
run_test() {
	rm -rf "${FS_RUN_DIR:?}/tune_$1"
	FS_SCEN=tune_$1 bash "tests/tune/t_$1.sh" &
	child=$!
	wait "$child"
	rc=$?
	child=""
	undo "$FS_RUN_DIR/tune_$1/ledger"
	R=()
	if [ -f "$FS_RUN_DIR/tune_$1/result" ]; then
		while IFS='=' read -r k v; do R[$k]=$v; done <"$FS_RUN_DIR/tune_$1/result"
	fi
}
fails=0
failed=() # the failing tests' lines, said again at the end: a CI log's tail shows them
for n in "$@"; do
	t0=$SECONDS
	suite_try run_test "$n"
	status=${R[status]:-}
	if [ -n "${R[setup_error]:-}" ]; then
		status="FAIL (setup: ${R[setup_error]})"
	elif [ $rc -ne 0 ] || [ -z "$status" ]; then
		status="FAIL (exit $rc)"
	fi
	line="tune $n: trials=${R[trials]:-?} time=${R[tune_s]:-?}s recommend=${R[recommend]:-?} best=${R[best]:-none} optimum=${R[optimum]:-?} speedup=${R[speedup]:-?} predicted=${R[predicted]:-?} (test $((SECONDS - t0))s) $status$retried"
	echo "$line"
	[ "$status" = PASS ] || { fails=$((fails + 1)); failed+=("$line"); }
	[ -n "${R[truth]:-}" ] && echo "  truth $n: ${R[truth]}"
done
echo
[ $fails -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "tune tests: $(($# - fails)) of $# passed"
[ $fails -eq 0 ]
