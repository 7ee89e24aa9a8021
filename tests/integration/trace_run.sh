# The tracer end to end under feedscope run: the files table holds what the
# job read and wrote (exact bytes), io_intervals its time inside I/O calls,
# --trace-ops every operation, --hash-paths no path, --no-trace nothing.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
[ -f "$FEEDSCOPE_BUILD/libfeedscope-trace.so" ] || fail "no tracer library in $FEEDSCOPE_BUILD"
need_cmd dd
head -c 300000 /dev/urandom >in.bin
job="dd if=$TEST_TMP/in.bin of=$TEST_TMP/out.bin bs=4096 status=none"
regions_before=$(ls /dev/shm | grep -c '^feedscope-trace-')

expect_status 0 "$FEEDSCOPE" run -q -o a.db -- sh -c "$job"
cmp -s in.bin out.bin || fail "the job's copy differs"
[ "$(q a.db "SELECT value FROM meta WHERE key='trace'")" = on ] || fail "trace meta: $(q a.db "SELECT value FROM meta WHERE key='trace'")"
[ "$(q a.db "SELECT read_bytes FROM files WHERE path = '$TEST_TMP/in.bin'")" = 300000 ] ||
	fail "files: in.bin read_bytes: $(q a.db "SELECT * FROM files")"
[ "$(q a.db "SELECT write_bytes FROM files WHERE path = '$TEST_TMP/out.bin'")" = 300000 ] || fail "files: out.bin"
[ "$(q a.db "SELECT reads FROM files WHERE path = '$TEST_TMP/in.bin'")" = 75 ] ||
	fail "reads: 73 full blocks + 1 short + 1 at EOF expected 75, got $(q a.db "SELECT reads FROM files WHERE path = '$TEST_TMP/in.bin'")"
[ "$(q a.db "SELECT consec_reads FROM files WHERE path = '$TEST_TMP/in.bin'")" = 74 ] || fail "consecutive reads"
dd_pid=$(q a.db "SELECT pid FROM files WHERE path = '$TEST_TMP/in.bin'")
[ "$(q a.db "SELECT sum(read_bytes) FROM io_intervals WHERE pid = $dd_pid")" -ge 300000 ] || fail "io_intervals bytes"
[ "$(q a.db "SELECT sum(io_time_s) > 0 FROM io_intervals WHERE pid = $dd_pid")" = 1 ] || fail "io_intervals time"
[ "$(q a.db "SELECT count(*) FROM ops")" = 0 ] || fail "ops without --trace-ops"
[ -z "$(q a.db "SELECT value FROM meta WHERE key LIKE 'trace.untraced.%'")" ] || fail "a traced job called untraced"
[ "$(ls /dev/shm | grep -c '^feedscope-trace-')" -le "$regions_before" ] || fail "region directory left in /dev/shm: $(ls /dev/shm)"

expect_status 0 "$FEEDSCOPE" run -q -o ops.db --trace-ops -- sh -c "$job"
n=$(q ops.db "SELECT count(*) FROM ops WHERE op = 'read' AND path = '$TEST_TMP/in.bin'")
[ "$n" = 75 ] || fail "--trace-ops: $n read ops of in.bin, expected 75"
[ "$(q ops.db "SELECT sum(result) FROM ops WHERE op = 'read' AND path = '$TEST_TMP/in.bin'")" = 300000 ] || fail "op results"
[ "$(q ops.db "SELECT count(*) FROM ops WHERE op = 'read' AND path = '$TEST_TMP/in.bin' AND offset = 4096")" = 1 ] ||
	fail "op offsets"

# --hash-paths: no path in clear anywhere in the run file (files, ops, the
# command, cwd, what the job sends through the marker socket); the hash is
# keyed: random per run, the same across runs only with FEEDSCOPE_HASH_KEY.
need_cmd python3
hjob="import feedscope, subprocess; feedscope.meta('user.data', 'dir=$TEST_TMP/data'); subprocess.run(['sh', '-c', '$job'])"
expect_status 0 "$FEEDSCOPE" run -q -o h.db --hash-paths --trace-ops -- python3 -c "$hjob"
[ "$(q h.db "SELECT count(*) FROM files WHERE path LIKE '%/%'")" = 0 ] || fail "--hash-paths left a path"
[ "$(q h.db "SELECT count(*) FROM ops WHERE path LIKE '%/%'")" = 0 ] || fail "--hash-paths left a path in ops"
[ "$(q h.db "SELECT count(*) FROM files WHERE path = path_hash AND read_bytes = 300000")" = 1 ] || fail "--hash-paths rows"
[ "$(q h.db "SELECT count(*) FROM meta WHERE value LIKE '%/%'")" = 0 ] ||
	fail "--hash-paths left a path in meta: $(q h.db "SELECT * FROM meta WHERE value LIKE '%/%'")"
[ "$(q h.db "SELECT value FROM meta WHERE key='user.data'" | cut -c1-4)" = dir= ] || fail "user.data: key= kept"
grep -c "$TEST_TMP" h.db && fail "the test directory's path is in h.db in clear"
[ "$(q h.db "SELECT value FROM meta WHERE key='trace'")" = "on, paths hashed" ] || fail "trace meta with --hash-paths"
h_in=$(q h.db "SELECT path FROM files WHERE read_bytes = 300000")
expect_status 0 "$FEEDSCOPE" run -q -o h2.db --hash-paths -- sh -c "$job"
[ "$(q h2.db "SELECT path FROM files WHERE read_bytes = 300000")" != "$h_in" ] || fail "unkeyed: two runs hash alike"
key=000102030405060708090a0b0c0d0e0f
for r in k1 k2; do
	FEEDSCOPE_HASH_KEY=$key expect_status 0 "$FEEDSCOPE" run -q -o $r.db --hash-paths -- sh -c "$job"
done
k1=$(q k1.db "SELECT path FROM files WHERE read_bytes = 300000")
[ -n "$k1" ] && [ "$k1" = "$(q k2.db "SELECT path FROM files WHERE read_bytes = 300000")" ] ||
	fail "FEEDSCOPE_HASH_KEY: the same key should give the same hash"
[ "$k1" != "$h_in" ] || fail "FEEDSCOPE_HASH_KEY ignored"
grep -c $key k1.db && fail "the key is in the run file"
# the hash of a path guessed by someone without the key is not what is stored
guess=$(python3 -c "
h = 14695981039346656037
for c in b'$TEST_TMP/in.bin': h = ((h ^ c) * 1099511628211) & (2**64 - 1)
print('%016x' % h)")
[ "$(q k1.db "SELECT count(*) FROM files WHERE path = '$guess' OR path_hash = '$guess'")" = 0 ] || fail "an unkeyed FNV-1a is stored"

expect_status 0 "$FEEDSCOPE" run -q -o n.db --no-trace -- sh -c "$job"
[ "$(q n.db "SELECT count(*) FROM files") $(q n.db "SELECT count(*) FROM io_intervals")" = "0 0" ] || fail "--no-trace"
"$FEEDSCOPE" run -q -o bad.db --no-trace --trace-ops -- true 2>/dev/null && fail "--no-trace --trace-ops accepted"
exit 0
