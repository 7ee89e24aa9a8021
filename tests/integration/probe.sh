# feedscope probe (docs/probe.md):
#  1. refusals exit 2 before any I/O: a block or character device, a missing
#     or non-empty directory it did not make, bad --size/--only/--qd/--engine;
#  2. a small probe of a directory on this machine's disk: exit 0, one JSON
#     document with every figure positive, the text table, the row in the
#     probes database for that device, nothing left in DIR;
#  3. SIGTERM mid-probe: exit 1, nothing left; after SIGKILL, the next probe
#     accepts the directory and removes what the killed one left;
#  4. (root) on an ext4 loop device: O_DIRECT used, the device named loopN as
#     /sys/block and the run file's disk table name it, its row in the db.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3
need_cmd sqlite3
py=/usr/bin/python3
export FEEDSCOPE_PROBE_DB=$TEST_TMP/probes.db
small=(--size 16M --runtime 0.2 --meta-files 200)

# 1. refusals
d=$TEST_TMP/d
mkdir "$d"
echo theirs >"$d/file"
expect_status 2 "$FEEDSCOPE" probe --dir "$d" "${small[@]}"
[ "$(ls -A "$d")" = file ] || fail "probe wrote into a non-empty directory it did not make"
"$FEEDSCOPE" probe --dir "$d" "${small[@]}" 2>&1 | grep -q "not empty" || fail "no reason given for a non-empty directory"
rm "$d/file"
expect_status 2 "$FEEDSCOPE" probe --dir /dev/null "${small[@]}"
for b in /dev/loop0 /dev/vda /dev/sda /dev/nvme0n1; do
	if [ -b "$b" ]; then
		expect_status 2 "$FEEDSCOPE" probe --dir "$b" "${small[@]}"
		break
	fi
done
expect_status 2 "$FEEDSCOPE" probe --dir "$TEST_TMP/missing" "${small[@]}"
[ -e "$TEST_TMP/missing" ] && fail "probe created a missing directory"
for bad in "--size 1M" "--size 12x" "--size -5G" "--only seq,bogus" "--only" "--qd 4" "--runtime 0" \
	"--engine aio" "--engine mmap --only randread" "--meta-files 0"; do
	# shellcheck disable=SC2086
	expect_status 2 "$FEEDSCOPE" probe --dir "$d" $bad
done
expect_status 2 "$FEEDSCOPE" probe "${small[@]}"
[ -z "$(ls -A "$d")" ] || fail "a refused probe left something in $d"
[ -e "$FEEDSCOPE_PROBE_DB" ] && fail "a refused probe wrote the database"

# 2. a small probe, JSON
"$FEEDSCOPE" probe --dir "$d" "${small[@]}" --json >p.json 2>p.err || { cat p.err; fail "probe exited $?"; }
[ -z "$(ls -A "$d")" ] || fail "probe left $(ls -A "$d") in $d"
$py - p.json <<'EOF' || fail "the JSON document lacks a figure"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tests"] == ["seq", "qd1", "qd32", "meta", "fsync"], d["tests"]
for k in ("dir", "majmin", "fs_type", "engine"):
    assert isinstance(d[k], str) and d[k], k
assert d["file_bytes"] == 16 << 20 and d["runtime_s"] == 0.2 and isinstance(d["direct"], bool)
for test, fig in (("seq_read", "bytes_per_s"), ("randread_qd1", "iops"), ("randread_qd32", "iops"),
                  ("meta", "ops_per_s"), ("fsync", "p50_ms"), ("fsync", "p99_ms"), ("fsync", "per_s"),
                  ("meta", "create_per_s"), ("meta", "stat_per_s"), ("meta", "open_per_s"),
                  ("meta", "close_per_s"), ("meta", "unlink_per_s")):
    assert d[test][fig] > 0, (test, fig, d[test][fig])
for test in ("seq_read", "randread_qd1", "randread_qd32", "meta", "fsync"):
    lat = d[test]["lat_us"]
    assert lat["count"] > 0 and 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"] <= lat["max"], (test, lat)
assert d["seq_read"]["qd"] == 16 and d["randread_qd32"]["qd"] == 32 and d["meta"]["files"] == 200
assert d["saved_to"] == __import__("os").environ["FEEDSCOPE_PROBE_DB"]
print("probe of %s (%s, %s): seq %.0f MB/s, QD1 %.0f IOPS, QD32 %.0f IOPS, meta %.0f ops/s, fsync p99 %.3f ms"
      % (d["dir"], d["device"], d["fs_type"], d["seq_read"]["bytes_per_s"] / 1e6, d["randread_qd1"]["iops"],
         d["randread_qd32"]["iops"], d["meta"]["ops_per_s"], d["fsync"]["p99_ms"]))
EOF
dev=$($py -c "import json; print(json.load(open('p.json'))['device'] or '')")
if [ -n "$dev" ]; then
	[ -d "/sys/block/$dev" ] || fail "device '$dev' is not a whole disk in /sys/block"
	n=$(q "$FEEDSCOPE_PROBE_DB" "SELECT count(*) FROM probes WHERE device = '$dev' AND seq_read_bytes_per_s > 0 AND randread_iops_qd32 > 0")
else
	n=$(q "$FEEDSCOPE_PROBE_DB" "SELECT count(*) FROM probes WHERE device IS NULL")
fi
[ "$n" = 1 ] || fail "no row in the probes database for device '$dev'"

# text, --only, --no-save
"$FEEDSCOPE" probe --dir "$d" "${small[@]}" --only qd1,fsync --no-save >p.txt || fail "probe --only exited $?"
{ grep -q "random read 4 KiB QD1" p.txt && grep -q "fsync" p.txt; } || fail "text table lacks its rows"
grep -q "sequential" p.txt && fail "--only qd1,fsync ran the sequential test"
[ "$(q "$FEEDSCOPE_PROBE_DB" "SELECT count(*) FROM probes")" = 1 ] || fail "--no-save saved"
"$FEEDSCOPE" probe --dir "$d" "${small[@]}" --only randread --engine psync --buffered --qd 2 --json >r.json ||
	fail "probe --only randread exited $?"
$py -c "import json; d=json.load(open('r.json')); assert d['randread']['iops'] > 0 and d['randread']['qd'] == 2 and not d['direct'] and d['engine'] == 'psync' and d['saved_to'] is None" ||
	fail "randread figures wrong"
[ -z "$(ls -A "$d")" ] || fail "probe left something in $d"

# 3. SIGTERM mid-probe, then what SIGKILL leaves
# started: the probe's own directory is there (its signal handlers are set
# before it makes it), and then a little more
started() {
	for _ in $(seq 100); do
		ls -A "$d" | grep -q '^\.feedscope-probe-' && { sleep "$1"; return 0; }
		sleep 0.1
	done
	fail "the probe never made its directory"
}
"$FEEDSCOPE" probe --dir "$d" --size 256M --runtime 1 --no-save >/dev/null 2>term.err &
pid=$!
started 0.3
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" = 1 ] || fail "probe exited $rc after SIGTERM, expected 1"
grep -q interrupted term.err || fail "no 'interrupted' after SIGTERM"
[ -z "$(ls -A "$d")" ] || fail "SIGTERM left $(ls -A "$d") in $d"
"$FEEDSCOPE" probe --dir "$d" --size 256M --runtime 1 --no-save >/dev/null 2>&1 &
pid=$!
started 0.2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ -n "$(ls -A "$d")" ] || fail "SIGKILL left nothing: the clean-up of a killed probe is not tested"
expect_status 0 "$FEEDSCOPE" probe --dir "$d" --only fsync --runtime 0.05 --no-save >/dev/null
[ -z "$(ls -A "$d")" ] || fail "the next probe did not remove what a killed one left: $(ls -A "$d")"

# 4. (root) an ext4 loop device
[ "$(id -u)" -eq 0 ] || skip "not root: the loop device part did not run (the rest passed)"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || skip "needs losetup and mkfs.ext4 for the loop device part"
img=$TEST_TMP/disk.img
mnt=$TEST_TMP/mnt
loop=
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -f "$img"
}
trap cleanup EXIT
dd if=/dev/zero of="$img" bs=1M count=96 status=none || fail "cannot write $img"
loop=$(losetup -f --show --direct-io=on "$img") || skip "losetup failed"
mkfs.ext4 -q -F "$loop" || fail "mkfs.ext4 $loop"
mkdir "$mnt"
mount "$loop" "$mnt" || fail "mount $loop"
expect_status 2 "$FEEDSCOPE" probe --dir "$mnt" "${small[@]}" # lost+found: not empty, not ours
expect_status 2 "$FEEDSCOPE" probe --dir "$loop" "${small[@]}"
mkdir "$mnt/p"
"$FEEDSCOPE" probe --dir "$mnt/p" "${small[@]}" --size 32M --json >l.json 2>l.err || { cat l.err; fail "probe on $loop exited $?"; }
name=${loop#/dev/}
$py - l.json "$name" <<'EOF' || fail "probe on the loop device: wrong device or figures"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["device"] == sys.argv[2], (d["device"], sys.argv[2])
assert d["fs_type"] == "ext4" and d["direct"] is True and d["engine"] == "io_uring", d
assert d["seq_read"]["bytes_per_s"] > 0 and d["randread_qd32"]["iops"] > 0 and d["fsync"]["p99_ms"] > 0
print("loop device %s: seq %.0f MB/s, QD32 %.0f IOPS" % (sys.argv[2], d["seq_read"]["bytes_per_s"] / 1e6, d["randread_qd32"]["iops"]))
EOF
[ -z "$(ls -A "$mnt/p")" ] || fail "probe left something on $loop"
[ "$(q "$FEEDSCOPE_PROBE_DB" "SELECT count(*) FROM probes WHERE device = '$name' AND fs_type = 'ext4' AND direct = 1")" = 1 ] ||
	fail "no row for $name in the probes database"
exit 0
