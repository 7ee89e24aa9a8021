# A path's device in a chroot and in containers (docs/architecture.md,
# "Which device holds a path"). tests/lib/devroot.sh builds three roots from
# this machine's own files, each in its own mount namespace:
#  - chroot: / is a plain directory (no mountinfo line for it), /usr and /etc
#    bound read-only, /proc, /sys, /dev, the project tree bound writable;
#  - overlay: an overlay root (lower = a bind of /, upper on a tmpfs) entered
#    with pivot_root, its layers reachable inside;
#  - container: the same with the layers out of reach, as in most containers.
# Inside each, tests/lib/devices_inner.sh runs unit/test_disk, test_devpath,
# the disk fixtures, integration/disk_oracle and integration/probe (all must
# pass), then `feedscope run` of dd reading a 64 MiB file: the mounts row of
# the file's file system must name the device expected here (vda-like disk
# of the file; none for the container, whose layers it cannot see), and
# `probe` of a new directory next to it the device its files go to.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root
for c in unshare chroot pivot_root sqlite3 losetup iostat fio /usr/bin/python3; do need_cmd "$c"; done
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
grep -qw overlay /proc/filesystems || skip "no overlay file system in this kernel"
build=${FEEDSCOPE_BUILD#"$FEEDSCOPE_TOP"/}
case $build in /*) skip "the build directory must be inside the tree ($FEEDSCOPE_BUILD)" ;; esac
top=$FEEDSCOPE_TOP

# The whole disk under a path on this machine, as sysfs names it ("" if none).
disk_of() {
	local mm sys
	mm=$(stat -c '%Hd:%Ld' "$1") || return
	[ -e "/sys/dev/block/$mm" ] || return 0
	sys=$(readlink -f "/sys/dev/block/$mm")
	[ -f "$sys/partition" ] && sys=$(dirname "$sys")
	basename "$sys"
}

# make_data PATH: 64 MiB of real blocks, out of the page cache
make_data() {
	dd if=/dev/urandom of="$1" bs=1M count=64 conv=fsync status=none || fail "cannot write $1"
	echo 3 >/proc/sys/vm/drop_caches
}

# Already in a chroot (no mountinfo line for /): the chroot case is this
# root itself, so run it here; the overlay and container cases need a mount
# namespace whose mounts stay private, which cannot be had where / is no
# mount point (its propagation cannot be changed): said as a skip.
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
	[ "$(stat -c %d "$TEST_TMP")" = "$(stat -c %d /)" ] ||
		skip "in a chroot, and $TEST_TMP is not on the file system of /"
	make_data "$TEST_TMP/data.bin"
	dev=$(disk_of "$TEST_TMP")
	fstype=$(stat -f -c %T "$TEST_TMP")
	[ "$fstype" = ext2/ext3 ] && fstype=ext4
	(cd "$top" && bash tests/lib/devices_inner.sh "$build" chroot "$TEST_TMP/data.bin" "$dev" "$fstype" "$dev") ||
		fail "in this chroot"
	skip "in a chroot: the chroot case passed here; the overlay and container cases need a private mount namespace, which a root that is no mount point cannot make"
fi

# chroot: the data file is in the root's own /tmp, a directory of the root's
# file system (which has no mountinfo line there)
mkdir -p "$TEST_TMP/c/root/tmp"
make_data "$TEST_TMP/c/root/tmp/data.bin"
dev=$(disk_of "$TEST_TMP/c/root/tmp")
fstype=$(stat -f -c %T "$TEST_TMP/c/root/tmp")
[ "$fstype" = ext2/ext3 ] && fstype=ext4 # stat's name for the ext magic
[ -n "$dev" ] || skip "$TEST_TMP is not on a block device: the chroot would test nothing"
"$top/tests/lib/devroot.sh" chroot "$top" "$TEST_TMP/c" \
	bash tests/lib/devices_inner.sh "$build" chroot /tmp/data.bin "$dev" "$fstype" "$dev" ||
	fail "in the chroot"

# overlay and container: the data file is in the lower layer (this machine's /)
[ "$(stat -c %d "$TEST_TMP")" = "$(stat -c %d /)" ] ||
	skip "$TEST_TMP is not on the file system of /, the overlay's lower layer"
make_data "$TEST_TMP/data.bin"
"$top/tests/lib/devroot.sh" overlay "$top" "$TEST_TMP/o" \
	bash tests/lib/devices_inner.sh "$build" overlay "$TEST_TMP/data.bin" "$dev" overlay "" ||
	fail "in the overlay root"
"$top/tests/lib/devroot.sh" container "$top" "$TEST_TMP/k" \
	bash tests/lib/devices_inner.sh "$build" container "$TEST_TMP/data.bin" "" overlay "" ||
	fail "in the container"
grep -q "$TEST_TMP" /proc/self/mountinfo && fail "a mount of the test was left: $(grep "$TEST_TMP" /proc/self/mountinfo)"
exit 0
