#!/usr/bin/env bash
# tests/scenarios/async_table.sh - issue 35's table: feedscope's figures on
# a job whose emulated accelerator runs asynchronously (train.py --device
# async), beside the truth from the device's own timeline.
#
#   tests/scenarios/async_table.sh          (root; ~2.5 minutes; FS_KEEP=1 keeps the runs)
#
# Not part of `make test` nor of the scenario suites: it measures, it does
# not pass or fail feedscope (its exit status is 0 when every run could be
# made, 1 when one could not, 77 when it cannot run here).
#
# A small dataset image (gen_data.py --npy: the suite's 2000 warm .npy files
# of 32 KiB, in an ext4 image of their own, loop-mounted by lib.sh's
# mount_data), then eight jobs under `feedscope run` with the fake NVML fed
# by the device's busy file (lib.sh's record), each read back with
# `feedscope report --format json` (lib.sh's verdict):
#
#   input-bound   one worker, batch 8, each sample sleeps 7 ms: a batch every
#                 ~64 ms; the device needs 40 ms a step; 250 steps; the device
#                 syncs every step, every 10 steps, or only at the end
#   turned        the same with 1 ms a sample (a batch every ~16 ms) and 60 ms
#                 of device work a step, syncing every 10 steps: the launches
#                 block (run-ahead 2), the device is ~all busy
#
# each with the hook (feedscope run --pytorch) and without (--no-hook). One
# line per run: feedscope's verdict, input_bound_fraction and
# predicted_speedup beside the job's own truth (train.py's summary:
# dev_idle_in_wait_share, ideal_speedup; see its docstring), and whether
# each is within issue 35's bounds (5 points; 15%).
set -u
cd "$(dirname "$0")/../.." || exit 1
FS_TOP=$PWD
FS_BUILD=$(cd "${FEEDSCOPE_BUILD:-build}" 2>/dev/null && pwd) || FS_BUILD=$FS_TOP/build
FEEDSCOPE=$FS_BUILD/feedscope
PY=/usr/bin/python3

# The jobs (train.py options after --data/--format). 2000 samples of batch
# 8: 250 steps.
JOB=(--samples 2000 --batch 8 --workers 1 --device async --run-ahead 2)
INPUT=(--item-sleep-ms 7 --compute-ms 40)
TURNED=(--item-sleep-ms 1 --compute-ms 60 --sync 10)
declare -A RUNS
RUNS[every_on]="on input-bound every --sync every"
RUNS[every_off]="off input-bound every --sync every"
RUNS[n10_on]="on input-bound 10 --sync 10"
RUNS[n10_off]="off input-bound 10 --sync 10"
RUNS[end_on]="on input-bound end --sync end"
RUNS[end_off]="off input-bound end --sync end"
RUNS[turned_on]="on turned 10"
RUNS[turned_off]="off turned 10"
ORDER="every_on every_off n10_on n10_off end_on end_off turned_on turned_off"

# ---- one run, in a shell of its own (lib.sh: its ledger, its traps) -------
if [ "${1:-}" = --case ]; then
	read -r c_hook c_kind c_policy extra <<<"${RUNS[$FS_SCEN]}"
	# shellcheck disable=SC2206
	extra=($extra)
	. tests/scenarios/lib.sh
	opts=()
	[ "$c_hook" = off ] && opts=(--no-hook)
	args=("${INPUT[@]}")
	[ "$c_kind" = turned ] && args=("${TURNED[@]}")
	mount_data
	warm "$DATA/npy"
	record run "${opts[@]}" -- --data "$DATA/npy" --format npy "${JOB[@]}" "${args[@]}" ${extra[@]+"${extra[@]}"}
	verdict run
	tv() { grep '^train: ' "$S/run.out" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	step=$(tv step_s) dev=$(tv dev_step_s) idle=$(tv dev_idle_share)
	# the construction, from the job's own clock: is it the job it claims?
	if [ "$c_kind" = input-bound ]; then
		awk -v s="$step" 'BEGIN { exit !(s >= 0.056 && s <= 0.076) }' || die "a batch every $step s, wanted ~0.064"
		awk -v d="$dev" 'BEGIN { exit !(d >= 0.038 && d <= 0.046) }' || die "device $dev s a step, wanted ~0.040"
	else
		awk -v d="$dev" 'BEGIN { exit !(d >= 0.058 && d <= 0.066) }' || die "device $dev s a step, wanted ~0.060"
		awk -v i="$idle" 'BEGIN { exit !(i <= 0.10) }' || die "device idle $idle, wanted <= 0.10"
	fi
	[ "$c_hook" = off ] && need "steps <= 0" "the hook is off"
	label=$c_kind
	[ "$c_kind" = input-bound ] && label="sync $c_policy"
	[ "$c_kind" = turned ] && label="turned (sync $c_policy)"
	result line "$(awk -v l="$label" -v h="$c_hook" -v v="${EV[verdict]}" -v ib="${EV[input_bound]}" \
		-v t="$(tv dev_idle_in_wait_share)" -v di="$idle" -v ps="${EV[predicted_speedup]}" \
		-v is="$(tv ideal_speedup)" -v st="$step" -v d="$dev" -v hs="$(tv host_step_s)" \
		-v ws="$(tv wait_share)" -v lb="$(tv launch_blocks)" -v n="$(tv steps)" '
		function num(x) { return x ~ /^[0-9.eE+-]+$/ }
		function f(x, p) { return num(x) ? sprintf(p, x) : "nan" }
		BEGIN {
			e1 = num(ib) && num(t) ? (ib > t ? ib - t : t - ib) * 100 : -1
			e2 = num(ps) && num(is) && is > 0 ? (ps > is ? ps - is : is - ps) / is * 100 : -1
			ok = (e1 >= 0 && e1 <= 5 && e2 >= 0 && e2 <= 15) ? "yes" : "no"
			printf "%-22s %-4s %-20s %6s %6s %6s %6s %8s %7s %6s %-6s %6s %6s %6s %6s %6s",
				l, h, v, f(ib, "%.2f"), f(t, "%.2f"), e1 < 0 ? "-" : sprintf("%.0f", e1), f(di, "%.2f"),
				num(ps) ? sprintf("%.2fx", ps) : "nan", f(is, "%.2fx"), e2 < 0 ? "-" : sprintf("%.0f%%", e2), ok,
				f(st * 1000, "%.1f"), f(d * 1000, "%.1f"), f(hs * 1000, "%.2f"), f(ws, "%.2f"), lb "/" n
		}')"
	exit 0
fi

# ---- the runner -------------------------------------------------------------
. tests/scenarios/suite.sh
suite_prereqs async_table pids
suite_start async async_table
RUN_LEDGER=$FS_RUN_DIR/ledger

# The dataset image: the suite's npy/ alone (run.sh's make_data, smaller).
make_data() {
	local mnt=$FS_RUN_DIR/gen dev
	truncate -s 160M "$FS_DATA_IMG"
	mkfs.ext4 -q -F "$FS_DATA_IMG" || return 1
	dev=$(losetup -f --show --direct-io=on "$FS_DATA_IMG") || return 1
	echo "loop $dev $FS_DATA_IMG" >>"$RUN_LEDGER"
	mkdir -p "$mnt"
	echo "mount $mnt" >>"$RUN_LEDGER"
	mount "$dev" "$mnt" || return 1
	"$PY" tests/scenarios/gen_data.py --npy "$mnt" || return 1
	umount "$mnt" && losetup -d "$dev" || return 1
}
make_data || { echo "async_table: could not make the dataset image"; exit 1; }

declare -A R
# run_case NAME: one run (this script again, --case, its stderr to
# NAME.log), its result in R; sets rc
run_case() {
	suite_run "$1" bash "$0" --case 2>"$FS_RUN_DIR/$1.log"
}

echo "async_table: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "input-bound: a batch every ~64 ms (1 worker, batch 8, 7 ms a sample), 40 ms of device work a step"
echo "turned: a batch every ~16 ms (1 ms a sample), 60 ms of device work a step; run-ahead 2, 250 steps each"
echo "truth = the device's idle share inside the host's next() (dev_idle_in_wait_share); ideal = step / max(device, host) per step"
printf '%-22s %-4s %-20s %6s %6s %6s %6s %8s %7s %6s %-6s %6s %6s %6s %6s %6s\n' \
	loop hook verdict input truth err_pt idle predict ideal err within step_ms dev_ms host_ms wait blocks
bad=0
for n in $ORDER; do
	suite_try run_case "$n"
	if [ "$rc" -ne 0 ] || [ -n "${R[setup_error]:-}" ] || [ -z "${R[line]:-}" ]; then
		echo "$n: could not be made: ${R[setup_error]:-exit $rc}; $FS_RUN_DIR/$n.log:"
		tail -5 "$FS_RUN_DIR/$n.log" | sed 's/^/    /'
		bad=$((bad + 1))
		continue
	fi
	echo "${R[line]}$retried"
done
echo "columns: input = feedscope's input_bound_fraction; truth = dev_idle_in_wait_share; idle = dev_idle_share;"
echo "  predict = feedscope's predicted_speedup; ideal = ideal_speedup; within = both within 5 points / 15%;"
echo "  step/dev/host ms = step_s, dev_step_s, host_step_s; wait = the host's share in next(); blocks = launches that blocked / steps"
[ $bad -eq 0 ] || exit 1
exit 0
