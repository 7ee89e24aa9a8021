# tests/tune/lib.sh - shared by the tune tests (tests/tune/t_*.sh, sourced).
# The set-up is the scenario suite's (tests/scenarios/lib.sh, sourced here:
# loop devices, mounts, cgroups, read limits, caches, the ledger); this adds
# running `feedscope tune` on the job, the job alone at one setting (the
# ground truth), the kernel's own cgroup counters, and the verdict on tune's
# answer (judge.py). tests/tune/run.sh sets the environment.
#
# A test sets JOB (train.py's arguments, baseline setting included) and
# writes its outcome to $S/result: status=PASS|FAIL (why), trials, tune_s,
# best, optimum, speedup, predicted, truth.

. "$FS_TOP/tests/scenarios/lib.sh"
TUNE_DIR=$FS_TOP/tests/tune
# a trial: TUNE_WARMUP steps, then TUNE_STEPS timed ones
TUNE_STEPS=${TUNE_STEPS:-30}
TUNE_WARMUP=${TUNE_WARMUP:-5}
JOB=()

# truth: whether to sweep the settings with the job alone (TUNE_TRUTH=1,
# or =only: the sweeps without tune, to check a construction)
truth() { [ "${TUNE_TRUTH:-0}" != 0 ]; }
tune_too() { [ "${TUNE_TRUTH:-0}" != only ]; }

# job_field NAME KEY: KEY's value on train.py's summary line in $S/NAME.out
job_field() {
	grep '^train: ' "$S/$1.out" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# ---- the kernel's counters for the job's cgroups -------------------------

# cg_snap: the job's cgroup counters now, one line: seconds since the epoch,
# cpu periods, throttled periods, CPU ns used (cpuacct), bytes read (blkio:
# from the throttled disk, read_limit's; the loop device above it counts the
# same bytes again). A counter without its cgroup reads 0.
cg_snap() {
	local periods=0 thr=0 ns=0 rd=0
	if [ -n "${CG_cpu:-}" ]; then
		periods=$(awk '$1 == "nr_periods" { print $2 }' "$CG_cpu/cpu.stat")
		thr=$(awk '$1 == "nr_throttled" { print $2 }' "$CG_cpu/cpu.stat")
	fi
	[ -n "${CG_cpuacct:-}" ] && ns=$(cat "$CG_cpuacct/cpuacct.usage")
	[ -n "${CG_blkio:-}" ] && rd=$(awk -v mm="${THROTTLED_MM:-}" '$1 == mm && $2 == "Read" { s += $3 }
		END { print s + 0 }' "$CG_blkio/blkio.throttle.io_service_bytes")
	echo "$(date +%s.%N) $periods $thr $ns $rd"
}

# cg_delta BEFORE AFTER: between two cg_snap lines, into EV (for need):
# kc_throttled (% of cpu periods throttled), kc_cores (CPU used, cores),
# kc_read_mbps (MB/s read), kc_read_bytes
cg_delta() {
	local k v
	EV=()
	while IFS='=' read -r k v; do EV[$k]=$v; done < <(awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " "); dt = y[1] - x[1]; dp = y[2] - x[2]
		printf "kc_throttled=%.1f\n", (dp > 0 ? (y[3] - x[3]) / dp * 100 : 0)
		printf "kc_cores=%.2f\nkc_read_mbps=%.1f\n", (y[4] - x[4]) / 1e9 / dt, (y[5] - x[5]) / 1e6 / dt
		printf "kc_read_bytes=%d\n", y[5] - x[5] }')
}

# kc_text: what cg_delta measured, for the log (the cgroups the job has)
kc_text() {
	[ -n "${CG_cpuacct:-}" ] && printf '; the job used %s cores' "${EV[kc_cores]}"
	[ -n "${CG_cpu:-}" ] && printf ', throttled %s%% of periods' "${EV[kc_throttled]}"
	[ -n "${CG_blkio:-}" ] && printf '; read %s MB/s over the run%s' "${EV[kc_read_mbps]}" \
		"${EV[job_read_mbps]:+, ${EV[job_read_mbps]} MB/s over its loop}"
	return 0
}

# ---- the job alone: the ground truth -------------------------------------

# truth_run NAME SETTING...: train.py alone (no feedscope: record with
# RECORD_CMD=env) in the job's cgroups, JOB then the setting's own options;
# over the steps a trial times (--max-steps, --steady-after), unless
# TRUTH_STEPS/TRUTH_WARMUP say longer. Sets EV: cg_delta's over the run,
# and the job's own job_step (its mean step over the timed steps, s),
# job_wait (its wait share) and job_first_wait (the share of its wait in
# each epoch's first step); job_read_mbps: the bytes its cgroup read over
# its loop's time (the interpreter's start reads no data). Each run gets its
# own line in $S/truth.txt; a setting run more than once under one NAME
# counts by its fastest run (what else the machine does only slows a run).
truth_run() {
	local name=$1 a b
	shift
	local warm=${TRUTH_WARMUP:-$TUNE_WARMUP} steps=${TRUTH_STEPS:-$TUNE_STEPS}
	a=$(cg_snap)
	RECORD_CMD=(env)
	record "$name" -- "${JOB[@]}" --max-steps $((warm + steps)) --steady-after "$warm" "$@"
	RECORD_CMD=()
	b=$(cg_snap)
	cg_delta "$a" "$b"
	EV[job_step]=$(job_field "$name" steady_step_s)
	EV[job_wait]=$(job_field "$name" wait_share)
	EV[job_read_mbps]=$(awk -v b="${EV[kc_read_bytes]}" -v t="$(job_field "$name" total_s)" \
		'BEGIN { if (t > 0) printf "%.1f", b / t / 1e6; else print "nan" }')
	EV[job_first_wait]=$(awk -v f="$(job_field "$name" first_wait_s)" -v w="$(job_field "$name" wait_s)" \
		'BEGIN { if (w > 0) printf "%.4f", f / w; else print "nan" }')
	printf '%s step_s=%s wait_share=%s cores=%s throttled=%s read_mbps=%s\n' "$name" "${EV[job_step]}" \
		"${EV[job_wait]}" "${EV[kc_cores]}" "${EV[kc_throttled]}" "${EV[job_read_mbps]}" >>"$S/truth.txt"
	say "truth $name ($*): mean step ${EV[job_step]}s, wait share ${EV[job_wait]} (at epoch starts ${EV[job_first_wait]})$(kc_text)"
}

# truth_step NAME: the mean step of truth run NAME (its fastest, if several)
truth_step() {
	awk -v n="$1" '$1 == n { sub("step_s=", "", $2); if ($2 + 0 > 0 && (m == "" || $2 + 0 < m)) m = $2 + 0 }
		END { print m == "" ? "nan" : m }' "$S/truth.txt"
}

# truth_optimum NAME...: of the truth runs named, the first (list them
# cheapest first) whose mean step is within 3% of the fastest: the known
# optimum, as tune's own rule (a gain under 3% is no gain) would have it.
# Sets OPT (its name) and FASTEST (the fastest mean step).
truth_optimum() {
	local best n s
	best=$(for n in "$@"; do truth_step "$n"; done | grep -v nan | sort -g | head -1)
	FASTEST=$best
	OPT=""
	for n in "$@"; do
		s=$(truth_step "$n")
		if awk -v s="$s" -v b="$best" 'BEGIN { exit !(s + 0 > 0 && s <= b * 1.03) }'; then
			OPT=$n
			return 0
		fi
	done
	die "no truth run gave a mean step (see $S/truth.txt)"
}

# truth_line NAME...: the truth runs' mean steps on one line, for the result
truth_line() {
	local n line=""
	for n in "$@"; do
		line+="$n=$(awk -v s="$(truth_step "$n")" 'BEGIN { printf "%.4fs", s }') "
	done
	echo "${line}optimum=$OPT (the cheapest within 3% of the fastest, $(awk -v f="$FASTEST" 'BEGIN { printf "%.4f", f }')s)"
}

# ---- feedscope tune -------------------------------------------------------

# JOIN_PY: the job's way into its cgroups under tune (lib.sh's RECORD_JOIN):
# tune runs Python programs only, so a Python that joins them and execs the
# job stands where record puts sh.
JOIN_PY=("$PY" -c 'import os, sys
for c in os.environ.pop("FS_JOB_CGROUPS").split():
    with open(c + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
for k in ("LD_LIBRARY_PATH", "FAKE_NVML_SCRIPT"):
    os.environ.pop(k, None)
os.execv(sys.argv[1], sys.argv[1:])')

# tune_run NAME [TUNE_OPTIONS...]: `feedscope tune --json -o $S/NAME` on
# train.py with JOB (in the job's cgroups: tune and its recorders stay
# outside every limit, as record's feedscope does); its JSON in
# $S/NAME.json, its stderr in $S/NAME.err; TUNE_OPTS (words) go to tune
# too (e.g. --knobs prefetch_factor: watch a test fail). Sets TUNE_RC,
# TUNE_S (wall seconds) and EV (cg_delta over the whole tune run).
tune_run() {
	local name=$1 a b
	shift
	rm -rf "${S:?}/$name"
	a=$(cg_snap)
	# shellcheck disable=SC2206 # TUNE_OPTS is words
	RECORD_CMD=("$FEEDSCOPE" tune --json --steps "$TUNE_STEPS" --warmup "$TUNE_WARMUP" -o "$S/$name" "$@"
		${TUNE_OPTS:-} --)
	RECORD_JOIN=("${JOIN_PY[@]}")
	record_start "$name" -- "${JOB[@]}"
	RECORD_CMD=() RECORD_JOIN=()
	wait "$RECORD_PID"
	TUNE_RC=$?
	b=$(cg_snap)
	cg_delta "$a" "$b"
	TUNE_S=$(echo "$(date +%s.%N) $RECORD_T0" | awk '{ printf "%.0f", $1 - $2 }')
	cp "$S/$name.out" "$S/$name.json"
	say "feedscope tune exited $TUNE_RC after ${TUNE_S}s$(kc_text)"
	[ -s "$S/$name.err" ] && sed 's/^/    tune: /' "$S/$name.err" | tail -20 >&2
	return 0
}

# judge NAME [--want "KEY OP VALUE" WHY]...: tune's answer in $S/NAME.json
# against what the test wants (judge.py), the trial table printed; writes
# trials, recommend, tune_s, best, speedup, predicted and status to the
# result.
judge() {
	local name=$1 k v out status="FAIL (judge.py gave no answer)"
	shift
	out=$("$PY" "$TUNE_DIR/judge.py" "$S/$name.json" --rc "$TUNE_RC" "$@")
	while IFS='=' read -r k v; do
		case $k in
		status) status=$v ;;
		trials | recommend | best | speedup | predicted) result "$k" "$v" ;;
		esac
	done <<<"$out"
	result tune_s "$TUNE_S"
	result status "$status"
}

# physical NAME: the physical evidence of tune's baseline trial (its run
# file $S/NAME/trial-0.db, evidence.py, as the scenarios read theirs) into
# EV, for need checks; the job's own figures (job_*) from its output,
# trial-0.log (train.py's summary: a trial's job prints it as tune's hook
# ends it)
physical() {
	[ -f "$S/$1/trial-0.db" ] || die "tune left no baseline run file $S/$1/trial-0.db"
	cp "$S/$1/trial-0.log" "$S/$1/trial-0.out" 2>/dev/null
	DEVICE=${DATA_DEV:-} verdict "$1/trial-0"
}
