# The job's cgroup read limits become ceilings: feedscope run records the
# tightest blkio rule of the job's cgroup and of the cgroups above it on
# each device (meta cgroup_io.<disk>.read_bps, .read_iops, each with its
# rule's cgroup, .majmin), and the report judges the job's reads of a device against them
# (verdict.saturation: the ceiling, its source). A real v1 blkio hierarchy
# and a real loop device; the job reads through it in a child process that
# joined the cgroup.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd losetup
need_cmd /usr/bin/python3
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
truncate -s 64M img || fail "truncate"
dev=$(losetup -f --show img) || fail "losetup"
name=$(basename "$dev")
mm=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
rel=$(awk -F: '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == "blkio") print $3 }' /proc/self/cgroup)
parent=/sys/fs/cgroup/blkio${rel%/}/feedscope-cgio-$$
child=$parent/job
cleanup() {
	for c in "$child" "$parent"; do
		[ -d "$c" ] || continue
		while read -r p; do kill -9 "$p" 2>/dev/null; done <"$c/cgroup.procs"
		rmdir "$c" 2>/dev/null || { sleep 0.5; rmdir "$c"; }
	done
	losetup -d "$dev"
}
trap cleanup EXIT
mkdir -p "$child" || fail "mkdir $child"
# the parent's byte rule and the child's IO rule both bind; the parent's
# looser IO rule does not loosen the child's
echo "$mm 8000000" >"$parent/blkio.throttle.read_bps_device" || fail "parent bps rule"
echo "$mm 900" >"$parent/blkio.throttle.read_iops_device" || fail "parent iops rule"
echo "$mm 250" >"$child/blkio.throttle.read_iops_device" || fail "child iops rule"

"$FEEDSCOPE" run -q -o r.db -- sh -c 'echo $$ >"$0/cgroup.procs" || exit 9
	dd if="$1" of=/dev/null bs=64k count=200 iflag=direct status=none' "$child" "$dev" || fail "run exited $?"
[ "$(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_iops'")" = 250 ] ||
	fail "iops: $(q r.db "SELECT key, value FROM meta WHERE key LIKE 'cgroup_io.%'")"
[ "$(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_bps'")" = 8000000 ] || fail "bps"
[ "$(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.majmin'")" = "$mm" ] || fail "majmin"
[ "$(q r.db "SELECT value FROM meta WHERE key = 'queue.$name.nr_requests'")" = "$(cat "/sys/block/$name/queue/nr_requests")" ] ||
	fail "queue.$name.nr_requests: $(q r.db "SELECT key, value FROM meta WHERE key LIKE 'queue.%'")"
case $(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_iops_cgroup'") in
*/feedscope-cgio-$$/job) ;;
*) fail "iops rule's cgroup: $(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_iops_cgroup'")" ;;
esac
case $(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_bps_cgroup'") in
*/feedscope-cgio-$$) ;;
*) fail "bps rule's cgroup: $(q r.db "SELECT value FROM meta WHERE key = 'cgroup_io.$name.read_bps_cgroup'")" ;;
esac
# a run outside any rule records none
"$FEEDSCOPE" run -q -o free.db -- sh -c 'true & wait' || fail "run exited $?"
[ "$(q free.db "SELECT count(*) FROM meta WHERE key LIKE 'cgroup_io.$name.%'")" = 0 ] || fail "rules outside the cgroup"
"$FEEDSCOPE" report --json r.db >report.json || fail "report"
/usr/bin/python3 - "$name" <<'PY' || fail "saturation checks"
import json, sys
sat = json.load(open("report.json"))["verdict"]["saturation"]
assert sat, "no saturation member"
lim = {l["limit"]: l for l in sat["limits"]}
assert lim["iops"]["ceiling"] == 250 and "cgroup read limit on " + sys.argv[1] in lim["iops"]["source"], lim["iops"]
assert lim["bytes"]["ceiling"] == 8e6, lim["bytes"]
assert lim["latency"]["ceiling"] is None and "not known" in lim["latency"]["text"], lim["latency"]
# the device's queue limit, as recorded at the start (context, not a limit)
nr = int(open("/sys/block/%s/queue/nr_requests" % sys.argv[1]).read())
assert sat["queue_slots"] == nr and sat["queue_slots_from"] == "queue/nr_requests", (sat["queue_slots"], nr)
print("iops %s; bytes %s" % (lim["iops"]["text"], lim["bytes"]["text"]))
PY
exit 0
