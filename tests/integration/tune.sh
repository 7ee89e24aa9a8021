# feedscope tune, the mechanics (tests/tune/ has the jobs whose best
# setting is known): bad usage exits 2 before any trial and makes nothing;
# a trial's settings reach the job's DataLoader (its own constructor call
# is overridden, what the job then sees is the new value), the hook ends
# the trial after warm-up + steps steps exactly, the job's finally blocks
# run and its output goes to the trial's log; --env reaches the job; a job
# without a DataLoader, a job that fails, and Ctrl-C (SIGINT) each end the
# search with their own status and still print the trials; --json parses.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch

bad() { # WANT_MESSAGE ARGS...
	want=$1
	shift
	"$FEEDSCOPE" tune "$@" >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 2 ] || fail "tune $*: exit $rc, expected 2 ($(cat bad.err))"
	grep -qF -- "$want" bad.err || fail "tune $*: said '$(cat bad.err)', expected '$want'"
	[ -s bad.out ] && fail "tune $*: wrote on stdout: $(cat bad.out)"
	return 0
}
mkdir full && touch full/x
bad "bad --steps '0'" --steps 0 -- "$PY" x.py
bad "bad --steps 'x'" --steps x -- "$PY" x.py
bad "bad --warmup '-1'" --warmup -1 -- "$PY" x.py
bad "bad --budget '0'" --budget 0 -- "$PY" x.py
bad "unknown knob 'threads'" --knobs num_workers,threads -- "$PY" x.py
bad "expected K=V" --env NOVALUE -- "$PY" x.py
bad "FEEDSCOPE_ variables are feedscope's own" --env FEEDSCOPE_TUNE=x -- "$PY" x.py
bad "bad --max-workers '0'" --max-workers 0 -- "$PY" x.py
bad "bad interval '0'" -i 0 -- "$PY" x.py
bad "bad interval '2h'" -i 2h -- "$PY" x.py
bad "no command given" --steps 10
bad "'sleep' is not a Python program" -- sleep 1
bad "full is not empty" -o full -- "$PY" x.py
bad "--bogus" --bogus -- "$PY" x.py
ls -d feedscope-tune-* 2>/dev/null && fail "a usage error made a trials directory"
expect_status 0 "$FEEDSCOPE" tune --help >help.txt
grep -q "Side effects are the job's own" help.txt || fail "tune --help: $(cat help.txt)"

# The job: 2 workers, samples of 20 ms (a sleep), steps of 5 ms; prints
# what its loader got and that its finally ran, and its TUNE_MARK.
cat >job.py <<'EOF'
import os, sys, time, torch
from torch.utils.data import DataLoader, Dataset
class Items(Dataset):
    def __len__(self): return 48
    def __getitem__(self, i): time.sleep(0.02); return i
fail_after = int(os.environ.get("FAIL_AFTER", "0"))
loader = DataLoader(Items(), 4, num_workers=2)
print("mark", os.environ.get("TUNE_MARK"), flush=True)
print("loader", loader.num_workers, loader.prefetch_factor, loader.persistent_workers, flush=True)
n = 0
try:
    for epoch in range(50):
        for batch in loader:
            n += 1
            if fail_after and n == fail_after:
                sys.exit(3)
            time.sleep(0.005)
finally:
    print("finally after", n, flush=True)
EOF

# JSON, and the trials' files.
"$FEEDSCOPE" tune -q --no-gpu --json --steps 12 --warmup 3 --env TUNE_MARK=hello -o t1 \
	--knobs num_workers,persistent_workers -- "$PY" job.py >t1.json 2>t1.err
rc=$?
[ $rc -eq 0 ] || fail "tune: exit $rc: $(cat t1.err) $(cat t1/trial-0.log)"
"$PY" - t1.json <<'EOF' || fail "tune --json: $(cat t1.json)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["trials"]
assert d["warmup"] == 3, d
# 12 steps of ~45 ms are under the 30 samples (3 s) a verdict needs, and
# the job's epochs (48 items in batches of 4: 12 steps) end inside a trial:
# the baseline is run again over more steps, in whole epochs, and said
assert d["steps"] > 12 and "fewer than the 30 samples" in d["steps_note"], d
assert "each trial measures whole epochs" in d["steps_note"], d
assert d["window"] == "epochs" and d["epoch_steps"] == 12, d
assert t[0]["why"] == "baseline" and t[0]["status"] == "ok", t[0]
assert t[0]["knobs"]["num_workers"] == 2 and t[0]["asked"] == {}, t[0]
# measured: whole epochs after the warm-up (3) and the 2 workers' first
# 2 x 2 batches: from step 12, round(steps / 12) epochs
k = max(1, (d["steps"] + 6) // 12)
assert t[0]["window"] == "epochs" and t[0]["prefill"] == 4, t[0]
assert t[0]["first_step"] == 12 and t[0]["steps"] == 12 * k, t[0]
# and the trial ran those epochs and one step of the next
open("t1.steps", "w").write(str(12 + 12 * k + 1))
assert d["best"] is not None and isinstance(d["best"]["python"], str), d
assert d["stopped"] in ("converged", "no_knob_helps", "compute_bound", "budget"), d["stopped"]
# each later trial asked for what its knobs show, within --knobs
for x in t[1:]:
    assert set(x["asked"]) <= {"num_workers", "persistent_workers"}, x
    for k, v in x["asked"].items():
        assert x["knobs"][k] == v, x
EOF
# the first baseline ran 3 + 12 steps and then the hook ended it, the
# second the epochs said; the job's finally ran each time
n=$(cat t1.steps)
for f in 0-run1:15 0:$n; do
	tr=${f%%:*} want=${f#*:}
	[ "$(q t1/trial-$tr.db "select count(*) from steps")" = "$want" ] ||
		fail "trial-$tr: $(q t1/trial-$tr.db "select count(*) from steps") steps, expected $want"
	[ "$(q t1/trial-$tr.db "select value from meta where key = 'hook.tune.ended'")" = "$want" ] || fail "trial-$tr: no hook.tune.ended"
	[ "$(q t1/trial-$tr.db "select count(*) from meta where key like 'hook.tune.applied.%'")" = 0 ] ||
		fail "the baseline changed a setting"
	grep -qx "mark hello" t1/trial-$tr.log || fail "--env did not reach the job: $(cat t1/trial-$tr.log)"
	grep -qx "finally after $want" t1/trial-$tr.log || fail "the job's finally: $(cat t1/trial-$tr.log)"
	grep -qx "loader 2 2 False" t1/trial-$tr.log || fail "baseline loader: $(cat t1/trial-$tr.log)"
done

# A trial's settings, as the job sees them: run trial 1's setting by hand
# through the hook's variable (what tune sets), and the job's loader has it.
FEEDSCOPE_TUNE="num_workers=3 prefetch_factor=4 persistent_workers=1 steps=5" \
	"$FEEDSCOPE" run -q --no-gpu -o set.db -- "$PY" job.py >set.out 2>set.err ||
	fail "run with FEEDSCOPE_TUNE: $(cat set.err)"
grep -qx "loader 3 4 True" set.out || fail "the override: $(cat set.out)"
grep -qx "finally after 5" set.out || fail "the stop after 5 steps: $(cat set.out)"
[ "$(q set.db "select value from meta where key = 'loader.Items.num_workers'")" = 3 ] || fail "loader meta"
# num_workers=0: prefetch and persistence are left at the defaults torch needs
FEEDSCOPE_TUNE="num_workers=0 prefetch_factor=4 persistent_workers=1 steps=4" \
	"$FEEDSCOPE" run -q --no-gpu -o set0.db -- "$PY" job.py >set0.out 2>set0.err ||
	fail "run with num_workers=0: $(cat set0.err)"
grep -qx "loader 0 2 False" set0.out || fail "the override with 0 workers: $(cat set0.out) $(cat set0.err)"

# The text: a table, the stop, the best as Python, or no change said so
# (which of the two is the machine's: unit/test_tune has both).
"$FEEDSCOPE" tune -q --no-gpu --steps 12 --warmup 3 --budget 1m -o t2 -- "$PY" job.py >t2.txt 2>t2.err ||
	fail "tune (text): $(cat t2.err)"
for s in "^feedscope tune: [0-9]+ trials? in " "^trial workers prefetch pin persist batch    step  noise" \
	"^stopped \(" "t2/trial-N.db"; do
	grep -Eq -- "$s" t2.txt || fail "tune text: no '$s': $(cat t2.txt)"
done
if grep -q "^best: trial [0-9]" t2.txt; then
	grep -Eq "^    DataLoader\(\.\.\., " t2.txt || fail "tune text: a best with no Python: $(cat t2.txt)"
	grep -q "^no change recommended" t2.txt && fail "tune text: a best and no change: $(cat t2.txt)"
else
	grep -q "^no change recommended: " t2.txt || fail "tune text: neither a best nor no change: $(cat t2.txt)"
	grep -q "DataLoader(" t2.txt && fail "tune text: no change, yet a DataLoader line: $(cat t2.txt)"
fi
[ -f t2/trial-0.db ] && [ -f t2/trial-0.log ] || fail "no trial-0 files in t2"

# No DataLoader: exit 1, said.
"$FEEDSCOPE" tune -q --no-gpu --json -o t3 -- "$PY" -c 'print("no loader here")' >t3.json 2>t3.err
rc=$?
[ $rc -eq 1 ] || fail "tune of a job without a DataLoader: exit $rc"
grep -q '"stopped":"no_dataloader"' t3.json || fail "no DataLoader: $(cat t3.json)"
grep -q "created no torch DataLoader" t3.json || fail "no DataLoader message: $(cat t3.json)"

# The job fails after 4 steps in every trial: the baseline failed, exit 1.
FAIL_AFTER=4 "$FEEDSCOPE" tune -q --no-gpu --json --warmup 1 --steps 10 -o t4 -- "$PY" job.py >t4.json 2>t4.err
rc=$?
[ $rc -eq 1 ] || fail "tune of a failing job: exit $rc"
grep -q '"stopped":"job_failed"' t4.json || fail "failing job: $(cat t4.json)"
grep -q 'exited with status 3' t4.json || fail "failing job's status: $(cat t4.json)"

# Ctrl-C during a trial (a job far from its end): 130, the trials so far.
"$FEEDSCOPE" tune --no-gpu --steps 100000 -o t5 -- "$PY" job.py >t5.txt 2>t5.err &
tp=$!
for _ in $(seq 200); do
	[ -s t5/trial-0.log ] && break
	sleep 0.1
done
sleep 1
kill -INT $tp
wait $tp
rc=$?
[ $rc -eq 130 ] || fail "tune after SIGINT: exit $rc ($(cat t5.err))"
grep -q "^stopped (interrupted)" t5.txt || fail "interrupted: $(cat t5.txt)"
pgrep -f "$TEST_TMP/job.py" >/dev/null && fail "the interrupted job is still running"
exit 0
