# torchrun4: 4 ranks (torchrun, gloo on the CPU), an all_reduce after every
# step; each rank has 1 worker (2 cores for 4 ranks and their workers),
# batch 2, a 20 ms step. Ranks 0, 1 and 3 read warm .npy files; rank 2 reads
# 1 MiB files, cold, limited to 15 MB/s by a blkio read_bps rule (its shard
# on slow storage; slower than the 2-rank job's 20 MB/s: 4 ranks and their
# workers share 2 cores, and the margin keeps a busy machine from blurring
# it): rank 2 waits for its data, the three others wait for it inside the
# collective. Expected: storage_bandwidth (the slow rank's
# cause), and the report must name rank 2 as the straggler. Truth: each
# rank's own input and collective shares (train.py's per-rank summary
# lines), printed beside the report's buckets for that rank. One emulated
# GPU per rank. Run with the hook off by its twin s_nohook_torchrun4.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_b_input_slow
expect_straggler 2
twin

mount_data
cgroup blkio
read_limit bps 15000000
cold
warm "$DATA/npy"
mkdir -p "$S/torchrun-logs"
LAUNCH=(/usr/bin/torchrun --nproc_per_node 4 --redirects 2 --tee 2 --log_dir "$S/torchrun-logs"
	--master_addr 127.0.0.1 --master_port $((29500 + RANDOM % 400)) "$TRAIN")
GPUS=4 record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 100 --batch 2 --workers 1 \
	--compute-ms 20 --dist --slow-rank 2 --slow-data "$DATA/big" --slow-format bin
DEVICE=$DATA_DEV verdict run
# the slow rank's own read rate over its loop (it read samples x 1 MiB)
EV[job_slow_mbps]=$(grep '^train: .* rank=2 ' "$S/run.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["total_s"] > 0) printf "%.2f", v["samples"] * 1048576 / v["total_s"] / 1e6; else print "nan" }')
show job_ranks job_slow_rank job_b_input_slow job_coll_share_r0 r1_job_coll r3_job_coll job_slow_mbps gpu_util disk_mbps disk_util wk_D input_bound
twin_check
need "job_ranks >= 4" "four ranks"
need "job_ranks <= 4" "four ranks"
need "job_slow_rank >= 2" "rank 2 is the slow one"
need "job_slow_rank <= 2" "rank 2 is the slow one"
need "job_b_input_slow >= 0.6" "the slow rank is input-bound"
for r in 0 1 3; do
	need "r${r}_job_coll >= 0.5" "rank $r waits for rank 2 in the collective"
done
need "job_slow_mbps >= 9" "rank 2 reads at about the limit (15 MB/s)"
need "job_slow_mbps <= 16" "rank 2 reads no faster than the limit (15 MB/s)"
finish
