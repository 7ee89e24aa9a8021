#!/usr/bin/env bash
# devices_inner.sh - the checks tests/integration/devices_root.sh runs inside
# each root that tests/lib/devroot.sh builds (cwd: the project tree).
#
#   tests/lib/devices_inner.sh BUILD MODE DATA WANT_DEV WANT_FSTYPE WANT_PROBE_DEV
#
# BUILD the build directory (relative to the tree); DATA a file of 64 MiB on
# the storage under test, out of the page cache; WANT_DEV the whole device
# the recorder must name for DATA's file system ("" for none), WANT_FSTYPE
# its type; WANT_PROBE_DEV the device `probe` must name for a new directory
# next to DATA. Runs the device-sensitive tests through tests/run.sh, then a
# `feedscope run` of a job reading DATA and a probe. Exits 0 when all pass.
set -u
build=$1 mode=$2 data=$3 want_dev=$4 want_fstype=$5 want_probe=$6
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
q() { sqlite3 -readonly -batch -noheader "$1" "$2"; }
printf '== %s: / is "%s"\n' "$mode" "$(awk '$5 == "/" { print $9 " " $3 }' /proc/self/mountinfo)"

FEEDSCOPE_BUILD=$build TESTS='^(unit/test_disk|unit/test_devpath|fixture/disk/.*|integration/disk_oracle|integration/probe)$' \
	tests/run.sh || fail "the device tests failed in the $mode root"

fs=$PWD/$build/feedscope
out=$(mktemp -d /tmp/devices-run.XXXXXX) || fail "mktemp"
trap 'rm -rf "$out"' EXIT
"$fs" run -q -o "$out/r.db" -- dd if="$data" of=/dev/null bs=1M iflag=direct status=none ||
	fail "feedscope run of dd exited $?"
# DATA is on the file system of / in every root: the row for / (from
# mountinfo, or from stat("/") in the chroot) must say what holds it
mm=$(stat -c '%Hd:%Ld' /)
row=$(q "$out/r.db" "SELECT ifnull(device, ''), fstype, majmin FROM mounts WHERE mount = '/' AND hidden = 0")
echo "$data: mounts row for / device|fstype|majmin = '$row'"
[ "$row" = "$want_dev|$want_fstype|$mm" ] ||
	fail "/ is on '$row', expected '$want_dev|$want_fstype|$mm': $(q "$out/r.db" 'SELECT * FROM mounts')"
if [ -n "$want_dev" ]; then
	got=$(q "$out/r.db" "SELECT sum(read_bytes_per_s * dt_s) FROM disk WHERE device = '$want_dev'")
	echo "bytes read from $want_dev during the run: $got"
	awk -v g="${got:-0}" 'BEGIN { exit !(g >= 0.97 * 64 * 1048576) }' ||
		fail "$want_dev read ${got:-0} bytes, expected at least 64 MiB"
fi

pd=$(dirname "$data")/probe-dir
mkdir "$pd" || fail "mkdir $pd"
"$fs" probe --dir "$pd" --size 16M --runtime 0.1 --meta-files 20 --only seq --no-save --json >"$out/p.json" ||
	fail "probe exited $?"
rmdir "$pd"
/usr/bin/python3 - "$out/p.json" "$want_probe" "$want_fstype" "$(stat -c '%Hd:%Ld' "$(dirname "$data")")" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
want_dev, want_fs, want_mm = sys.argv[2] or None, sys.argv[3], sys.argv[4]
print("probe: device %r fs_type %r majmin %r" % (d["device"], d["fs_type"], d["majmin"]))
assert d["device"] == want_dev, (d["device"], want_dev)
assert d["fs_type"] == want_fs, (d["fs_type"], want_fs)
assert d["majmin"] == want_mm, (d["majmin"], want_mm)
PY
	fail "probe named the wrong device or file system"
echo "== $mode: all passed"
