# metadata: per-file cost dominates. 30000 files of 48 bytes in 100
# directories (listed in index.txt), cold dentry and inode caches (a fresh
# mount, then drop_caches). The image's ext4 keeps such small files inside
# their inodes (inline_data), so reading a sample costs no data I/O at all:
# every I/O the job waits for is a directory or inode-table block fetched by
# open(). Inode-table readahead is off (mount -o inode_readahead_blks=0) and
# the job's reads are limited to 400 IO/s on the disk under the loop device:
# each metadata miss costs ~2.5 ms, like a busy metadata server or a
# network filesystem's round trip.
. "$FS_TOP/tests/scenarios/lib.sh"
expect metadata
expect_limit metadata

mount_data inode_readahead_blks=0
cgroup blkio
read_limit iops 400
cold
record run -- --data "$DATA/tiny" --format bin --samples 3000 --batch 32 --workers 2 \
	--compute-ms 10
DEVICE=$DATA_DEV verdict run
show wait_share gpu_util disk_rps disk_mbps disk_util disk_req_kib wk_D rchar_mib storage_read_mib cpu_busy
need "wait_share >= 0.6" "input-bound"
need "disk_req_kib <= 8" "small requests"
need "wk_D >= 0.5" "workers blocked in I/O"
# what the job asked for (48 B a sample, and its index) vs what the device
# had to read for it: metadata
need "storage_read_mib >= 3" "metadata blocks read"
finish
