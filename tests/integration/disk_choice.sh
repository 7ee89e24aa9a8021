# Which disk the diagnosis names (src/analysis/load/machine.c, stacked): the
# one read most, unless a device the run file's mounts table records as
# standing on other disks (mounts.disks, from src/source/devpath.c) carries
# at least 80% of that. synth_run's reads are on loop0, recorded as an image
# on vda; nvme0n1 is given 1.1 times loop0's reads here.
#  1. loop0 stands on vda: loop0 is named;
#  2. loop0's file is out of sight (disks = loop0 itself): nvme0n1, read most;
#  3. no mounts row for loop0: nvme0n1;
#  4. a run file from before mounts.disks: the device's name tells (loop0).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd sqlite3
need_cmd /usr/bin/python3
"$FEEDSCOPE_BUILD/tests/synth_run" s.db 20 >/dev/null || fail "synth_run"
sqlite3 s.db "UPDATE disk SET read_bytes_per_s = 1.1 * (SELECT l.read_bytes_per_s FROM disk l
	WHERE l.t = disk.t AND l.device = 'loop0') WHERE device = 'nvme0n1'" || fail "sqlite3"
named() { # DB: the disk the report names
	"$FEEDSCOPE" report --json "$1" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["metrics"]["disk"])'
}
[ "$(q s.db "SELECT disks FROM mounts WHERE device = 'loop0'")" = vda ] || fail "synth_run lacks the mounts row of loop0"
[ "$(named s.db)" = loop0 ] || fail "1: loop0 stands on vda and carries 91% of nvme0n1's reads: got $(named s.db)"
cp s.db own.db && sqlite3 own.db "UPDATE mounts SET disks = 'loop0' WHERE device = 'loop0'" || fail "sqlite3"
[ "$(named own.db)" = nvme0n1 ] || fail "2: loop0 stands on nothing seen: got $(named own.db)"
cp s.db none.db && sqlite3 none.db "DELETE FROM mounts" || fail "sqlite3"
[ "$(named none.db)" = nvme0n1 ] || fail "3: no file system on loop0: got $(named none.db)"
cp s.db old.db && sqlite3 old.db "ALTER TABLE mounts DROP COLUMN disks" || fail "sqlite3"
[ "$(named old.db)" = loop0 ] || fail "4: a run file without mounts.disks: got $(named old.db)"
exit 0
