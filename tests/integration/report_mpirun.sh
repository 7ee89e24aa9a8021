# The README's recipe for a job mpirun starts itself: one `feedscope run`
# per rank (`mpirun -np 2 sh -c 'feedscope run -o r-$OMPI_COMM_WORLD_RANK.db
# -- python job.py'`), then `feedscope report` of the files. Each rank is
# recognised from OMPI_COMM_WORLD_RANK (no RANK variable), rank 1 is made
# slow (its samples take 40 ms to load; the job prints its own waits), and
# the merged report names it the straggler, each file a "node" of one
# process told apart by its file's name (one host).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
for p in openmpi-bin:mpirun python3-torch:/usr/bin/python3; do
	command -v "${p#*:}" >/dev/null 2>&1 || [ -x "${p#*:}" ] ||
		apt-get install -y -q --no-install-recommends "${p%%:*}" >/dev/null 2>&1 || fail "needs ${p%%:*} (apt-get failed)"
done
/usr/bin/python3 -c 'import torch' 2>/dev/null || fail "needs python3-torch for /usr/bin/python3"
# one machine, no network: shared memory, no ssh launcher
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm_rsh_agent='' OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_base_warn_component_unused=0
cat >job.py <<'PY'
import os, time
from torch.utils.data import DataLoader, Dataset
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
class DS(Dataset):
    def __len__(self): return 40
    def __getitem__(self, i):
        time.sleep(0.04 if rank == 1 else 0.001)
        return i
wait = 0.0
t_ask = time.perf_counter()
for b in DataLoader(DS(), batch_size=2, num_workers=1):
    wait += time.perf_counter() - t_ask
    time.sleep(0.01)  # the step
    t_ask = time.perf_counter()
print("rank=%d wait_s=%.3f" % (rank, wait))
PY
timeout 120 mpirun --allow-run-as-root -np 2 sh -c \
	'"$0" run -q -o r-$OMPI_COMM_WORLD_RANK.db -- /usr/bin/python3 job.py' "$FEEDSCOPE" >mpi.out 2>mpi.err ||
	fail "mpirun: exit $? ($(tail -5 mpi.err))"
[ -f r-0.db ] && [ -f r-1.db ] || fail "no run file per rank: $(ls)"
# the job's own truth: rank 1 waited longer
w0=$(sed -n 's/^rank=0 wait_s=//p' mpi.out)
w1=$(sed -n 's/^rank=1 wait_s=//p' mpi.out)
awk -v a="$w0" -v b="$w1" 'BEGIN { exit !(b > 2 * a) }' || fail "rank 1 is not the slow one by its own account: $w0 $w1"
[ "$(q r-1.db "SELECT DISTINCT rank FROM ranks WHERE var = 'OMPI_COMM_WORLD_RANK'")" = 1 ] ||
	fail "rank 1 not recognised from OMPI_COMM_WORLD_RANK: $(q r-1.db 'SELECT * FROM ranks')"
"$FEEDSCOPE" report --json r-0.db r-1.db >rep.json 2>rep.err || fail "report: exit $? ($(cat rep.err))"
/usr/bin/python3 - <<'PY' || fail "merged report: $(cat rep.json)"
import json
d = json.load(open("rep.json"))
assert d["files"] == 2, d["files"]
st = d["straggler"]
assert st["rank"] == 1, st
assert st["node"].endswith("(r-1.db)"), st["node"]
ranks = {r["rank"]: r for r in d["ranks"]}
assert sorted(ranks) == [0, 1], ranks
assert ranks[1]["buckets"]["input_wait"] > ranks[0]["buckets"]["input_wait"], ranks
print("straggler rank %d on %s; input wait rank 0 %.2f, rank 1 %.2f" % (
    st["rank"], st["node"], ranks[0]["buckets"]["input_wait"], ranks[1]["buckets"]["input_wait"]))
PY
exit 0
