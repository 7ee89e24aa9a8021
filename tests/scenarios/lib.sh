# lib.sh - shared by the scenario scripts (tests/scenarios/s_*.sh, sourced).
# run.sh sets the environment; a scenario script is run by run.sh only.
#
#   FS_TOP       repository root          FEEDSCOPE   the binary under test
#   FS_BUILD     build directory (the fake NVML libraries are under it)
#   FS_RUN_DIR   this suite run's private directory under /tmp
#   FS_DATA_IMG  the dataset image (ext4, made once per run by run.sh)
#   FS_SCEN      this scenario's name; its files go to $FS_RUN_DIR/$FS_SCEN
#
# Every resource a scenario makes (loop device, mount, cgroup, blkio rule,
# the feedscope process) is written to its ledger ($S/ledger) before it is
# made, and undone in reverse order on exit, on INT/TERM, and once more by
# run.sh afterwards (undoing is idempotent). A root-cgroup blkio rule is
# removed before its loop device is detached (see shared/machine-notes.md).
#
# A scenario writes its outcome to $S/result (key=value lines) and exits 0;
# anything else is a failure to set up, reported by run.sh.

set -u
PY=/usr/bin/python3
SCEN_DIR=$FS_TOP/tests/scenarios
TRAIN=$SCEN_DIR/train.py
S=$FS_RUN_DIR/$FS_SCEN
LEDGER=$S/ledger
CG_NAME=feedscope-scen-${FS_RUN_DIR##*.}-$FS_SCEN
# The emulated accelerators' busy files (train.py replaces one every 10 ms
# of compute; the fake NVML reads it): on tmpfs, so that this bookkeeping,
# which is not the job's, costs ~0.03 ms a write whatever the disk is doing.
# On the disk under /tmp a replace took up to tens of ms behind other
# programs' writes, stretched the job's steps and dropped out of its busy
# time. Made by record_start; removed with the ledger.
BUSY_DIR=/dev/shm/$CG_NAME
JOB_CGROUPS=()
mkdir -p "$S"
: >"$S/result"

say() { printf '  %s: %s\n' "$FS_SCEN" "$*" >&2; }
die() { # a failure to set up the scenario
	say "SETUP FAILED: $*"
	result setup_error "$*"
	exit 1
}
result() { printf '%s=%s\n' "$1" "$2" >>"$S/result"; }
ledger() { printf '%s\n' "$*" >>"$LEDGER"; }

# ---- undoing -------------------------------------------------------------

# undo_ledger FILE: undo every line, last first. Safe to run twice.
undo_ledger() {
	local f=$1 kind a b
	[ -f "$f" ] || return 0
	# the job's processes first, while feedscope (their subreaper) is there
	# to reap them: a zombie keeps its cgroup busy until someone does
	while read -r kind a b; do
		[ "$kind" = cgroup ] && kill_members "$a"
	done <"$f"
	tac "$f" | while read -r kind a b; do
		case $kind in
		pid) kill_pid "$a" ;;
		cgroup) remove_cgroup "$a" ;;
		rule) [ -e "$a" ] && echo "$b 0" >"$a" 2>/dev/null ;;
		netns) [ -e "/run/netns/$a" ] && ip netns del "$a" ;;
		busydir) case $a in /dev/shm/feedscope-scen-*) rm -rf "$a" ;; esac ;;
		mount) mountpoint -q "$a" 2>/dev/null && { umount "$a" 2>/dev/null || { sleep 0.5; umount "$a" 2>/dev/null; } || umount -l "$a"; } ;;
		loop) [ "$(losetup -nO BACK-FILE "$a" 2>/dev/null | sed 's/ *$//')" = "$b" ] && losetup -d "$a" ;;
		esac
	done
	return 0
}

kill_pid() { # only the process this scenario started (its command line names our run directory)
	tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -qF "$FS_RUN_DIR/" || return 0
	kill -TERM "$1" 2>/dev/null
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL "$1" 2>/dev/null
}

kill_members() { # the processes the job left in cgroup $1 (its own), by id
	local p
	[ -f "$1/cgroup.procs" ] || return 0
	while read -r p; do kill -KILL "$p" 2>/dev/null; done <"$1/cgroup.procs"
}

remove_cgroup() { # end what the job left in it, then rmdir (retried: zombies)
	local cg=$1 i
	for i in $(seq 50); do
		[ -d "$cg" ] || return 0
		kill_members "$cg"
		rmdir "$cg" 2>/dev/null && return 0
		sleep 0.2
	done
	rmdir "$cg"
}

# teardown: undo everything made so far (before a second recording)
teardown() {
	undo_ledger "$LEDGER"
	: >"$LEDGER"
	JOB_CGROUPS=()
	unset CG_blkio CG_cpu CG_memory CG_pids
}

on_exit() {
	local rc=$?
	trap - EXIT INT TERM
	undo_ledger "$LEDGER"
	exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- storage -------------------------------------------------------------

# loop_attach IMG [losetup options]: prints the device
loop_attach() {
	local img=$1 dev
	shift
	dev=$(losetup -f --show --direct-io=on "$@" "$img") || return 1
	ledger loop "$dev" "$img"
	echo "$dev"
}

majmin() { lsblk -dno MAJ:MIN "$1" | tr -d ' '; }

# mount_data [MOUNT_OPTIONS]: the dataset image, read-only, freshly mounted
# (a new mount has a cold page cache, dentry and inode cache), through a loop
# device in direct-I/O mode (no second copy in the page cache of the image
# file). Sets DATA, DATA_DEV (loopN), DATA_MM (MAJ:MIN).
mount_data() {
	local opts=ro${1:+,$1} dev
	DATA=$S/data
	mkdir -p "$DATA"
	dev=$(loop_attach "$FS_DATA_IMG" -r) || die "losetup $FS_DATA_IMG"
	ledger mount "$DATA"
	mount -o "$opts" "$dev" "$DATA" || die "mount $dev"
	DATA_DEV=$(basename "$dev")
	DATA_MM=$(majmin "$dev")
}

# make_ckpt_dev MIB: a private, empty ext4 for checkpoints. Sets CKPT_DIR,
# CKPT_DEV, CKPT_MM.
make_ckpt_dev() {
	local img=$S/ckpt.img dev
	truncate -s "${1}M" "$img"
	mkfs.ext4 -q -F "$img" || die "mkfs.ext4 $img"
	dev=$(loop_attach "$img") || die "losetup $img"
	CKPT_DIR=$S/ckpt
	mkdir -p "$CKPT_DIR"
	ledger mount "$CKPT_DIR"
	mount "$dev" "$CKPT_DIR" || die "mount $dev"
	CKPT_DEV=$(basename "$dev")
	CKPT_MM=$(majmin "$dev")
}

# backing_mm: MAJ:MIN of the whole disk that holds the dataset image. The
# loop device passes each request on to it (direct I/O, charged to the
# cgroup of the task that issued the request), so a blkio rule on it makes
# the loop device itself slow: requests wait in it, its util% and await go
# up, as on a slow disk. Empty if the image is not on a block device.
backing_mm() {
	local mm sys
	mm=$(findmnt -no MAJ:MIN -T "$FS_DATA_IMG" | head -1 | tr -d ' ')
	case $mm in 0:*|"") return 0 ;; esac
	sys=$(readlink -f "/sys/dev/block/$mm") || return 0
	[ -f "$sys/partition" ] && mm=$(cat "$sys/../dev")
	echo "$mm"
}

# ---- cgroups (v1) --------------------------------------------------------

# cgroup CONTROLLER...: a child cgroup for the job under each controller,
# below this shell's own cgroup there (so any limit above still holds).
cgroup() {
	local c rel dir
	for c in "$@"; do
		[ -d "/sys/fs/cgroup/$c" ] || die "no cgroup v1 $c controller at /sys/fs/cgroup/$c"
		rel=$(awk -F: -v c="$c" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup)
		dir=/sys/fs/cgroup/$c${rel%/}/$CG_NAME
		ledger cgroup "$dir"
		mkdir "$dir" || die "mkdir $dir"
		JOB_CGROUPS+=("$dir")
		eval "CG_$c=\$dir"
	done
}

# cg_set CONTROLLER FILE VALUE: in the job's cgroup
cg_set() {
	local dir
	eval "dir=\${CG_$1:-}"
	[ -n "$dir" ] || die "no $1 cgroup"
	echo "$3" >"$dir/$2" || die "echo $3 > $dir/$2"
}

# read_limit bps|iops VALUE: throttle the job's reads of the dataset (blkio
# cgroup of the job, rule on the disk under the image; on the loop device
# itself if the image is not on a disk).
read_limit() {
	local mm file=blkio.throttle.read_$1_device
	mm=$(backing_mm)
	[ -n "$mm" ] || mm=$DATA_MM
	# shellcheck disable=SC2154
	ledger rule "$CG_blkio/$file" "$mm"
	cg_set blkio "$file" "$mm $2"
	THROTTLED_MM=$mm
}

# root_write_limit MAJ:MIN BPS: writeback is done by kernel threads in the
# root blkio cgroup, so a write limit must be set there, on a private device.
root_write_limit() {
	local file=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
	ledger rule "$file" "$1"
	echo "$1 $2" >"$file" || die "echo $1 $2 > $file"
}

# ---- caches --------------------------------------------------------------

# cold: drop every clean cache, then bring the interpreter and torch back
# (outside the job's cgroups) so that only the dataset is cold.
cold() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$PY" -c 'import numpy, torch, torch.utils.data' || die "python3 with torch"
}

warm() { find "$@" -type f -exec cat {} + >/dev/null; }

# ---- recording -----------------------------------------------------------

# record NAME [FEEDSCOPE_OPTIONS...] -- [TRAIN_OPTIONS...]
# Runs train.py under `feedscope run` into $S/NAME.db: the job (not
# feedscope, which stays outside every limit) joins the job's cgroups before
# it execs Python; the emulated
# accelerator's busy time goes to the fake NVML (unless --no-gpu). Job stdout
# and stderr in $S/NAME.out/.err. Sets RECORD_S (wall seconds).
record() {
	record_start "$@"
	record_wait "$1"
}

# record_start NAME ...: record's first half, in the background (for jobs
# recorded side by side, e.g. one feedscope per node); sets RECORD_PID.
# WRAP, if set, is put before feedscope (e.g. nsenter/unshare: a "node").
# GPUS=N: N fake GPUs; rank r > 0 of train.py --dist feeds gpu r
# (BUSY_FILE.r), unless GPU0_BUSY names the file gpu0 reads (a node whose
# only GPU belongs to a rank r > 0).
# RECORD_CMD, if set, launches the job instead of `feedscope run ... --`
# (e.g. "$FEEDSCOPE" tune ... --, or env: the job alone); the job still
# joins the cgroups first, through RECORD_JOIN if set (a command that joins
# the cgroups in $FS_JOB_CGROUPS, unsets it, LD_LIBRARY_PATH and
# FAKE_NVML_SCRIPT, and execs its arguments) instead of sh.
record_start() {
	local name=$1 hook=(--pytorch) g
	shift
	local fsopts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		fsopts+=("$1")
		[ "$1" = --no-hook ] && hook=()
		shift
	done
	[ $# -gt 0 ] && shift
	local busy=$BUSY_DIR/$name.busy nvml=$S/$name.nvml
	if [ ! -d "$BUSY_DIR" ]; then
		ledger busydir "$BUSY_DIR"
		mkdir -p "$BUSY_DIR" || die "mkdir $BUSY_DIR"
	fi
	rm -f "$busy" "$busy".[0-9]* "$S/$name.db"
	# a pids cgroup (no limit) holds every process of the job, so that an
	# interrupted scenario can end them all, orphaned workers included
	[ -d "${CG_pids:-/nonexistent}" ] || cgroup pids
	printf 'count=%s\ngpu0.name=Emulated accelerator (fake NVML)\ngpu0.mem_total=85899345920\ngpu0.busy_file=%s\n' \
		"${GPUS:-1}" "${GPU0_BUSY:-$busy}" >"$nvml"
	for ((g = 1; g < ${GPUS:-1}; g++)); do # one emulated accelerator per rank (train.py --dist)
		printf 'gpu%d.name=Emulated accelerator (fake NVML)\ngpu%d.mem_total=85899345920\ngpu%d.busy_file=%s.%d\n' \
			$g $g $g "$busy" $g >>"$nvml"
	done
	[ ${#LAUNCH[@]} -gt 0 ] || LAUNCH=("$PY" "$TRAIN")
	local launch=("$FEEDSCOPE" run -q -f -o "$S/$name.db" "${hook[@]}" "${fsopts[@]}" --)
	[ ${#RECORD_CMD[@]} -gt 0 ] && launch=("${RECORD_CMD[@]}")
	local join=(sh -c 'for c in $FS_JOB_CGROUPS; do echo $$ >"$c/cgroup.procs" || exit 125; done
			unset FS_JOB_CGROUPS LD_LIBRARY_PATH FAKE_NVML_SCRIPT
			exec "$@"' sh)
	[ ${#RECORD_JOIN[@]} -gt 0 ] && join=("${RECORD_JOIN[@]}")
	RECORD_T0=$(date +%s.%N)
	LD_LIBRARY_PATH=$FS_BUILD/tests/nvml/full FAKE_NVML_SCRIPT=$nvml \
		FS_JOB_CGROUPS="${JOB_CGROUPS[*]}" \
		${WRAP[@]+"${WRAP[@]}"} "${launch[@]}" "${join[@]}" \
		"${LAUNCH[@]}" --busy-file "$busy" "$@" >"$S/$name.out" 2>"$S/$name.err" &
	RECORD_PID=$!
	ledger pid "$RECORD_PID"
}

# record_wait NAME: record's second half: waits for record_start's
# feedscope ($RECORD_PID, or the pid given second), checks its exit and the
# job's summary. Sets RECORD_S (wall seconds since record_start).
record_wait() {
	local name=$1 pid=${2:-$RECORD_PID} rc
	wait "$pid"
	rc=$?
	RECORD_S=$(echo "$(date +%s.%N) $RECORD_T0" | awk '{ printf "%.1f", $1 - $2 }')
	if [ $rc -ne 0 ]; then
		tail -5 "$S/$name.err" >&2
		die "$name: feedscope run exited $rc"
	fi
	grep '^train: ' "$S/$name.out" >&2 || die "$name: no summary from train.py"
}

# LAUNCH: what record runs instead of "$PY" "$TRAIN" (e.g. torchrun ...
# train.py); its arguments follow. GPUS=N: N fake GPUs, gpu r fed by rank r.
LAUNCH=()
WRAP=()
RECORD_CMD=()
RECORD_JOIN=()

# verdict NAME: feedscope report on NAME.db into NAME.json (if the command
# exists), then the evidence (evidence.py) into the array EV. DEVICE, if
# set, is the dataset's device.
declare -A EV
verdict() {
	local name=$1 rep=() k v
	VERDICT_NAME=$name
	if "$FEEDSCOPE" report --help >/dev/null 2>&1; then
		if "$FEEDSCOPE" report --format json "$S/$name.db" >"$S/$name.json" 2>"$S/$name.report.err"; then
			rep=(--report "$S/$name.json")
		else
			say "feedscope report failed: $(tail -1 "$S/$name.report.err")"
			echo '{"verdict": {"primary": "report_failed"}}' >"$S/$name.json"
			rep=(--report "$S/$name.json")
		fi
		# the same run read from its per-minute tables only (a figure for
		# run.sh's table, never a pass or fail: a job of a minute or two is
		# the coarsest case of that reading)
		MINUTE_VERDICT=none
		if "$FEEDSCOPE" report --format json --resolution minute "$S/$name.db" >"$S/$name.minute.json" 2>/dev/null; then
			MINUTE_VERDICT=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"]["primary"])' \
				"$S/$name.minute.json" 2>/dev/null || echo none)
			# a phase scenario: its phases' verdicts, as got= has them
			[ -z "${PHASES_EXPECTED:-}" ] ||
				MINUTE_VERDICT=$("$PY" -c 'import json, sys; print(">".join(p["primary"] for p in json.load(open(sys.argv[1]))["verdict"]["phases"]) or "none")' \
					"$S/$name.minute.json" 2>/dev/null || echo none)
		fi
	fi
	EV=()
	while IFS='=' read -r k v; do
		EV[$k]=$v
	done < <("$PY" "$SCEN_DIR/evidence.py" "$S/$name.db" ${DEVICE:+--device "$DEVICE"} \
		--job-out "$S/$name.out" "${rep[@]}")
	[ ${#EV[@]} -gt 0 ] || die "$name: evidence.py failed"
}

# show KEY...: print evidence figures on one line
show() {
	local k line=""
	for k in "$@"; do line+="$k=${EV[$k]:-?} "; done
	say "evidence: $line"
}

# need "KEY OP NUMBER" [why]: a physical check that the bottleneck was built;
# failing it is a failure to set the scenario up.
need() {
	local k op n
	read -r k op n <<<"$1"
	local v=${EV[$k]:-nan}
	if ! awk -v v="$v" -v n="$n" -v op="$op" 'BEGIN {
		if (v == "nan" || v == "") exit 1
		v += 0; n += 0
		if (op == ">=") exit !(v >= n); if (op == "<=") exit !(v <= n)
		if (op == ">") exit !(v > n); if (op == "<") exit !(v < n); exit 1 }'; then
		die "physical check failed: $k=$v, wanted $op $n${2:+ ($2)}"
	fi
}

# expect ID [TRUTH_KEY]: the verdict this scenario is built to have, and
# the evidence key its truth comes from (wait_share: the steps table;
# job_wait_share: train.py's own summary, for hook-off runs)
expect() {
	EXPECTED=$1
	TRUTH_KEY=${2:-wait_share}
	result expected "$1"
}

# expect_phases "ID>ID...": a job whose bottleneck changes during the run
# (issue 36): the report's phases, their verdicts in order, must be these
# (the line's got= is the report's phases joined by ">"); each phase's
# input-bound share beside the job's own wait share over the same epochs
# (train.py's `epochs:` line) is in the phases table of run.sh.
expect_phases() {
	EXPECTED=$1
	PHASES_EXPECTED=1
	TRUTH_KEY=${2:-wait_share}
	result expected "$1"
	result phases_expected yes
}

# expect_limit LIMIT: the limit of the storage (bytes, iops, latency,
# metadata) the report must name, with a runner-up printed; a report naming
# another, or none, fails the scenario as a wrong verdict does (the line's
# got= says verdict(limit ...)).
expect_limit() {
	EXPECT_LIMIT=$1
	result limit_expected "$1"
}

# expect_device_clock: a scenario on the asynchronous emulated accelerator
# (train.py --device async; issue 35), after expect: its truth is the
# device's own timeline (the job's dev_idle_in_wait_share, beside
# input_bound_fraction), and finish checks the two bounds of issue 35,
# which fail the scenario as a wrong verdict does (run.sh: "FAIL (device
# clock: ...)"): input_bound_fraction within DEVCLOCK_POINTS (5) points of
# dev_idle_in_wait_share, predicted_speedup within DEVCLOCK_PCT (15) % of
# the job's ideal_speedup (step / max(device, host) per step). The buckets
# table's idle and checkpoint truths are the device's too (dev_idle_share,
# dev_idle_in_ckpt_share).
expect_device_clock() {
	DEVCLOCK=1
	TRUTH_KEY=job_dev_idle_in_wait_share
	result devclock_expected yes
}

# devclock_result: expect_device_clock's checks on the last verdict (EV),
# and the path the run took: events (the steps carry the device's idle from
# its events), nvml (steps, no events: the analysis puts NVML against the
# host's waits) or nohook (no steps).
devclock_result() {
	local path=nvml out
	awk -v s="${EV[steps]:-nan}" 'BEGIN { exit !(s == "nan" || s + 0 <= 0) }' && path=nohook
	awk -v n="${EV[dev_events_n]:-nan}" 'BEGIN { exit !(n != "nan" && n + 0 > 0) }' && path=events
	out=$(awk -v ib="${EV[input_bound]:-nan}" -v t="${EV[job_dev_idle_in_wait_share]:-nan}" \
		-v ps="${EV[predicted_speedup]:-nan}" -v is="${EV[job_ideal_speedup]:-nan}" \
		-v pt="${DEVCLOCK_POINTS:-5}" -v pc="${DEVCLOCK_PCT:-15}" '
		function num(x) { return x ~ /^[0-9.eE+-]+$/ }
		BEGIN {
			e1 = num(ib) && num(t) ? (ib > t ? ib - t : t - ib) * 100 : -1
			e2 = num(ps) && num(is) && is > 0 ? (ps > is ? ps - is : is - ps) / is * 100 : -1
			why = ""
			if (e1 < 0) why = "no input-bound figure"
			else if (e1 > pt) why = sprintf("input-bound %.2f, truth %.2f: %.1f points", ib, t, e1)
			if (e2 < 0) why = why (why == "" ? "" : "; ") "no predicted speedup"
			else if (e2 > pc) why = why (why == "" ? "" : "; ") sprintf("predicted %.2fx, ideal %.2fx: %.0f%%", ps, is, e2)
			printf "%s\t%s\t%s\t%s\n", e1 < 0 ? "nan" : sprintf("%.2f", e1), e2 < 0 ? "nan" : sprintf("%.2f", e2),
				why == "" ? "yes" : "no", why
		}')
	local e1 e2 ok why
	IFS=$'\t' read -r e1 e2 ok why <<<"$out"
	result devclock_path "$path"
	result devclock_ideal "${EV[job_ideal_speedup]:-nan}"
	result devclock_input_err "$e1"
	result devclock_speedup_err "$e2"
	result devclock_ok "$ok"
	result devclock_why "$why"
	say "device clock ($path): input-bound ${EV[input_bound]:-nan} vs the device's idle in the waits" \
		"${EV[job_dev_idle_in_wait_share]:-nan} ($e1 points); predicted ${EV[predicted_speedup]:-nan}x vs" \
		"ideal ${EV[job_ideal_speedup]:-nan}x ($e2%): ${why:-within ${DEVCLOCK_POINTS:-5} points and ${DEVCLOCK_PCT:-15}%}"
}

# events_check: an async-device scenario's path was the one it claims:
# with EVENTS=on and the hook, the steps carry the device's idle (at least
# 90% of them), and its sum is within 3 points of the device's span of the
# job's own dev_idle_in_wait_s (the events measure what the truth does);
# with the hook and EVENTS=off, no step carries one (the NVML path).
events_check() {
	[ "${NOHOOK:-0}" = 1 ] && return 0
	if [ "${EVENTS:-off}" = on ]; then
		EV[dev_events_err_pt]=$(awk -v a="${EV[dev_events_idle_s]:-nan}" -v b="${EV[job_dev_idle_in_wait_s]:-nan}" \
			-v s="${EV[job_dev_span_s]:-nan}" 'BEGIN {
			if (a == "nan" || b == "nan" || s == "nan" || s + 0 <= 0) { print "nan"; exit }
			d = a - b; if (d < 0) d = -d; printf "%.2f", d / s * 100 }')
		show dev_events_n dev_events_frac dev_events_idle_s job_dev_idle_in_wait_s dev_events_err_pt timeline
		need "dev_events_frac >= 0.9" "the device's events recorded for the steps"
		need "dev_events_err_pt <= 3" "the events' idle sums to the device's own idle in the waits"
	else
		need "dev_events_n <= 0" "no device events (the NVML path)"
	fi
}

# finish: write the scenario's result fields from the last verdict
finish() {
	local truth_key=${TRUTH_KEY:-wait_share} got=${EV[verdict]}
	result sat_named "${EV[sat_named]:-none}"
	result sat_named_share "${EV[sat_named_share]:-nan}"
	result sat_runner "${EV[sat_runner]:-none}"
	result sat_runner_share "${EV[sat_runner_up_share]:-nan}"
	if [ -n "${EXPECT_LIMIT:-}" ]; then
		# the text report must print the limit and its runner-up
		local text
		text=$("$FEEDSCOPE" report "$S/${VERDICT_NAME:-run}.db" 2>/dev/null | grep '^  storage limit: ')
		case $text in *"runner-up: "*) ;; *) got="$got(no runner-up printed)" ;; esac
		[ "${EV[sat_named]:-none}" = "$EXPECT_LIMIT" ] || got="$got(limit ${EV[sat_named]:-none})"
		say "storage limit: ${text#  storage limit: }"
	fi
	# the report's phases (one for a job built with one bottleneck: more
	# is a false split, counted by run.sh)
	result phase_count "${EV[phase_count]:-0}"
	result phases "${EV[phases]:-none}"
	result phase_epochs "${EV[phase_epochs]:-none}"
	result phase_fs "${EV[phase_fs]:-none}"
	result phase_truth "${EV[phase_truth]:-none}"
	result phase_err_pts "${EV[phase_err_pts]:-nan}"
	if [ -n "${PHASES_EXPECTED:-}" ]; then
		got=${EV[phases]:-none}
		say "phases: ${EV[phases]} epochs ${EV[phase_epochs]} input-bound ${EV[phase_fs]} (the job's own ${EV[phase_truth]}); epochs ${EV[job_epoch_waits]}"
	fi
	result got "$got"
	result minute_verdict "${MINUTE_VERDICT:-none}"
	result input_bound "${EV[input_bound]}"
	result truth "${EV[$truth_key]}"
	result confidence "${EV[confidence]}"
	result predicted_speedup "${EV[predicted_speedup]}"
	result step_mean_s "${EV[step_mean_s]}"
	# the broad suite's bucket table (run.sh --all): the job's own buckets
	# (train.py's b_* shares) beside the report's figures
	local tin=job_b_input
	case $truth_key in job_b_input* | job_dev_*) tin=$truth_key ;; esac
	result truth_input "${EV[$tin]:-nan}"
	result fs_ckpt "${EV[fs_ckpt_share]:-nan}"
	if [ -n "${DEVCLOCK:-}" ]; then # the device's own timeline
		result truth_ckpt "${EV[job_dev_idle_in_ckpt_share]:-nan}"
		result truth_idle "${EV[job_dev_idle_share]:-nan}"
		devclock_result
	else
		result truth_ckpt "${EV[job_b_ckpt]:-nan}"
		result truth_idle "$(awk -v b="${EV[job_accel_busy]:-${EV[job_b_busy]:-nan}}" 'BEGIN { if (b == "nan") print "nan"; else printf "%.4f", 1 - b }')"
	fi
	result fs_idle "${EV[fs_idle]:-nan}"
	result truth_coll "${EV[job_coll_share_r0]:-nan}"
	result fs_coll "${EV[fs_coll_r0]:-nan}"
	rank_rows
	straggler_result
}

# ---- several ranks -------------------------------------------------------

# rank_rows: with several ranks, the per-rank table (each rank's own input
# and collective shares beside the report's buckets for it; evidence.py's
# rN_* keys) printed, and kept in the result as "ranks" (one row per rank,
# "rank:job_input:fs_input:job_coll:fs_coll:node", space-separated) for
# run.sh's table of all runs.
rank_rows() {
	local r rows="" list=${EV[rank_list]:-none}
	case $list in none | *[!0-9,]*) return 0 ;; esac
	[ "$list" = "${list#*,}" ] && return 0 # one rank: nothing to compare
	say "ranks: the job's own shares of each rank's loop beside the report's (err in points)"
	say "$(printf '%4s %-16s %9s %8s %5s %9s %8s %5s' rank node job_input fs_input err job_coll fs_coll err)"
	for r in ${list//,/ }; do
		local ji=${EV[r${r}_job_input]:-nan} fin=${EV[r${r}_fs_input]:-nan}
		local jc=${EV[r${r}_job_coll]:-nan} fc=${EV[r${r}_fs_coll]:-nan} node=${EV[r${r}_fs_node]:-none}
		say "$(awk -v r="$r" -v n="$node" -v a="$ji" -v b="$fin" -v c="$jc" -v d="$fc" '
			function e(x, y) { return (x == "nan" || y == "nan") ? "-" : sprintf("%.1f", (x > y ? x - y : y - x) * 100) }
			function f(x) { return x == "nan" ? "nan" : sprintf("%.3f", x) }
			BEGIN { printf "%4s %-16s %9s %8s %5s %9s %8s %5s", r, n, f(a), f(b), e(a, b), f(c), f(d), e(c, d) }')"
		rows+="${rows:+ }$r:$ji:$fin:$jc:$fc:$node"
	done
	result ranks "$rows"
}

# expect_straggler RANK [NODE]: the rank (and node) the report must name as
# the one the others wait on; a report naming another fails the scenario
# (run.sh), as a wrong verdict does.
expect_straggler() {
	STRAGGLER=$1
	STRAGGLER_NODE=${2:-}
	result straggler_expected "$1${2:+@$2}"
}

# straggler_result: whom the report named: its "straggler" object, else (a
# report without one) the rank the verdict speaks for (accounting.rank:
# the trainer, the straggler by docs/verdicts.md's rule).
straggler_result() {
	[ -n "${STRAGGLER:-}" ] || return 0
	local r=${EV[fs_straggler_rank]:-nan} from=straggler node=""
	if [ "$r" = nan ]; then
		r=${EV[fs_trainer_rank]:-nan} from=accounting.rank
	else
		node=${EV[fs_straggler_node]:-none}
	fi
	[ -n "$STRAGGLER_NODE" ] && [ "$from" = straggler ] && r="$r@$node"
	result straggler_got "$r"
	result straggler_from "$from"
	say "straggler: the report names rank $r (from $from; cause ${EV[fs_straggler_cause]:-absent}), expected ${STRAGGLER}${STRAGGLER_NODE:+@$STRAGGLER_NODE}"
}

# ---- the broad suite (run.sh --all) --------------------------------------

# twin: the hook on, or off when the scenario is run through its
# s_nohook_NAME.sh twin (which sets NOHOOK=1 and sources s_NAME.sh). Sets
# HOOK_OPTS for record and checks that the hook really was off.
twin() {
	HOOK_OPTS=()
	[ "${NOHOOK:-0}" = 1 ] && HOOK_OPTS=(--no-hook)
	return 0
}
twin_check() { # after verdict: a hook-off run has no steps
	[ "${NOHOOK:-0}" = 1 ] && need "steps <= 0" "the hook is off"
	return 0
}

# need_py MODULE PACKAGE: a Python module for $PY, installed from Debian's
# archive when missing (a scenario that cannot get it fails, loudly)
need_py() {
	"$PY" -c "import $1" 2>/dev/null && return 0
	say "installing $2 (for $PY: import $1)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >"$S/apt.log" 2>&1 ||
		{ apt-get update -qq >>"$S/apt.log" 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$2" >>"$S/apt.log" 2>&1; }
	"$PY" -c "import $1" 2>/dev/null || die "$PY cannot import $1 ($2 not installable: see $S/apt.log)"
}

# shaped_link RATE: two network namespaces made for this scenario, joined
# by a veth pair: the server's end SRV_ADDR (10.213.0.1/30) in $NS_SRV, the
# job's end (10.213.0.2/30) in $NS_JOB; the server's egress (what the job
# downloads) shaped by tc tbf to RATE (e.g. 40mbit). Addresses exist only
# inside these namespaces; deleting them (ledger) removes the pair.
shaped_link() {
	local id=${FS_RUN_DIR##*.}
	id=$(echo "$id$FS_SCEN" | cksum | cut -c1-6)
	NS_SRV=fs-scen-$id-srv NS_JOB=fs-scen-$id-job
	SRV_ADDR=10.213.0.1
	command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (iproute2)"
	ledger netns "$NS_SRV"
	ip netns add "$NS_SRV" || die "ip netns add $NS_SRV"
	ledger netns "$NS_JOB"
	ip netns add "$NS_JOB" || die "ip netns add $NS_JOB"
	ip link add fsv0 netns "$NS_SRV" type veth peer name fsv1 netns "$NS_JOB" || die "veth pair"
	ip -n "$NS_SRV" addr add $SRV_ADDR/30 dev fsv0 || die "address in $NS_SRV"
	ip -n "$NS_JOB" addr add 10.213.0.2/30 dev fsv1 || die "address in $NS_JOB"
	ip -n "$NS_SRV" link set fsv0 up && ip -n "$NS_JOB" link set fsv1 up &&
		ip -n "$NS_SRV" link set lo up && ip -n "$NS_JOB" link set lo up || die "links up"
	tc -n "$NS_SRV" qdisc add dev fsv0 root tbf rate "$1" burst 32kbit latency 100ms ||
		die "tc tbf $1 on the server's end"
}

# http_server SAMPLE_KIB: the sample server (http_samples.py) in $NS_SRV on
# port 8080, bounded (requests, lifetime), ended by the ledger. Sets
# DATA_URL (GET DATA_URL<i>).
http_server() {
	local ready=$S/http.ready i
	rm -f "$ready"
	ip netns exec "$NS_SRV" "$PY" "$SCEN_DIR/http_samples.py" --addr $SRV_ADDR --port 8080 \
		--sample-kib "$1" --ready "$ready" --max-requests 20000 --lifetime-s 240 \
		>"$S/http.log" 2>&1 &
	ledger pid "$!"
	for i in $(seq 50); do
		[ -f "$ready" ] && break
		sleep 0.1
	done
	[ -f "$ready" ] || die "the sample server did not start: $(tail -1 "$S/http.log")"
	DATA_URL=http://$SRV_ADDR:8080/s/
}

# link_rate RATE [BURST]: re-shape the link shaped_link made (the same tbf
# qdisc on the server's end, changed in place: no new namespaces, the
# server keeps running) to RATE; BURST defaults to 32kbit, as shaped_link's.
# Dies unless tc then shows the new rate.
link_rate() {
	[ -n "${NS_SRV:-}" ] || die "link_rate before shaped_link"
	tc -n "$NS_SRV" qdisc change dev fsv0 root tbf rate "$1" burst "${2:-32kbit}" latency 100ms ||
		die "tc tbf change to $1 on the server's end"
	tc -n "$NS_SRV" qdisc show dev fsv0 | grep -qi "rate $1 " ||
		die "the server's end is not at $1: $(tc -n "$NS_SRV" qdisc show dev fsv0)"
}

# report_knobs NAME: the knobs the report NAME.json (see verdict)
# recommends, one per line ("verdict"."recommendations"[]."knob"); nothing
# if it recommends none or cannot be read.
report_knobs() {
	"$PY" - "$S/$1.json" <<'PYEOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        recs = json.load(f).get("verdict", {}).get("recommendations") or []
except (OSError, ValueError, AttributeError):
    recs = []
for r in recs:
    if isinstance(r, dict) and r.get("knob"):
        print(r["knob"])
PYEOF
}

# speedup BEFORE AFTER: BEFORE / AFTER with two decimals ("nan" if either
# is not a positive number)
speedup() {
	awk -v a="$1" -v b="$2" 'BEGIN { n = "^[0-9.eE+-]+$"
		if (a ~ n && b ~ n && a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else printf "nan" }'
}
