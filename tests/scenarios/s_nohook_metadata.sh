# nohook_metadata: the metadata scenario recorded with the hook off
# (--no-hook): no steps, so "a file per sample" cannot come from the steps.
# It comes from the I/O tracer, which counts the opens and what was read
# from each (opens per read, bytes per open): this scenario checks that the
# verdict carries the tracer's evidence. Same construction as metadata:
# 30000 files of 48 B kept inside their inodes, cold caches, inode readahead
# off, 400 IO/s on the disk under the loop device.
# For comparison (printed, not checked), the same job with the tracer off.
. "$FS_TOP/tests/scenarios/lib.sh"
expect metadata job_wait_share
expect_limit metadata

mount_data inode_readahead_blks=0
cgroup blkio
read_limit iops 400
cold
record run --no-hook -- --data "$DATA/tiny" --format bin --samples 3000 --batch 32 --workers 2 \
	--compute-ms 10
DEVICE=$DATA_DEV verdict run
show job_wait_share steps gpu_util disk_rps disk_req_kib wk_D storage_read_mib
need "steps <= 0" "the hook is off"
need "job_wait_share >= 0.6" "input-bound"
need "wk_D >= 0.5" "workers blocked in I/O"
opens=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for e in d["verdict"]["evidence"] if e["metric"] == "opens_per_sample"))' "$S/run.json")
[ "$opens" = 1 ] || die "the verdict does not carry the tracer's opens-per-read evidence"
finish

# The same without the tracer: what the system signals alone say.
teardown
mount_data inode_readahead_blks=0
cgroup blkio
read_limit iops 400
cold
record untraced --no-hook --no-trace -- --data "$DATA/tiny" --format bin --samples 3000 --batch 32 \
	--workers 2 --compute-ms 10
DEVICE=$DATA_DEV verdict untraced
result untraced_verdict "$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"]["primary"])' "$S/untraced.json")"
