#!/usr/bin/env bash
# tests/scenarios/run.sh [NAME...] - the ground-truth scenario suite.
#
# Each scenario (tests/scenarios/s_NAME.sh) builds a real input bottleneck on
# this machine (a loop-mounted ext4 dataset, cgroup v1 blkio/cpu/memory
# limits, cold caches), records a real PyTorch DataLoader job with an
# emulated accelerator under `feedscope run`, checks that the bottleneck was
# physically there, and compares `feedscope report`'s verdict with the one
# it was built to have. One line per scenario:
#
#   scenario NAME expected=ID got=ID input_bound=X truth=X confidence=X time=Ns PASS|FAIL
#
# (a distributed scenario adds straggler=GOT/EXPECTED before time=, and
# fails as "FAIL (straggler)" when the report names another rank; its
# per-rank rows, the job's own shares beside the report's, are tabled at
# the end)
# (truth: the steps table's wait share, or the job's own for hook-off runs),
# then a confusion table (expected x got) and predicted vs obtained speedups
# (one line per fix run, then one table of them all with the error of each
# and the mean error).
# Exits 1 if any verdict differs or a scenario could not be set up; 77 (skip)
# when not root or a prerequisite is missing (1 under CI=true: a skip is a
# failure there). See tests/scenarios/README.md.
#
#   FEEDSCOPE_BUILD   build directory (default build)
#   FS_KEEP=1         keep the run directory (run files, job output)
#
# Without names (`make scenarios`, part of `make test`) it runs the core
# scenarios and their --no-hook twins (ALL) and, of the broad suite, the
# three that give every verdict a run with and a run without the hook
# (CI_BROAD: network both ways, checkpoint_stall without), once each: the
# test's 30 minutes hold every verdict both ways. Then the confusion tables
# with and without the hook and, per bucket, the job's own truth beside
# feedscope's figure. tests/scenarios/run.sh --all (make scenarios-all):
# every scenario, the whole broad suite (BROAD) too, each REPEAT times
# (default 1): are the verdicts stable?
# The asynchronous accelerator's scenarios (ASYNC; issue 35: train.py
# --device async, the truth from the device's own timeline, and two more
# checks that fail a run as a wrong verdict does: input_bound within 5
# points of the device's idle inside the waits, predicted speedup within
# 15% of the ideal) are in --all; without names, the three of them that
# give each path a run (CI_ASYNC: sync every 10 steps with the device's
# events, the same on NVML alone, and its --no-hook twin). Their table,
# feedscope beside the device's truth per run, comes after the buckets.
set -u
cd "$(dirname "$0")/../.."
FS_TOP=$PWD
FS_BUILD=$(cd "${FEEDSCOPE_BUILD:-build}" 2>/dev/null && pwd) || FS_BUILD=$FS_TOP/build
FEEDSCOPE=$FS_BUILD/feedscope
PY=/usr/bin/python3
ALL="compute_bound storage_bandwidth storage_latency metadata cpu_preprocess
loader_parallelism memory_pressure checkpoint_stall epoch_start
nohook_storage_bandwidth nohook_cpu_preprocess nohook_nogpu_storage_bandwidth nohook_metadata
nohook_compute_bound nohook_loader_parallelism nohook_memory_pressure nohook_epoch_start
nohook_storage_latency rand_bytes nohook_rand_bytes rand_iops nohook_rand_iops compute_wait nohook_compute_wait"
BROAD="ckpt_write nohook_ckpt_write ckpt_numpy nohook_ckpt_numpy http nohook_http mmap nohook_mmap
rand_records nohook_rand_records jpeg nohook_jpeg val_loop nohook_val_loop torchrun nohook_torchrun
torchrun4 nohook_torchrun4 twonode nohook_twonode ddp nohook_ddp zip nohook_zip"
CI_BROAD="nohook_ckpt_write http nohook_http"
ASYNC="async_every async_every_events nohook_async_every async_n10 async_n10_events nohook_async_n10
async_end async_end_events nohook_async_end async_turned async_turned_events nohook_async_turned
async_ckpt async_ckpt_events nohook_async_ckpt"
CI_ASYNC="async_n10_events async_n10 nohook_async_n10"
# Issue 36: jobs whose bottleneck changes during the run (phases: cold
# then warm, warm then cold) and jobs whose wait is the training process's
# own work (main_process: a costly sampler, the unpickling of the batches),
# each with and without the hook; in --all, and the four of them that give
# each both ways in make scenarios (CI_PHASES).
PHASES="phase_cold_warm nohook_phase_cold_warm phase_warm_cold nohook_phase_warm_cold
main_sampler nohook_main_sampler main_unpickle nohook_main_unpickle"
CI_PHASES="phase_cold_warm nohook_phase_warm_cold main_sampler nohook_main_unpickle"
# The memory scenarios (issue 37; memjob.py, memlib.sh): a finding or none
# against the job's own account of its memory; in make scenarios, the
# copy-on-read job with the hook and its numpy twin without.
MEM="mem_cor nohook_mem_cor mem_numpy nohook_mem_numpy mem_shm nohook_mem_shm mem_limit nohook_mem_limit"
CI_MEM="mem_cor nohook_mem_numpy"
# Issue 39: hangs (hangjob.py, hanglib.sh, hangcheck.py): a DataLoader
# worker blocked on a FIFO nobody writes, on a socket that never answers,
# spinning in a transform; the stall found within its bound (--hang-after),
# naming what the worker is blocked on, with its Python stack (hook on).
# They need no dataset image. In make scenarios, the FIFO with the hook and
# the spin without (about 30 s each).
HANGS="hang_fifo nohook_hang_fifo hang_socket nohook_hang_socket hang_spin nohook_hang_spin"
CI_HANGS="hang_fifo nohook_hang_spin"
# Threads fighting for the cores (issue 39 item 2; s_oversub.sh): the
# oversubscription finding beside cpu_preprocess, its figures against the
# job's own and its fix's predicted gain against the job rerun with one
# thread per worker; in make scenarios, the hook-off twin (one run, the
# finding from /proc alone).
OVERSUB="oversub nohook_oversub"
CI_OVERSUB="nohook_oversub"
# Inside the loader (issue 39, item 1): one slow transform among several,
# a slow collate_fn, each with and without the hook; the stages' shares
# against the job's own timing of them (within 5 points, the slow one named
# by the verdict: else "FAIL (stages)"). In --all; in make scenarios, the
# transform job with the hook and the collate job without (CI_LOADER).
LOADER="stage_transform nohook_stage_transform stage_collate nohook_stage_collate"
CI_LOADER="stage_transform nohook_stage_collate"
if [ "${1:-}" = --all ]; then
	shift
	[ $# -eq 0 ] || { echo "scenarios: --all takes no names" >&2; exit 2; }
	set -- $ALL $BROAD $ASYNC $PHASES $MEM $HANGS $OVERSUB $LOADER
fi
[ $# -gt 0 ] || set -- $ALL $CI_BROAD $CI_ASYNC $CI_PHASES $CI_MEM $CI_HANGS $CI_OVERSUB $CI_LOADER
REPEAT=${REPEAT:-1}
case $REPEAT in '' | *[!0-9]* | 0) echo "scenarios: REPEAT must be a whole number >= 1, not '$REPEAT'" >&2; exit 2 ;; esac

. tests/scenarios/suite.sh
suite_prereqs scenarios blkio cpu memory

names=("$@")
for n in "${names[@]}"; do
	[ -f "tests/scenarios/s_$n.sh" ] || { echo "scenarios: no scenario $n (have: $(echo $ALL $BROAD $ASYNC $PHASES $MEM $HANGS $OVERSUB $LOADER))"; exit 2; }
done

suite_start scen scenarios
RUN_LEDGER=$FS_RUN_DIR/ledger


# The dataset image, made once per run: see gen_data.py.
make_data() {
	local mnt=$FS_RUN_DIR/gen dev t0=$SECONDS
	truncate -s 1200M "$FS_DATA_IMG"
	mkfs.ext4 -q -F -O inline_data -E lazy_itable_init=0,lazy_journal_init=0 "$FS_DATA_IMG" || return 1
	dev=$(losetup -f --show --direct-io=on "$FS_DATA_IMG") || return 1
	echo "loop $dev $FS_DATA_IMG" >>"$RUN_LEDGER"
	mkdir -p "$mnt"
	echo "mount $mnt" >>"$RUN_LEDGER"
	mount "$dev" "$mnt" || return 1
	"$PY" tests/scenarios/gen_data.py "$mnt" || return 1
	umount "$mnt" && losetup -d "$dev" || return 1
	echo "scenarios: dataset image ready ($((SECONDS - t0)) s): $(basename "$FS_DATA_IMG") in $FS_RUN_DIR" >&2
}
# the dataset image, unless every scenario asked for runs without it
need_data=no
for n in "${names[@]}"; do
	case " $HANGS " in *" $n "*) ;; *) need_data=yes ;; esac
done
if [ $need_data = yes ]; then
	make_data || { echo "scenarios: could not make the dataset image"; exit 1; }
	case $(findmnt -no MAJ:MIN -T "$FS_DATA_IMG" | head -1 | tr -d ' ') in
	0:* | "") echo "scenarios: note: /tmp is not on a block device; read limits go on the loop device itself, whose util% then stays low (see README.md)" >&2 ;;
	esac
fi

f2() { awk -v v="$1" 'BEGIN { if (v ~ /^[0-9.eE+-]+$/) printf "%.2f", v; else printf "nan" }'; }
declare -A R
pred=()
ptab=() # the predictions table: "scenario<TAB>fix<TAB>predicted<TAB>obtained"
fails=0
hooked=()
lines=()
results=()
# run_scenario NAME: one try, its results in R; sets rc
run_scenario() {
	suite_run "$1" bash "tests/scenarios/s_$1.sh"
}
buckets=()
rankrows=() # "scenario rank:job_input:fs_input:job_coll:fs_coll:node", one per rank of a run
runs=()
minute=() # "scenario verdict verdict-from-the-per-minute-tables"
devrows=() # "scenario path verdict input truth err_pt predicted ideal err_pct PASS|FAIL", the device clock's runs
phaserows=() # "scenario hook expected got epochs fs truth err", the phase scenarios' runs
splits=() # "scenario phase_count", every other run: more than one phase is a false split
stagerows=() # "scenario slow job_shares fs_shares err_pts PASS|FAIL", the loaders' stages' runs
failed=() # the failing runs' lines, said again at the end: a CI log's tail shows them
hangrows=() # "scenario hook lag loop_lag bound stall block gauge got", the hang scenarios' runs
for n in "${names[@]}"; do
	for ((rep = 1; rep <= REPEAT; rep++)); do runs+=("$n"); done
done
for n in "${runs[@]}"; do
	t0=$SECONDS
	suite_try run_scenario "$n"
	dt=$((SECONDS - t0))
	exp=${R[expected]:-?} got=${R[got]:-none}
	status=PASS
	if [ $rc -ne 0 ] || [ -n "${R[setup_error]:-}" ]; then
		status="FAIL (setup: ${R[setup_error]:-exit $rc})"
		got=setup_failed
	elif [ "$got" != "$exp" ]; then
		status=FAIL
	elif [ -n "${R[straggler_expected]:-}" ] && [ "${R[straggler_got]:-}" != "${R[straggler_expected]}" ]; then
		status="FAIL (straggler)" # the report named another rank than the slow one
	elif [ "${R[devclock_expected]:-}" = yes ] && [ "${R[devclock_ok]:-}" != yes ]; then
		status="FAIL (device clock: ${R[devclock_why]:-no figures})" # off issue 35's bounds
	elif [ "${R[stages_expected]:-}" = yes ] && [ "${R[stages_ok]:-}" != yes ]; then
		status="FAIL (stages: ${R[stages_why]:-no figures})" # off issue 39's bounds
	fi
	strag=""
	[ -n "${R[straggler_expected]:-}" ] && strag=" straggler=${R[straggler_got]:-none}/${R[straggler_expected]}"
	# the device clock's scenarios: predicted / ideal speedup, and the path
	if [ "${R[devclock_expected]:-}" = yes ]; then
		strag+=" speedup=$(f2 "${R[predicted_speedup]:-}")/$(f2 "${R[devclock_ideal]:-}") path=${R[devclock_path]:-?}"
		[ "$got" = setup_failed ] ||
			devrows+=("$n ${R[devclock_path]:-?} $got ${R[input_bound]:-nan} ${R[truth]:-nan} ${R[devclock_input_err]:-nan} ${R[predicted_speedup]:-nan} ${R[devclock_ideal]:-nan} ${R[devclock_speedup_err]:-nan} ${status%% *}")
	fi
	# the limit of the storage named, and the runner-up, with their shares of the wait
	case $got in storage_* | metadata* | memory_pressure*) [ "${R[sat_named]:-none}" != none ] ;; *) false ;; esac &&
		strag+=" limit=${R[sat_named]}:$(f2 "${R[sat_named_share]:-}")/${R[sat_runner]:-none}:$(f2 "${R[sat_runner_share]:-}")"
	# the loaders' stages: the slow one, its share by the job and by the report
	if [ "${R[stages_expected]:-}" = yes ]; then
		strag+=" stage=${R[stage_slow]:-none}:$(f2 "${R[job_stage_share]:-}")/$(f2 "${R[fs_stage_share]:-}") err=${R[stage_err_pts]:-nan}pt"
		[ "$got" = setup_failed ] || stagerows+=("$n ${R[stage_slow]:-none} ${R[job_stage_shares]:-none} ${R[fs_stage_shares]:-none} ${R[stage_err_pts]:-nan} ${status%% *}")
	fi
	[ "${status%% *}" = PASS ] || fails=$((fails + 1))
	line="scenario $n expected=$exp got=$got input_bound=$(f2 "${R[input_bound]:-}") truth=$(f2 "${R[truth]:-}") confidence=$(f2 "${R[confidence]:-}")$strag time=${dt}s $status$retried"
	echo "$line"
	lines+=("$line")
	[ "${status%% *}" = PASS ] || failed+=("$line")
	results+=("$exp $got")
	case $n in nohook_*) hook=off ;; *) hook=on ;; esac
	hooked+=("$hook $exp $got")
	buckets+=("$n $hook $(f2 "${R[truth_input]:-}") $(f2 "${R[input_bound]:-}") $(f2 "${R[truth_ckpt]:-}") $(f2 "${R[fs_ckpt]:-}") $(f2 "${R[truth_idle]:-}") $(f2 "${R[fs_idle]:-}") $(f2 "${R[truth_coll]:-}") $(f2 "${R[fs_coll]:-}")")
	for row in ${R[ranks]:-}; do rankrows+=("$n $row"); done
	if [ "$got" != setup_failed ]; then
		if [ "${R[phases_expected]:-}" = yes ]; then
			phaserows+=("$n $hook $exp $got ${R[phase_epochs]:-none} ${R[phase_fs]:-none} ${R[phase_truth]:-none} ${R[phase_err_pts]:-nan}")
		else
			splits+=("$n ${R[phase_count]:-0} ${R[phases]:-none}")
		fi
	fi
	[ -n "${R[hang_row]:-}" ] && hangrows+=("${R[hang_row]}")
	if [ -n "${R[minute_verdict]:-}" ] && [ "$got" != setup_failed ]; then
		minute+=("$n $got ${R[minute_verdict]}")
	fi
	if [ -n "${R[untraced_verdict]:-}" ]; then
		pred+=("tracer $n: with the tracer $got, without it (--no-trace) ${R[untraced_verdict]}")
	fi
	if [ -n "${R[obtained_speedup]:-}" ]; then
		pred+=("prediction $n: predicted $(f2 "${R[predicted_speedup]:-}")x (verdict of the first run), obtained $(f2 "${R[obtained_speedup]}")x (mean step ${R[step_mean_s]:-?} s -> ${R[fixed_step_mean_s]:-?} s with ${R[fixed_by]:-the cause removed})")
		ptab+=("$n	${R[fixed_by]:-the cause removed}	$(f2 "${R[predicted_speedup]:-}")	$(f2 "${R[obtained_speedup]}")")
	fi
	# a change the report must not recommend: reported, never a failure
	if [ -n "${R[no_useless_rec]:-}" ]; then
		pred+=("no_useless_rec $n: ${R[no_useless_rec]} (the first run's report recommends: ${R[recommended]:-?}); ${R[workers_by]:-the useless change} obtained $(f2 "${R[workers_speedup]:-}")x (mean step ${R[step_mean_s]:-?} s -> ${R[workers_step_mean_s]:-?} s)")
		case ${R[no_useless_rec]} in yes) wpred=none ;; no) wpred=recommended ;; *) wpred=unknown ;; esac
		ptab+=("$n	${R[workers_by]:-the useless change}	$wpred	$(f2 "${R[workers_speedup]:-}")")
	fi
done

# confusion: "expected got" lines on stdin, the table on stdout
confusion() {
	awk '
	BEGIN {
		split("compute_bound CB storage_bandwidth SB storage_latency SL metadata MD cpu_preprocess CPU " \
		      "loader_parallelism LP network NET memory_pressure MEM checkpoint_stall CKPT epoch_start EPO " \
		      "host_to_device H2D undetermined UND none none setup_failed SETUP", a, " ")
		for (i = 1; i in a; i += 2) ab[a[i]] = a[i + 1]
	}
	function short(x) { return x in ab ? ab[x] : x }
	{ e[$1] = 1; g[$2] = 1; n[$1 " " $2]++ }
	END {
		if (NR == 0) { print "(no runs)"; exit }
		ng = 0; for (x in g) cols[++ng] = x
		for (i = 1; i <= ng; i++) for (j = i + 1; j <= ng; j++) if (cols[j] < cols[i]) { t = cols[i]; cols[i] = cols[j]; cols[j] = t }
		ne = 0; for (x in e) rows[++ne] = x
		for (i = 1; i <= ne; i++) for (j = i + 1; j <= ne; j++) if (rows[j] < rows[i]) { t = rows[i]; rows[i] = rows[j]; rows[j] = t }
		printf "%-20s", "expected \\ got"
		for (j = 1; j <= ng; j++) printf " %5s", short(cols[j])
		printf "\n"
		for (i = 1; i <= ne; i++) {
			printf "%-20s", rows[i]
			for (j = 1; j <= ng; j++) { c = n[rows[i] " " cols[j]]; printf " %5s", c ? c : "." }
			printf "\n"
		}
		printf "("
		for (j = 1; j <= ng; j++) printf "%s = %s%s", short(cols[j]), cols[j], j < ng ? ", " : ")\n"
	}'
}
echo
echo "confusion (rows: expected, columns: got)"
printf '%s\n' "${results[@]}" | confusion
for h in on off; do
	echo
	echo "confusion, hook $h (rows: expected, columns: got)"
	printf '%s\n' "${hooked[@]}" | awk -v h=$h '$1 == h { print $2, $3 }' | confusion
done
echo
echo "buckets: the job's own truth beside feedscope's figure (shares of the loop's time; err in points)"
printf '%s\n' "${buckets[@]}" | awk '
	function cell(t, f, k) {
		if (t == "nan" || f == "nan") return sprintf(" %5s %5s %5s", t, f, "-")
		e = (f - t) * 100; if (e < 0) e = -e
		n[k]++; sum[k] += e; if (e > worst[k]) worst[k] = e
		return sprintf(" %5.2f %5.2f %5.1f", t, f, e)
	}
	BEGIN { printf "%-32s %-4s %5s %5s %5s %5s %5s %5s %5s %5s %5s %5s %5s %5s\n", "scenario", "hook",
		"input", "fs", "err", "ckpt", "fs", "err", "idle", "fs", "err", "coll", "fs", "err" }
	{ printf "%-32s %-4s%s%s%s%s\n", $1, $2, cell($3, $4, "input"), cell($5, $6, "ckpt"), cell($7, $8, "idle"),
		cell($9, $10, "coll") }
	END {
		split("input ckpt idle coll", ks, " ")
		for (i = 1; i <= 4; i++) {
			k = ks[i]
			if (n[k]) printf "bucket %-5s mean error %.1f points, worst %.1f (%d runs)\n", k, sum[k] / n[k], worst[k], n[k]
			else printf "bucket %-5s no run gave both figures\n", k
		}
	}'
# the asynchronous accelerator: each run's input-bound and predicted speedup
# beside the device's own truth, the error of each, per path the mean and
# the worst
if [ ${#devrows[@]} -gt 0 ]; then
	echo
	echo "device clock: feedscope beside the device's own timeline (truth = dev_idle_in_wait_share, ideal = step / max(device, host) per step; bounds 5 points, 15%)"
	printf '%s\n' "${devrows[@]}" | awk '
		function num(x) { return x ~ /^[0-9.eE+-]+$/ }
		function f(x, p) { return num(x) ? sprintf(p, x) : "-" }
		BEGIN { printf "%-22s %-7s %-20s %6s %6s %6s %8s %7s %6s %s\n", "scenario", "path", "verdict",
			"input", "truth", "err_pt", "predict", "ideal", "err", "result" }
		{
			printf "%-22s %-7s %-20s %6s %6s %6s %8s %7s %6s %s\n", $1, $2, $3, f($4, "%.3f"), f($5, "%.3f"),
				f($6, "%.1f"), f($7, "%.2fx"), f($8, "%.2fx"), f($9, "%.1f%%"), $10
			p = $2; runs[p]++
			if (num($6)) { n1[p]++; s1[p] += $6; if ($6 > w1[p]) w1[p] = $6 }
			if (num($9)) { n2[p]++; s2[p] += $9; if ($9 > w2[p]) w2[p] = $9 }
			if ($10 != "PASS") bad[p]++
		}
		END {
			split("events nvml nohook", ps, " ")
			for (i = 1; i <= 3; i++) {
				p = ps[i]
				if (!runs[p]) continue
				printf "path %-7s %2d runs, %d failed: input-bound error mean %.1f points, worst %.1f; speedup error mean %.1f%%, worst %.1f%%\n",
					p, runs[p], bad[p], n1[p] ? s1[p] / n1[p] : 0, w1[p], n2[p] ? s2[p] / n2[p] : 0, w2[p]
			}
		}'
fi
# several ranks: each rank's own input-wait and collective shares of its
# loop (train.py) beside the report's buckets for that rank
if [ ${#rankrows[@]} -gt 0 ]; then
	echo
	echo "ranks: each rank's own share of its loop beside feedscope's bucket for it (err in points)"
	printf '%s\n' "${rankrows[@]}" | awk '
		function f(x) { return x ~ /^[0-9.eE+-]+$/ ? sprintf("%.3f", x) : "nan" }
		function cell(t, g, k) {
			if (f(t) == "nan" || f(g) == "nan") return sprintf(" %9s %8s %5s", f(t), f(g), "-")
			e = (g - t) * 100; if (e < 0) e = -e
			n[k]++; sum[k] += e; if (e > worst[k]) worst[k] = e
			return sprintf(" %9.3f %8.3f %5.1f", t, g, e)
		}
		BEGIN { printf "%-22s %4s %-16s %9s %8s %5s %9s %8s %5s\n", "scenario", "rank", "node",
			"job_input", "fs_input", "err", "job_coll", "fs_coll", "err" }
		{
			split($2, c, ":")
			printf "%-22s %4s %-16s%s%s\n", $1, c[1], c[6], cell(c[2], c[3], "input"), cell(c[4], c[5], "coll")
		}
		END {
			split("input coll", ks, " ")
			for (i = 1; i <= 2; i++) {
				k = ks[i]
				if (n[k]) printf "ranks %-5s mean error %.1f points, worst %.1f (%d ranks)\n", k, sum[k] / n[k], worst[k], n[k]
				else printf "ranks %-5s no rank gave both figures\n", k
			}
		}'
fi
# phases (issue 36): the phase scenarios' phases beside the job's own
# per-epoch waits, and the false splits of every other run (each built
# with one bottleneck: one phase expected)
if [ ${#phaserows[@]} -gt 0 ]; then
	echo
	echo "phases: the report's phases (epochs, input-bound) beside the job's own wait share over the same epochs"
	printf '%s\n' "${phaserows[@]}" | awk '
		BEGIN { printf "%-24s %-4s %-40s %-6s %-12s %-16s %-16s %s\n", "scenario", "hook", "phases", "ok", "epochs", "input", "job", "err_pt" }
		{ printf "%-24s %-4s %-40s %-6s %-12s %-16s %-16s %s\n", $1, $2, $4, ($3 == $4 ? "yes" : "NO"), $5, $6, $7, $8 }'
fi
# the loaders' stages (issue 39): each stage's own share of the workers'
# time by the job's own clock and by the report
if [ ${#stagerows[@]} -gt 0 ]; then
	echo
	echo "loader stages: each stage's own share of the workers' time, the job's own clock / the report (err: the largest difference, points)"
	printf '%s\n' "${stagerows[@]}" | awk '
		BEGIN { printf "%-26s %-28s %-8s %s\n", "scenario", "slow stage", "err_pt", "job / report" }
		{ printf "%-26s %-28s %-8s %s / %s  %s\n", $1, $2, $5, $3, $4, $6 }'
fi
if [ ${#splits[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${splits[@]}" | awk '
		{ n++; if ($2 > 1) { bad++; list = list sprintf("\n  %s: %s", $1, $3) } }
		END { printf "false splits: %d of %d runs built with one bottleneck gave more than one phase%s\n", bad, n, list }'
fi
if [ ${#pred[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${pred[@]}"
fi
# the table: error = |predicted - obtained| / obtained; a row without a
# numeric prediction (a change the report does not recommend: "none") is
# left out of the mean
if [ ${#ptab[@]} -gt 0 ]; then
	echo
	echo "predicted vs obtained speedup of the mean step (error = |predicted - obtained| / obtained)"
	printf '%s\n' "${ptab[@]}" | awk -F '\t' '
		function num(x) { return x ~ /^[0-9.eE+-]+$/ }
		function sp(x) { return num(x) ? sprintf("%.2fx", x) : x }
		BEGIN { printf "%-20s %-44s %11s %9s %8s\n", "scenario", "fix", "predicted", "obtained", "error" }
		{
			err = "-"
			if (num($3) && num($4) && $4 > 0) {
				e = ($3 - $4) / $4 * 100; if (e < 0) e = -e
				err = sprintf("%.1f%%", e); n++; sum += e
			}
			printf "%-20s %-44s %11s %9s %8s\n", $1, $2, sp($3), sp($4), err
		}
		END {
			if (n) printf "mean error %.1f%% over %d fix%s with a prediction\n", sum / n, n, (n == 1 ? "" : "es")
			else print "mean error: no fix with both a prediction and a result"
		}'
fi
# hangs (issue 39): when each stall was found, against the job's own block
if [ ${#hangrows[@]} -gt 0 ]; then
	echo
	echo "hangs: the stall found (s after the job's own block; after the loop's last progress) against the bound; its length by feedscope and by the job"
	printf '%s\n' "${hangrows[@]}" | awk '
		BEGIN { printf "%-20s %-4s %8s %9s %6s %8s %8s %6s %s\n", "scenario", "hook", "found", "loop", "bound", "stall", "block", "gauge", "result" }
		{ printf "%-20s %-4s %7ss %8ss %5ss %7ss %7ss %6s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
fi
# the verdict read from the per-minute tables alone (report --resolution
# minute) beside the one from every sample: a figure, not a check
if [ ${#minute[@]} -gt 0 ]; then
	echo
	printf '%s\n' "${minute[@]}" | awk '
		{ n++; if ($2 == $3) same++; else diff = diff sprintf("\n  %s: every sample %s, per minute %s", $1, $2, $3) }
		END { printf "per-minute tables: %d of %d verdicts the same as from every sample%s\n", same, n, diff }'
fi
echo
[ $fails -eq 0 ] || printf 'failed: %s\n' "${failed[@]}"
echo "scenarios: $(( ${#runs[@]} - fails )) of ${#runs[@]} passed"
[ $fails -eq 0 ]
