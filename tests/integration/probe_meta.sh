# feedscope run copies the latest probe of each of this machine's disks from
# the probes database ($FEEDSCOPE_PROBE_DB) into the run file's meta as
# probe.<disk>.*; disks never probed, and names that are not disks here, get
# nothing; without a database the run is unchanged.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd sqlite3
disk=$(ls /sys/block | head -n 1)
[ -n "$disk" ] || skip "no block device in /sys/block"

export FEEDSCOPE_PROBE_DB=$TEST_TMP/probes.db
# No database: no probe keys, no warning about it.
"$FEEDSCOPE" run -q -o none.db -- true 2>err.txt || fail "run without a probes db"
[ "$(q none.db "SELECT count(*) FROM meta WHERE key LIKE 'probe.%'")" = 0 ] || fail "probe keys without a db"
grep -qi probe err.txt && fail "run warned about a missing probes db: $(cat err.txt)"

# Two probes of $disk (the later one wins), one of a name no disk here has.
sqlite3 "$FEEDSCOPE_PROBE_DB" <<SQL || fail "sqlite3"
CREATE TABLE probes (device TEXT, majmin TEXT, dir TEXT, time_unix INTEGER,
 seq_read_bytes_per_s REAL, randread_iops_qd1 REAL, randread_iops_qd32 REAL,
 meta_ops_per_s REAL, fsync_p50_ms REAL, fsync_p99_ms REAL, fs_type TEXT);
INSERT INTO probes VALUES ('$disk', '1:2', '/x', 1000, 1.0e8, 900, 20000, 5000, 1.5, 4.25, 'ext4');
INSERT INTO probes VALUES ('$disk', '1:2', '/x', 2000, 2.5e8, 1100, 41000, NULL, 1.0, 3.5, 'ext4');
INSERT INTO probes VALUES ('nosuchdisk9', '1:3', '/y', 3000, 7e9, 1, 1, 1, 1, 1, 'xfs');
SQL
"$FEEDSCOPE" run -q -o with.db -- true || fail "run with a probes db"
[ "$(q with.db "SELECT value FROM meta WHERE key = 'probe.$disk.seq_read_bytes_per_s'")" = 2.5e+08 ] ||
	fail "seq ceiling: $(q with.db "SELECT key, value FROM meta WHERE key LIKE 'probe.%'")"
[ "$(q with.db "SELECT value FROM meta WHERE key = 'probe.$disk.randread_iops_qd32'")" = 41000 ] || fail "iops ceiling"
[ "$(q with.db "SELECT value FROM meta WHERE key = 'probe.$disk.fsync_p99_ms'")" = 3.5 ] || fail "fsync p99"
[ "$(q with.db "SELECT value FROM meta WHERE key = 'probe.$disk.time_unix'")" = 2000 ] || fail "time"
[ "$(q with.db "SELECT count(*) FROM meta WHERE key = 'probe.$disk.meta_ops_per_s'")" = 0 ] || fail "NULL copied"
[ "$(q with.db "SELECT count(*) FROM meta WHERE key LIKE 'probe.nosuchdisk9.%'")" = 0 ] || fail "a disk not here"

# An unreadable database file is not fatal either.
echo junk >"$FEEDSCOPE_PROBE_DB"
"$FEEDSCOPE" run -q -o junk.db -- true || fail "run with a junk probes db"
exit 0
