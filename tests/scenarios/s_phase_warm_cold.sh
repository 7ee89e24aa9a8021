# phase_warm_cold (issue 36): the dataset outgrows the page cache mid-run.
# 96 files of 1 MiB, warm when the job starts: epochs 0 and 1 are limited by
# each sample's 60 ms of decode on the two workers. From epoch 2 on each
# file is dropped from the page cache before it is read (train.py
# --evict-from 2: the reads go to the storage every time), through a blkio
# rule of 12 MB/s: the storage is the limit. Truth: the job's own waits per
# epoch: cpu_preprocess for epochs 0-1, storage_bandwidth from epoch 2 on.
. "$FS_TOP/tests/scenarios/lib.sh"
expect_phases "cpu_preprocess>storage_bandwidth"

mount_data
cgroup blkio
read_limit bps 12000000
warm "$DATA/big"
record run -- --data "$DATA/big" --format bin --samples 96 --batch 4 --workers 2 --epochs 5 \
	--decode-ms 60 --compute-ms 20 --evict-from 2
DEVICE=$DATA_DEV verdict run
show wait_share gpu_util disk_mbps wk_D wk_R cpu_busy job_epoch_waits
need "wait_share >= 0.5" "input-bound"
need "disk_mbps >= 2" "epochs 2-4 read from the storage"
finish
