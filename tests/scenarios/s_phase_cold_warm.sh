# phase_cold_warm (issue 36): the bottleneck changes during the run. The
# dataset (96 files of 1 MiB) is read cold in epoch 0 through a blkio rule
# of 12 MB/s on the disk under the loop device: the workers wait on the
# storage. From epoch 1 on it is in the page cache and each sample's 60 ms of
# decode on the two workers is the limit. Truth: the job's own waits per
# epoch (train.py's `epochs:` line): the report must give two phases,
# storage_bandwidth for epoch 0 and cpu_preprocess from epoch 1 on.
. "$FS_TOP/tests/scenarios/lib.sh"
expect_phases "storage_bandwidth>cpu_preprocess"

mount_data
cgroup blkio
read_limit bps 12000000
cold
record run -- --data "$DATA/big" --format bin --samples 96 --batch 4 --workers 2 --epochs 5 \
	--decode-ms 60 --compute-ms 20
DEVICE=$DATA_DEV verdict run
show wait_share gpu_util disk_mbps wk_D wk_R cpu_busy job_epoch_waits
need "wait_share >= 0.5" "input-bound"
need "disk_mbps >= 2" "epoch 0 read from the storage"
finish
