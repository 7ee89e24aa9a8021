# nohook_metadata: the metadata scenario recorded with the hook off
# (--no-hook): no steps, so "a file per sample" cannot come from the steps.
# It comes from the I/O tracer, which counts the opens and what was read
# from each (opens per read, bytes per open): this scenario checks that the
# verdict carries the tracer's evidence. Same construction as metadata:
# 30000 files of 48 B kept inside their inodes, cold caches (the job's own
# tree on a fresh mount), inode readahead off, 400 IO/s on the disk under
# the loop device.
# Then the same job with the tracer off too (--no-trace): no call times, no
# opens. The verdict must still be metadata, from the job's own threads:
# the workers' time in D inside metadata system calls (proc.blocked_meta,
# evidence loader_meta_calls_share >= 0.5), not from the machine's count of
# new dentries (any program's lookups). Either run wrong fails the scenario.
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
traced_wk_D=${EV[wk_D]}

# The same without the tracer: the job's own threads' system calls.
teardown
mount_data inode_readahead_blks=0
cgroup blkio
read_limit iops 400
cold
record untraced --no-hook --no-trace -- --data "$DATA/tiny" --format bin --samples 3000 --batch 32 \
	--workers 2 --compute-ms 10
"$FEEDSCOPE" report --json "$S/untraced.db" >"$S/untraced.json" || die "report of the untraced run"
read -r untraced meta_share <<EOF
$("$PY" -c 'import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
share = [e["value"] for e in v["evidence"] if e["metric"] == "loader_meta_calls_share"]
print(v["primary"], share[0] if share else "none")' "$S/untraced.json")
EOF
say "without the tracer: $untraced, the workers' time in D inside metadata calls: $meta_share (with it: workers in D $traced_wk_D)"
result untraced_verdict "$untraced"
case $untraced:$meta_share in
metadata:none) EV[verdict]="${EV[verdict]}(untraced: no loader_meta_calls_share)" ;;
metadata:*) awk -v s="$meta_share" 'BEGIN { exit !(s >= 0.5) }' ||
	EV[verdict]="${EV[verdict]}(untraced: loader_meta_calls_share $meta_share)" ;;
*) EV[verdict]="${EV[verdict]}(untraced: $untraced)" ;;
esac
finish
