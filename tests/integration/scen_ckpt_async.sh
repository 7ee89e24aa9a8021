# The scenario job's --ckpt-async (tests/scenarios/train.py), without root:
# the checkpoints land on disk (each mode); the background thread writes
# while the loop keeps stepping; the loop's wait for a checkpoint still
# being written is counted in its checkpoint time (ckpt_wait_s, b_ckpt); a
# write that fails in the thread fails the job; bad options exit 2. The
# ckpt_write scenario's fix run (obtained speedup) rests on these.
# feedscope-binary: unused
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
SC=$FEEDSCOPE_TOP/tests/scenarios
cd "$TEST_TMP" || fail "no TEST_TMP"

"$PY" -c 'import numpy as np
for i in range(40): np.save("s%03d.npy" % i, np.full(500, i, dtype=np.uint8))' || fail "dataset"
mkdir -p npy ck && mv s*.npy npy/

summary() { grep '^train: ' "$2" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
sums_to_one() {
	grep '^train: ' "$1" | tail -1 | tr ' ' '\n' | awk -F= '/^b_/ { s += $2; if ($2 < 0 || $2 > 1) bad = 1 }
		END { exit !(!bad && s > 0.999 && s < 1.001) }' || fail "$1: buckets do not add up to 1: $(grep '^train:' "$1")"
}
job=(--data npy --samples 40 --batch 4 --workers 1 --compute-ms 2 --ckpt-every 4 --ckpt-mib 1 --ckpt-dir ck)

# 1. every mode, written by the thread: 10 steps, every 4 -> 2 checkpoints
for mode in write numpy torch; do
	"$PY" "$SC/train.py" "${job[@]}" --ckpt-mode $mode --ckpt-async >$mode.out 2>$mode.err ||
		{ cat $mode.err; fail "train.py --ckpt-mode $mode --ckpt-async"; }
	sums_to_one $mode.out
	[ "$(summary ckpt_n $mode.out)" = 2 ] || fail "$mode: ckpt_n=$(summary ckpt_n $mode.out), wanted 2"
	[ "$(summary ckpt_async $mode.out)" = 1 ] || fail "$mode: the summary does not say ckpt_async=1"
done
[ "$(stat -c %s ck/ckpt-1.bin)" = 1048576 ] || fail "the thread's f.write checkpoint is not 1 MiB"
"$PY" -c 'import numpy as np, sys; sys.exit(np.load("ck/ckpt-1.npy").nbytes != 1 << 20)' ||
	fail "the thread's numpy.save checkpoint does not load back as 1 MiB"
"$PY" -c 'import torch, sys; d = torch.load("ck/ckpt-1.pt"); sys.exit(d["step"] != 8 or d["weights"].numel() != 1 << 18)' ||
	fail "the thread's torch.save checkpoint does not load back as step 8, 1 MiB"

# 2. and 3.: train.py driven with its writer slowed down on purpose (no
# clock involved: each write waits for events of the loop thread).
# overlap: the write of step N's checkpoint holds until the loop has made
# step N + 2 (gives up after LIMIT s) and prints how many steps it saw.
# wait: each write holds until the loop thread is waiting for it, then
# 0.05 s more (so each wait lasts >= 0.05 s).
cat >drive.py <<'PY'
import sys, threading, time
sys.path.insert(0, sys.argv[1])
import train
how, limit = sys.argv[2], float(sys.argv[3])
calls = [0]
waiting = threading.Event()
real_step, real_save, real_wait = train.compute_step, train.save_checkpoint, train.CkptWriter.wait

def step(busy, seconds):
    calls[0] += 1
    return real_step(busy, seconds)

def save(mode, path, n, w):
    if how == "overlap":  # n: the step the checkpoint was taken at
        t_end = time.monotonic() + limit
        while calls[0] < n + 2 and time.monotonic() < t_end:
            time.sleep(0.001)
        print("advance=%d" % (calls[0] - n), file=sys.stderr)
    else:
        waiting.clear()  # set again only by a wait for this checkpoint
        waiting.wait(limit)
        print("loop_waiting=%d" % waiting.is_set(), file=sys.stderr)
        time.sleep(0.05)
    real_save(mode, path, n, w)

def wait(self):
    waiting.set()
    real_wait(self)

train.compute_step, train.save_checkpoint, train.CkptWriter.wait = step, save, wait
sys.argv = ["train.py"] + sys.argv[4:]
train.main()
PY
"$PY" drive.py "$SC" overlap 5 "${job[@]}" --ckpt-mode write --ckpt-async >ov.out 2>ov.err ||
	{ cat ov.err; fail "driven --ckpt-async (overlap)"; }
[ "$(grep -c '^advance=' ov.err)" = 2 ] || fail "overlap: wanted 2 writes, got: $(cat ov.err)"
grep '^advance=' ov.err | grep -qv '^advance=[2-9]' &&
	fail "the loop did not keep stepping while the thread wrote: $(grep '^advance=' ov.err | tr '\n' ' ')"
# the same writer without --ckpt-async: the loop stands still (the check above can fail)
"$PY" drive.py "$SC" overlap 0.2 "${job[@]}" --ckpt-mode write >sync.out 2>sync.err ||
	{ cat sync.err; fail "driven, synchronous"; }
[ "$(grep -c '^advance=0$' sync.err)" = 2 ] || fail "synchronous checkpoints overlapped the loop: $(cat sync.err)"
[ "$(summary ckpt_wait_s sync.out)" = 0.000 ] || fail "synchronous run reports a wait for a writer"

"$PY" drive.py "$SC" wait 5 "${job[@]}" --ckpt-every 2 --ckpt-mode write --ckpt-async >w.out 2>w.err ||
	{ cat w.err; fail "driven --ckpt-async (wait)"; }
sums_to_one w.out
grep -q '^loop_waiting=0' w.err && fail "the loop thread never waited for the writer: $(cat w.err)"
# 5 checkpoints, each ending >= 0.05 s after the loop began to wait for it
awk -v w="$(summary ckpt_wait_s w.out)" -v c="$(summary ckpt_s w.out)" -v b="$(summary b_ckpt w.out)" \
	-v t="$(summary total_s w.out)" 'BEGIN { exit !(w >= 0.25 && c >= w && b * t >= w - 0.01) }' ||
	fail "the loop's wait is not in its checkpoint time: $(grep '^train:' w.out)"

# 4. a write that fails in the thread fails the job, with its reason
"$PY" "$SC/train.py" "${job[@]}" --ckpt-dir nowhere --ckpt-mode write --ckpt-async >bad.out 2>bad.err &&
	fail "a checkpoint into a missing directory did not fail the job"
grep -q 'FileNotFoundError' bad.err || fail "no reason for the failed checkpoint: $(tail -2 bad.err)"
grep -q '^train: ' bad.out && fail "a failed job printed its summary"

# 5. --ckpt-async alone is bad input
"$PY" "$SC/train.py" --data npy --ckpt-async >opt.out 2>opt.err
[ $? -eq 2 ] || fail "--ckpt-async without --ckpt-every did not exit 2"
grep -q 'ckpt-async needs --ckpt-every' opt.err || fail "no clear message: $(cat opt.err)"
echo "scen_ckpt_async: ok"
