# torchrun: 2 ranks (torchrun, gloo on the CPU), an all_reduce after every
# step; each rank has 2 workers, batch 2, a 20 ms step. Rank 0 reads warm
# .npy files; rank 1 reads 1 MiB files, cold, limited to 20 MB/s by a blkio
# read_bps rule: rank 1 waits for its data, and rank 0 waits for rank 1
# inside the collective. Expected: storage_bandwidth (the slow rank's
# cause). Truth: the slow rank's own input share; rank 0's share of time in
# the collective is shown beside it, and each rank's own shares beside the
# report's buckets for it (the per-rank table); the report must name rank 1
# as the straggler. One emulated GPU per rank.
# Run with the hook off by its twin s_nohook_torchrun.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
expect storage_bandwidth job_b_input_slow
expect_straggler 1
twin

mount_data
cgroup blkio
read_limit bps 20000000
cold
warm "$DATA/npy"
mkdir -p "$S/torchrun-logs"
LAUNCH=(/usr/bin/torchrun --nproc_per_node 2 --redirects 2 --tee 2 --log_dir "$S/torchrun-logs"
	--master_addr 127.0.0.1 --master_port $((29500 + RANDOM % 400)) "$TRAIN")
GPUS=2 record run "${HOOK_OPTS[@]}" -- --data "$DATA/npy" --format npy --samples 100 --batch 2 --workers 2 \
	--compute-ms 20 --dist --slow-rank 1 --slow-data "$DATA/big" --slow-format bin
DEVICE=$DATA_DEV verdict run
# the slow rank's own read rate over its loop (it read samples x 1 MiB)
EV[job_slow_mbps]=$(grep '^train: .* rank=1 ' "$S/run.out" | tail -1 | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["total_s"] > 0) printf "%.2f", v["samples"] * 1048576 / v["total_s"] / 1e6; else print "nan" }')
show job_ranks job_slow_rank job_wait_share_max job_b_input_slow job_coll_share_r0 job_slow_mbps gpu_util disk_mbps disk_util wk_D input_bound
twin_check
need "job_ranks >= 2" "two ranks"
need "job_slow_rank >= 1" "rank 1 is the slow one"
need "job_b_input_slow >= 0.6" "the slow rank is input-bound"
need "job_coll_share_r0 >= 0.5" "rank 0 waits for it in the collective"
need "job_slow_mbps >= 12" "rank 1 reads at about the limit (20 MB/s)"
need "job_slow_mbps <= 21" "rank 1 reads no faster than the limit (20 MB/s)"
finish
