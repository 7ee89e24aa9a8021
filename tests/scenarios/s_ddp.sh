# ddp: the torchrun scenario's construction (2 ranks, gloo on the CPU; rank
# 1 reads 1 MiB files, cold, limited to 20 MB/s by a blkio read_bps rule)
# trained through DistributedDataParallel: the gradients' all_reduce runs
# inside backward, in DDP's C++ reducer, which the hook's torch.distributed
# wrappers do not see. Rank 0's wait for rank 1 can then only be seen at the
# step boundaries of both ranks (src/analysis/load/sync.c). Expected:
# storage_bandwidth (the slow rank's cause), rank 1 named the straggler.
# Truth: the slow rank's own input share; rank 0's time in backward (its
# wait for rank 1) beside the report's other_ranks bucket for it.
# Run with the hook off by its twin s_nohook_ddp.sh.
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
	--compute-ms 20 --dist --ddp --slow-rank 1 --slow-data "$DATA/big" --slow-format bin
DEVICE=$DATA_DEV verdict run
show job_ranks job_slow_rank job_wait_share_max job_b_input_slow job_coll_share_r0 gpu_util disk_mbps disk_util wk_D input_bound
twin_check
need "job_ranks >= 2" "two ranks"
need "job_slow_rank >= 1" "rank 1 is the slow one"
need "job_b_input_slow >= 0.6" "the slow rank is input-bound"
need "job_coll_share_r0 >= 0.5" "rank 0 waits for it inside backward"
finish
