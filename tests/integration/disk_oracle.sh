# The disk source against the truth and against iostat, on a real loop device:
#  1. an O_DIRECT read of exactly 256 MiB is recorded as 256 MiB (+-3%);
#  2. the mounts table has / and the file system of the test's directory,
#     on the disk sysfs names for it;
#  3. during 4 KiB random reads (fio), r/s, rkB/s and %util agree with
#     `iostat -dx` over the same window within 5%.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
need_cmd losetup
need_cmd iostat
need_cmd fio
need_cmd /usr/bin/python3

img=$TEST_TMP/disk.img
dev=
cleanup() { [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null; rm -f "$img"; }
trap cleanup EXIT

# Real blocks (not a sparse file, whose holes read without I/O).
dd if=/dev/zero of="$img" bs=1M count=288 conv=fsync status=none || fail "cannot write $img"
dev=$(losetup -f --show --direct-io=on "$img") || skip "losetup failed"
name=${dev#/dev/}

# 1. Byte count.
want=$((256 * 1024 * 1024))
expect_status 0 "$FEEDSCOPE" run -q -o bytes.db -i 0.1 -- \
	dd if="$dev" of=/dev/null bs=1M count=256 iflag=direct status=none
# disk rows once a second (the system interval), each with its own dt_s,
# and once more at the end: together they cover the whole run
got=$(q bytes.db "SELECT sum(read_bytes_per_s * dt_s) FROM disk WHERE device = '$name'")
echo "bytes: recorded $got, read $want"
approx "$got" "$want" 0.03 || fail "recorded $got bytes read from $name, expected $want (+-3%)"
rq=$(q bytes.db "SELECT sum(read_bytes_per_s * dt_s) / sum(reads_per_s * dt_s) FROM disk WHERE device = '$name'")
echo "mean read request: $rq bytes"
# Requests are at most 1 MiB (dd's size), at least 4 KiB.
awk -v r="$rq" 'BEGIN { exit !(r >= 4096 && r <= 1048576 * 1.001) }' || fail "mean request size $rq out of range"
# 2. The mounts table: a row for / (from stat("/") where / is not a mount
# point, as in a chroot), and one for this directory's file system, naming
# the whole disk sysfs names for it when it is on a block device.
[ "$(q bytes.db "SELECT count(*) FROM mounts WHERE mount = '/' AND hidden = 0")" = 1 ] || fail "no row for / in mounts"
mm=$(stat -c '%Hd:%Ld' .)
[ "$(q bytes.db "SELECT count(*) FROM mounts WHERE majmin = '$mm' AND hidden = 0")" -ge 1 ] ||
	fail "no mounts row for $mm, the file system of $PWD: $(q bytes.db 'SELECT mount, majmin FROM mounts')"
if [ -e "/sys/dev/block/$mm" ]; then
	sys=$(readlink -f "/sys/dev/block/$mm")
	[ -f "$sys/partition" ] && sys=$(dirname "$sys")
	got=$(q bytes.db "SELECT device FROM mounts WHERE majmin = '$mm' AND hidden = 0 LIMIT 1")
	[ "$got" = "$(basename "$sys")" ] || fail "mounts puts $PWD ($mm) on '$got', sysfs on '$(basename "$sys")'"
fi

# 3. Side by side with iostat.
/usr/bin/python3 "$FEEDSCOPE_TOP/tests/integration/iostat_compare.py" "$FEEDSCOPE" "$dev" ||
	fail "feedscope and iostat disagree"
exit 0
