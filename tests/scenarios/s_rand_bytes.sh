# rand_bytes: random 128 KiB reads (one pread per sample at an aligned
# random offset of one 256 MiB file, readahead off), cold, on a device
# capped in BYTES only: the job's reads are limited to 12 MB/s by a blkio
# read_bps rule on the disk under the loop device (about 90 reads of 128 KiB
# a second; no limit on reads per second). rand_iops (s_rand_iops.sh, which
# sets RAND_CAP=iops and sources this file) is the same job with the reads
# per second capped instead (70 IO/s, about 9 MB/s): the request sizes, the
# queue depth and the bytes per second of the two are alike, so the verdict
# must follow the cap, not the workload's shape.
# Run with the hook off by its twin s_nohook_rand_bytes.sh.
. "$FS_TOP/tests/scenarios/lib.sh"
case ${RAND_CAP:-bytes} in
bytes) expect storage_bandwidth job_b_input; expect_limit bytes; cap="bps 12000000"; samples=520 ;;
iops) expect storage_latency job_b_input; expect_limit iops; cap="iops 70"; samples=400 ;;
esac
twin

mount_data
cgroup blkio
# shellcheck disable=SC2086
read_limit $cap
cold
record run "${HOOK_OPTS[@]}" -- --data "$DATA/rand.bin" --format rand --read-kib 128 --samples $samples \
	--batch 4 --workers 2 --compute-ms 12
DEVICE=$DATA_DEV verdict run
show job_b_busy job_b_input gpu_util disk_rps disk_mbps disk_req_kib disk_await_ms disk_util wk_D input_bound
twin_check
need "job_b_input >= 0.5" "input-bound"
need "disk_req_kib >= 96" "large requests"
if [ "${RAND_CAP:-bytes}" = bytes ]; then
	need "disk_mbps >= 9" "reads at the limit (12 MB/s)"
	need "disk_mbps <= 13.2" "reads at the limit (12 MB/s)"
else
	need "disk_rps >= 50" "reads at the limit (70/s)"
	need "disk_rps <= 77" "reads at the limit (70/s)"
fi
need "wk_D >= 0.5" "workers blocked in I/O"
finish
