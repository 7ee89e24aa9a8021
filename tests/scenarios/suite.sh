# What the scenario suite's runner and the tune tests' (tests/tune/run.sh)
# share: the prerequisites checked before anything is set up, and the undo
# of everything set up when the runner ends. Sourced by both. Uses $PY,
# $FEEDSCOPE, $FS_BUILD, $FS_RUN_DIR, $child (the running test's shell) and
# $RUN_LEDGER (the runner's own ledger, if any).

# suite_skip LABEL WHY: a suite that cannot run is skipped (77), loudly;
# under CI=true it fails (1).
suite_skip() {
	if [ "${CI:-}" = true ]; then
		echo "$1: FAIL: cannot run ($2), and CI=true runs everything" >&2
		exit 1
	fi
	echo "$1: SKIPPED (not passed): $2" >&2
	exit 77
}

# suite_prereqs LABEL CONTROLLER...: root, the tools, torch and numpy for
# $PY, those cgroup v1 controllers, and feedscope and the fake NVML built.
suite_prereqs() {
	local label=$1 c
	shift
	[ "$(id -u)" -eq 0 ] || suite_skip "$label" "needs root (loop devices, cgroups, drop_caches)"
	for c in losetup mkfs.ext4 findmnt lsblk tac; do
		command -v $c >/dev/null 2>&1 || suite_skip "$label" "needs $c"
	done
	"$PY" -c 'import torch, numpy' 2>/dev/null || suite_skip "$label" "needs python3-torch and python3-numpy for $PY"
	for c in "$@"; do
		[ -f /sys/fs/cgroup/$c/cgroup.procs ] ||
			suite_skip "$label" "needs the cgroup v1 $c controller at /sys/fs/cgroup/$c"
	done
	[ -x "$FEEDSCOPE" ] || { echo "$label: $FEEDSCOPE is not built (make)"; exit 1; }
	[ -f "$FS_BUILD/tests/nvml/full/libnvidia-ml.so.1" ] ||
		{ echo "$label: the fake NVML is not built (make unit)"; exit 1; }
}

# undo LEDGER: lib.sh's undo_ledger, in a shell of its own
undo() {
	FS_SCEN=_undo bash -c '. tests/scenarios/lib.sh; trap - EXIT; undo_ledger "$1"; rm -rf "$S"' _ "$1"
}

# suite_cleanup LABEL (the EXIT trap): the running test first (its own trap
# undoes its ledger), then every ledger again, then the runner's own; the
# run directory removed unless FS_KEEP=1.
suite_cleanup() {
	local rc=$? l
	trap - EXIT INT TERM
	if [ -n "${child:-}" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	for l in "$FS_RUN_DIR"/*/ledger ${RUN_LEDGER:+"$RUN_LEDGER"}; do
		[ -f "$l" ] && undo "$l"
	done
	case $rc in 130 | 143) echo "$1: interrupted; everything set up was undone" >&2 ;; esac
	if [ "${FS_KEEP:-0}" = 1 ]; then
		rm -f "$FS_DATA_IMG"
		echo "$1: kept $FS_RUN_DIR"
	else
		rm -rf "$FS_RUN_DIR"
	fi
	exit $rc
}

# suite_run NAME CMD...: CMD run as scenario NAME (FS_SCEN) in the
# background, so that suite_cleanup can stop it; its ledger undone, its
# results in R; sets rc.
suite_run() {
	local name=$1
	shift
	rm -rf "${FS_RUN_DIR:?}/$name"
	FS_SCEN=$name "$@" &
	child=$!
	wait "$child"
	rc=$?
	child=""
	undo "$FS_RUN_DIR/$name/ledger"
	R=()
	if [ -f "$FS_RUN_DIR/$name/result" ]; then
		while IFS='=' read -r k v; do R[$k]=$v; done <"$FS_RUN_DIR/$name/result"
	fi
}

# suite_try RUN NAME: RUN NAME (a function that fills R and rc), and once
# more when its set-up was not physically what it claims (a need check
# failed: the machine did something else meanwhile); a wrong answer is
# never retried. Sets retried (" (second try)" or "").
suite_try() {
	retried=""
	"$1" "$2"
	if [ -n "${R[setup_error]:-}" ]; then
		echo "  $2: setup failed (${R[setup_error]}); building it once more" >&2
		"$1" "$2"
		retried=" (second try)"
	fi
}

# suite_start PREFIX LABEL: the run directory (/tmp/feedscope-PREFIX.*,
# exported with what the tests read), and suite_cleanup on exit.
suite_start() {
	FS_RUN_DIR=$(mktemp -d "/tmp/feedscope-$1.XXXXXX")
	export FS_TOP FS_BUILD FEEDSCOPE FS_RUN_DIR
	export FS_DATA_IMG=$FS_RUN_DIR/data.img
	child=""
	trap "suite_cleanup '$2'" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
