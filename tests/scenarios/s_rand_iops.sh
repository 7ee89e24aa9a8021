# rand_iops: the rand_bytes job (s_rand_bytes.sh: random 128 KiB reads, one
# per sample, cold) on a device capped in OPERATIONS per second only: the
# job's reads are limited to 70 IO/s by a blkio read_iops rule on the disk
# under the loop device (about 9 MB/s; no limit on bytes). Its requests,
# queue depth and bytes per second look like rand_bytes'; what differs is
# which ceiling they run at. Run with the hook off by its twin
# s_nohook_rand_iops.sh.
RAND_CAP=iops
. "$FS_TOP/tests/scenarios/s_rand_bytes.sh"
