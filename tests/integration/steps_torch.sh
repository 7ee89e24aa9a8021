# Zero-code PyTorch hook, end to end: a real DataLoader whose samples take a
# known time and a loop whose steps take a known time, with 0 and 2 workers,
# fork and spawn, recorded by `feedscope run --pytorch`. The run file must
# hold every epoch and step exactly, one checkpoint phase per torch.save, the
# loader's configuration, and a wait share within 3 points of what the job's
# own clock says (its stderr) and within 10 of the analytic value (the model
# is in tests/python/check_steps.py).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
need_receiver

# check NAME ARGS... : record the job with ARGS, then check the record with
# ARGS (--no-share and --no-meta are for the checker only)
check() {
	local name=$1 a rc
	local job=()
	shift
	for a in "$@"; do
		case $a in --no-share | --no-meta) ;; *) job+=("$a") ;; esac
	done
	record "$name" "${job[@]}"
	rc=$?
	[ $rc -eq 0 ] || { cat "$name.err"; fail "$name: the job exited $rc"; }
	"$PY" "$PYTESTS/check_steps.py" "${SRC[@]}" --truth "$name.err" "$@" || { cat "$name.err"; fail "$name: see above"; }
	grep -q '^done: ' "$name.out" || fail "$name: the job did not finish"
}

# The main process loads: wait = 4 x 5 ms per step, compute 30 ms -> 40%.
check w0 --workers 0 --batch 4 --item-ms 5 --compute-ms 30 --steps 20 --epochs 2
# Two workers, each 4 x 10 ms per batch, compute 8 ms -> 1 - 2*8/40 = 60%.
check w2_fork --workers 2 --context fork --batch 4 --item-ms 10 --compute-ms 8 --steps 24 --epochs 2
check w2_spawn --workers 2 --context spawn --batch 4 --item-ms 10 --compute-ms 8 --steps 24 --epochs 2
check w2_persistent --workers 2 --context fork --persistent --batch 4 --item-ms 10 --compute-ms 8 --steps 24 --epochs 2
# Leaving each epoch early: the step in flight at the break is recorded too.
check w2_break --workers 2 --context fork --batch 2 --item-ms 1 --compute-ms 1 --steps 12 --epochs 3 --break-at 4 --no-share
exit 0
