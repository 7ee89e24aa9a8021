# The hook's time per stage in DataLoader workers (issue 39, item 1;
# docs/markers.md "Stages"): first against a receiving socket bound by the
# test (tests/python/test_stages.py: the stages named, a call per sample and
# per batch, fork and spawn, pickling, exceptions, nn.Sequential, iterable
# and wrapped datasets, FEEDSCOPE_STAGES=0, no workers); then end to end
# under `feedscope run --pytorch`: the loader_stages rows, their calls
# against the samples the job loaded, and the report's loader_stages.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
"$PY" "$PYTESTS/test_stages.py" || fail "test_stages.py"

cat >job.py <<'PYEOF'
import sys, time, torch
from torch.utils.data import DataLoader, Dataset

def burn(s):
    end = time.thread_time() + s
    while time.thread_time() < end:
        pass

class Compose:
    def __init__(self, transforms): self.transforms = transforms
    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x

class Light:
    def __call__(self, x): burn(0.001); return x

class Heavy:
    def __call__(self, x): burn(0.006); return x

class DS(Dataset):
    def __init__(self): self.transform = Compose([Light(), Heavy(), Light()])
    def __len__(self): return 96
    def __getitem__(self, i): return torch.tensor([self.transform(i)])

for b in DataLoader(DS(), batch_size=8, num_workers=2):
    time.sleep(0.002)
PYEOF
"$FEEDSCOPE" run -q --pytorch -o st.db -- "$PY" job.py >st.out 2>st.err || { cat st.err; fail "the job failed"; }
[ "$(q st.db "SELECT sum(calls) FROM loader_stages WHERE kind = 'getitem' AND stage = 'DS.__getitem__'")" = 96 ] ||
	fail "getitem calls: $(q st.db "SELECT sum(calls) FROM loader_stages WHERE kind = 'getitem'")"
[ "$(q st.db "SELECT sum(calls) FROM loader_stages WHERE stage = 'transform[1]:Heavy'")" = 96 ] || fail "transform calls"
[ "$(q st.db "SELECT sum(calls) FROM loader_stages WHERE kind = 'fetch'")" = 12 ] || fail "batches"
[ "$(q st.db "SELECT count(DISTINCT pid) FROM loader_stages")" = 2 ] || fail "two workers"
[ "$(q st.db "SELECT count(*) FROM loader_stages WHERE cpu_s > wall_s + 0.001 OR wall_s < 0")" = 0 ] || fail "cpu within wall"
[ "$(q st.db "SELECT value FROM meta WHERE key = 'markers.stages'")" -gt 0 ] || fail "markers.stages"
"$FEEDSCOPE" report --format json st.db >st.json || fail "report"
"$PY" - st.json <<'PYEOF' || fail "the report's loader_stages"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
st = {s["name"]: s for s in m["loader_stages"]}
assert m["loader_stages_timed"] is True, m.get("loader_stages_timed")
heavy, light = st["transform[1]:Heavy"], st["transform[0]:Light"]
assert 0 < heavy["calls"] <= 96, heavy  # the part of the rows inside the loop
# the job's own figures: Heavy burns six times Light's CPU
assert heavy["cpu_seconds"] > 3 * light["cpu_seconds"], (heavy, light)
assert heavy["share"] > light["share"], (heavy, light)
assert st["DS.__getitem__"]["self_seconds"] <= st["DS.__getitem__"]["seconds"]
PYEOF
# hook off: no stages, and the report says they were not timed
"$FEEDSCOPE" run -q --no-hook -o off.db -- "$PY" job.py >off.out 2>off.err || fail "the job failed (no hook)"
[ "$(q off.db "SELECT count(*) FROM loader_stages")" = 0 ] || fail "stages without the hook"
"$FEEDSCOPE" report --format json off.db >off.json || fail "report (no hook)"
"$PY" -c 'import json, sys; m = json.load(open(sys.argv[1]))["metrics"]; assert m["loader_stages_timed"] is False and m["loader_stages"] == [], m' off.json ||
	fail "the hook-off report's loader_stages"
exit 0
