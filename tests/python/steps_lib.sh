# steps_lib.sh - shared by tests/integration/steps_*.sh (sourced after
# tests/lib/integration.sh). Records a Python job either end to end with
# `feedscope run --pytorch` (the default) or, with STEPS_RECEIVER=python,
# with tests/python/fsrecv.py standing in for feedscope.

PY=/usr/bin/python3
PYTESTS=$FEEDSCOPE_TOP/tests/python
JOB=$PYTESTS/torch_job.py

need_torch() {
	[ -x "$PY" ] || skip "needs $PY"
	"$PY" -c 'import torch' 2>/dev/null || skip "needs python3-torch for $PY"
	need_cmd sqlite3
}

# The receiver: feedscope itself, or with STEPS_RECEIVER=python the stand-in
# tests/python/fsrecv.py (to test the Python side alone).
need_receiver() {
	if [ "${STEPS_RECEIVER:-}" = python ]; then
		MODE=python
	else
		MODE=feedscope
	fi
}

# record NAME ARGS... : run torch_job.py ARGS recorded into NAME.db or
# NAME.rec; its stdout in NAME.out, stderr in NAME.err; sets SRC (an array) to the
# check_steps.py source option. Returns the job's exit status.
record() {
	local name=$1
	shift
	if [ "$MODE" = feedscope ]; then
		SRC=(--db "$name.db")
		"$FEEDSCOPE" run -q --pytorch -o "$name.db" -- "$PY" "$JOB" "$@" >"$name.out" 2>"$name.err"
	else
		SRC=(--records "$name.rec")
		"$PY" -S "$PYTESTS/fsrecv.py" --out "$name.rec" -- "$PY" "$JOB" "$@" >"$name.out" 2>"$name.err"
	fi
}

# steps_of NAME LOADER : number of steps recorded for LOADER
steps_of() {
	if [ -f "$1.db" ] && [ "$MODE" = feedscope ]; then
		q "$1.db" "SELECT count(*) FROM steps WHERE loader = '$2'"
	else
		awk -v l="$2" '($1 == "S1" || $1 == "S2") && $3 == l { n++ } END { print n + 0 }' "$1.rec"
	fi
}
