# The two runs tests/integration/diff.sh and diff_html.sh compare (sourced
# by both): a PyTorch DataLoader job whose samples each
# wait 10 ms (a sleep: a remote service) and whose steps compute 5 ms; A
# loads in the main process (num_workers 0), B with two workers. Needs
# $PY, $FEEDSCOPE, fail; works in the current directory.
SC=$FEEDSCOPE_TOP/tests/scenarios

"$PY" -c 'import numpy as np
for i in range(48): np.save("s%03d.npy" % i, np.full(256, i, dtype=np.uint8))' || fail "dataset"
mkdir -p npy && mv s*.npy npy/

job() { # NAME WORKERS
	"$FEEDSCOPE" run -q -o "$1.db" -- "$PY" "$SC/train.py" --data npy --samples 48 --batch 4 \
		--item-sleep-ms 10 --compute-ms 5 --workers "$2" >"$1.out" 2>"$1.err" ||
		{ cat "$1.err"; fail "$1: the job failed"; }
}
job a 0
job b 2
