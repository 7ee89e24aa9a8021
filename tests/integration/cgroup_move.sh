# A process that moves into another cgroup after feedscope first saw it (a
# launcher that joins the job's cgroup and then execs the job, as
# tests/scenarios/lib.sh's does, or a runtime's shim): its cgroup is read
# again (every second), so the new cgroup's rows are recorded from then on
# and the memory figures are the job's cgroup's, not those of the parent it
# started in (which holds the whole machine's sandbox: 2.6 GiB of "peak" in
# a 1.1 GiB-limited scenario, 2026-12-07). A real v1 memory hierarchy.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd /usr/bin/python3
[ -d /sys/fs/cgroup/memory ] || skip "no cgroup v1 memory controller"
rel=$(awk -F: '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == "memory") print $3 }' /proc/self/cgroup)
child=/sys/fs/cgroup/memory${rel%/}/feedscope-move-$$
cleanup() {
	[ -d "$child" ] || return 0
	while read -r p; do kill -9 "$p" 2>/dev/null; done <"$child/cgroup.procs"
	rmdir "$child" 2>/dev/null || { sleep 0.5; rmdir "$child"; }
}
trap cleanup EXIT
mkdir "$child" || fail "mkdir $child"
echo $((512 << 20)) >"$child/memory.limit_in_bytes" || fail "limit"
# 1 s in the parent, then into the child, then 64 MiB held for 3 s
"$FEEDSCOPE" run -q -o r.db -- sh -c 'sleep 1; echo $$ >"$0/cgroup.procs" || exit 9
	exec /usr/bin/python3 -c "import time; b = bytearray(64 << 20); b[::4096] = b\"x\" * len(b[::4096]); time.sleep(3)"' \
	"$child" || fail "run exited $?"
path=$(q r.db "SELECT path FROM cgroup WHERE mem_limit_bytes = $((512 << 20)) LIMIT 1")
case $path in
*/feedscope-move-$$) ;;
*) fail "no rows of the cgroup the job moved into: $(q r.db "SELECT path, count(*) FROM cgroup GROUP BY path")" ;;
esac
n=$(q r.db "SELECT count(*) FROM cgroup WHERE path = '$path'")
[ "$n" -ge 5 ] || fail "$n rows of $path: $(q r.db "SELECT path, count(*), min(t), max(t) FROM cgroup GROUP BY path")"
# the job's memory: its cgroup's limit, and a use the 64 MiB shows in and
# the limit bounds (the parent, unlimited, holds far more)
"$FEEDSCOPE" report --format json r.db >r.json || fail "report"
/usr/bin/python3 - r.json <<'PY' || fail "the job's cgroup figures: $(cat r.json | head -c 600)"
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
assert m["cgroup_mem_limit_bytes"] == 512 << 20, m["cgroup_mem_limit_bytes"]
u = m["cgroup_mem_usage_max_bytes"]
assert 64 << 20 <= u <= 512 << 20, u
PY
exit 0
