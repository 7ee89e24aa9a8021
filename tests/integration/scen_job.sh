# The broad scenario suite's own pieces, without root: train.py's own
# account (its b_* buckets add up to 1, checkpoints by f.write/numpy.save
# land on disk with their sizes, each epoch of --fresh-epochs is its own
# files, the validation pass is timed), the sample server (answers what
# was asked, is bounded by --max-requests) and evidence.py's reading of a
# two-rank job's summary lines. The scenarios' truth rests on these.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
SC=$FEEDSCOPE_TOP/tests/scenarios
cd "$TEST_TMP" || fail "no TEST_TMP"

"$PY" -c 'import numpy as np
for i in range(40): np.save("s%03d.npy" % i, np.full(500, i, dtype=np.uint8))' || fail "dataset"
mkdir -p npy ck && mv s*.npy npy/

# summary KEY FILE: one value from the job's summary line
summary() { grep '^train: ' "$2" | tail -1 | tr ' ' '\n' | sed -n "s/^$1=//p"; }
sums_to_one() {
	grep '^train: ' "$1" | tail -1 | tr ' ' '\n' | awk -F= '/^b_/ { s += $2; if ($2 < 0 || $2 > 1) bad = 1 }
		END { exit !(!bad && s > 0.999 && s < 1.001) }' || fail "$1: buckets do not add up to 1: $(grep '^train:' "$1")"
}

for mode in write numpy; do
	"$PY" "$SC/train.py" --data npy --samples 40 --batch 4 --workers 1 --compute-ms 2 \
		--ckpt-every 4 --ckpt-mib 1 --ckpt-dir ck --ckpt-mode $mode >$mode.out 2>$mode.err ||
		{ cat $mode.err; fail "train.py --ckpt-mode $mode"; }
	sums_to_one $mode.out
	[ "$(summary ckpt_n $mode.out)" = 2 ] || fail "$mode: ckpt_n=$(summary ckpt_n $mode.out), wanted 2 (10 steps, every 4)"
done
[ "$(stat -c %s ck/ckpt-0.bin)" = 1048576 ] || fail "f.write checkpoint is not 1 MiB"
"$PY" -c 'import numpy as np, sys; x = np.load("ck/ckpt-1.npy"); sys.exit(x.nbytes != 1 << 20)' ||
	fail "numpy.save checkpoint does not load back as 1 MiB"

# --fresh-epochs: 2 epochs of 20 need 40 files; 3 epochs would need 60
"$PY" "$SC/train.py" --data npy --samples 20 --epochs 2 --fresh-epochs --batch 5 --workers 1 \
	--compute-ms 2 --val-data npy --val-samples 10 --val-compute-ms 3 >fresh.out 2>fresh.err ||
	{ cat fresh.err; fail "train.py --fresh-epochs"; }
sums_to_one fresh.out
[ "$(summary steps fresh.out)" = 8 ] || fail "fresh: steps=$(summary steps fresh.out), wanted 8"
awk -v v="$(summary val_s fresh.out)" -v b="$(summary val_busy_s fresh.out)" \
	'BEGIN { exit !(b >= 0.012 && v >= b) }' || fail "validation not timed: $(grep '^train:' fresh.out)"
"$PY" "$SC/train.py" --data npy --samples 20 --epochs 3 --fresh-epochs --workers 0 >short.out 2>short.err &&
	fail "--fresh-epochs with too few files was accepted"
grep -q 'needs 60 files' short.err || fail "no clear message for too few files: $(cat short.err)"

# the sample server: right sizes, bounded by --max-requests
port=$((20000 + RANDOM % 20000))
"$PY" "$SC/http_samples.py" --addr 127.0.0.1 --port $port --sample-kib 16 --ready ready \
	--max-requests 12 --lifetime-s 60 >srv.log 2>&1 &
srv=$!
for i in $(seq 50); do [ -f ready ] && break; sleep 0.1; done
[ -f ready ] || { kill $srv; fail "server did not start: $(cat srv.log)"; }
"$PY" "$SC/train.py" --data "http://127.0.0.1:$port/s/" --format http --samples 12 --batch 3 --workers 1 \
	--compute-ms 1 >http.out 2>http.err || { kill $srv; cat http.err; fail "train.py --format http"; }
[ "$(summary samples http.out)" = 12 ] || fail "http: samples=$(summary samples http.out)"
for i in $(seq 50); do kill -0 $srv 2>/dev/null || break; sleep 0.1; done
if kill -0 $srv 2>/dev/null; then kill $srv; fail "the server outlived --max-requests 12"; fi

# evidence.py: two ranks, rank 1 slow; rank 0's line is the job's
sqlite3 empty.db 'CREATE TABLE x (y)'
cat >ranks.out <<'T'
train: steps=10 epochs=1 samples=40 wait_s=0.100 compute_s=3.000 busy_s=0.2 ckpt_n=0 ckpt_s=0 first_wait_s=0.1 total_s=3.100 wait_share=0.0323 rank=0 coll_s=2.500 val_s=0 val_busy_s=0 b_busy=0.0645 b_input=0.0323 b_ckpt=0 b_coll=0.8065 b_val=0 b_other=0.0967
train: steps=10 epochs=1 samples=40 wait_s=2.600 compute_s=0.500 busy_s=0.2 ckpt_n=0 ckpt_s=0 first_wait_s=0.3 total_s=3.100 wait_share=0.8387 rank=1 coll_s=0.100 val_s=0 val_busy_s=0 b_busy=0.0645 b_input=0.8387 b_ckpt=0 b_coll=0.0323 b_val=0 b_other=0.0645
T
"$PY" "$SC/evidence.py" empty.db --job-out ranks.out >ev.txt || fail "evidence.py"
for kv in job_ranks=2 job_slow_rank=1 job_wait_share_max=0.8387 job_b_input_slow=0.8387 \
	job_coll_share_r0=0.8065 job_wait_share=0.0323 job_b_coll=0.8065; do
	grep -qx "$kv" ev.txt || fail "evidence.py: wanted $kv, got: $(grep "^${kv%%=*}=" ev.txt)"
done
# evidence.py's per-rank table: each rank's own shares beside the report's
# buckets for it (accounting.processes[], or a merged report's ranks[] and
# straggler), and one node's own report (--rank-report) for a rank --report lacks
cat >one.json <<'T'
{"verdict": {"primary": "storage_bandwidth"}, "accounting": {"rank": 1, "processes": [
 {"pid": 11, "rank": 1, "buckets": {"input_wait": 0.8, "other_ranks": 0.03}}]}}
T
cat >other.json <<'T'
{"verdict": {"primary": "undetermined"}, "accounting": {"rank": 0, "processes": [
 {"pid": 10, "rank": 0, "buckets": {"input_wait": 0.04, "other_ranks": 0.79}}]}}
T
"$PY" "$SC/evidence.py" empty.db --job-out ranks.out --report one.json --rank-report nodeA=other.json \
	--rank-report nodeB=one.json >ev.txt || fail "evidence.py --rank-report"
for kv in rank_list=0,1 r0_job_input=0.0323 r1_job_coll=0.03226 r0_fs_input=0.04 r0_fs_coll=0.79 r0_fs_node=nodeA \
	r1_fs_input=0.8 r1_fs_node=nodeB fs_trainer_rank=1 fs_straggler_rank=nan fs_straggler_node=absent; do
	grep -qx "$kv" ev.txt || fail "evidence.py per rank: wanted $kv, got: $(grep "^${kv%%=*}=" ev.txt)"
done
cat >merged.json <<'T'
{"verdict": {"primary": "storage_bandwidth"}, "straggler": {"rank": 1, "node": "nodeB", "pid": 11,
 "cause": "storage_bandwidth"}, "ranks": [{"rank": 0, "node": "nodeA", "input_wait": 0.05},
 {"rank": 1, "node": "nodeB", "input_wait": 0.7}]}
T
"$PY" "$SC/evidence.py" empty.db --job-out ranks.out --report merged.json >ev.txt || fail "evidence.py merged"
for kv in r0_fs_input=0.05 r0_fs_node=nodeA r1_fs_input=0.7 r1_fs_node=nodeB fs_straggler_rank=1 \
	fs_straggler_node=nodeB fs_straggler_cause=storage_bandwidth; do
	grep -qx "$kv" ev.txt || fail "evidence.py merged: wanted $kv, got: $(grep "^${kv%%=*}=" ev.txt)"
done
echo "scen_job: ok"
