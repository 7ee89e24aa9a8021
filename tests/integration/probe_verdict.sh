# From probe to verdict, end to end: `feedscope probe` measures the storage
# under a directory while its reads are limited by a blkio rule (so the
# probed ceiling is the limit); a job then reads a cold file from the same
# device under the same limit inside `feedscope run`. The verdict must be
# storage_bandwidth and cite the device's probed ceiling, with a share equal
# to the measured rate over the ceiling the run file recorded.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd /usr/bin/python3
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
mm=$(stat -c '%Hd:%Ld' "$TEST_TMP") # its file system's st_dev, as feedscope finds it
case $mm in 0:* | "") skip "$TEST_TMP is not on a block device" ;; esac
sys=$(readlink -f "/sys/dev/block/$mm")
[ -f "$sys/partition" ] && mm=$(cat "$sys/../dev")
disk=$(basename "$(readlink -f "/sys/dev/block/$mm")")

rel=$(awk -F: '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == "blkio") print $3 }' /proc/self/cgroup)
cg=/sys/fs/cgroup/blkio${rel%/}/feedscope-probe-verdict-$$
mkdir "$cg" || fail "mkdir $cg"
cleanup() {
	while read -r p; do kill -9 "$p" 2>/dev/null; done <"$cg/cgroup.procs"
	rmdir "$cg" 2>/dev/null || { sleep 0.5; rmdir "$cg"; }
}
trap cleanup EXIT
echo "$mm 50000000" >"$cg/blkio.throttle.read_bps_device" || fail "blkio rule"
# in_cg CMD...: CMD in the limited cgroup
in_cg() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"; }

export FEEDSCOPE_PROBE_DB=$TEST_TMP/probes.db
mkdir p
in_cg "$FEEDSCOPE" probe --dir p --size 32M --runtime 1 --meta-files 200 --json >probe.json ||
	fail "probe exited $?"
[ "$(q "$FEEDSCOPE_PROBE_DB" "SELECT count(*) FROM probes WHERE device = '$disk'")" = 1 ] || fail "no probe row for $disk"

dd if=/dev/urandom of=data.bin bs=1M count=100 status=none conv=fsync || fail "dd"
sync
echo 3 >/proc/sys/vm/drop_caches
"$FEEDSCOPE" run -q -o r.db -- sh -c 'echo $$ >"$0/cgroup.procs" && exec dd if=data.bin of=/dev/null bs=1M iflag=direct status=none' "$cg" ||
	fail "run exited $?"
ceiling=$(q r.db "SELECT value FROM meta WHERE key = 'probe.$disk.seq_read_bytes_per_s'")
[ -n "$ceiling" ] || fail "the run file lacks probe.$disk.seq_read_bytes_per_s"
"$FEEDSCOPE" report --json r.db >report.json || fail "report"
/usr/bin/python3 - "$disk" "$ceiling" <<'PY' || fail "verdict checks"
import json, sys
disk, ceiling = sys.argv[1], float(sys.argv[2])
v = json.load(open("report.json"))["verdict"]
assert v["primary"] == "storage_bandwidth", v["primary"]
ev = {e["metric"]: e for e in v["evidence"]}
share = ev.get("disk_share_of_probed_ceiling")
assert share, "no probed-ceiling evidence: %s" % sorted(ev)
assert share["source"] == "disk:" + disk, share["source"]
rate = ev["disk_read_bytes_per_s"]["value"]
assert abs(share["value"] - rate / ceiling) < 1e-9 * max(1, share["value"]), (share["value"], rate, ceiling)
print("probe %.1f MB/s, job %.1f MB/s: %s" % (ceiling / 1e6, rate / 1e6, share["text"]))
PY
exit 0
