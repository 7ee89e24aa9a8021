# Killing the recorder with SIGKILL leaves a run file that opens and holds all
# but the last second; killing the job leaves a complete one.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"

"$FEEDSCOPE" run -q -o k.db -i 0.05 -- sleep 30 &
fs=$!
sleep 3.2
kill -KILL $fs
wait $fs 2>/dev/null
job=$(q k.db "SELECT value FROM meta WHERE key='pid'")
[ -n "$job" ] && kill "$job" 2>/dev/null
[ "$(q k.db 'PRAGMA integrity_check')" = ok ] || fail "integrity_check failed"
last=$(q k.db "SELECT max(t) FROM ticks")
approx_ok=$(awk -v t="$last" 'BEGIN { print (t >= 2.0) }')
[ "$approx_ok" = 1 ] || fail "after 3.2 s the file holds ticks up to t=$last only"
n=$(q k.db "SELECT count(*) FROM proc")
[ "$n" -ge 35 ] || fail "only $n proc rows"
# the machine-wide tables once a second (the system interval)
n=$(q k.db "SELECT count(*) FROM cpu")
[ "$n" -ge 2 ] || fail "only $n cpu rows"
# Every sampled table that was written in the last committed second is there.
# mem is written once a second
[ "$(q k.db "SELECT count(*) FROM mem")" -ge 2 ] || fail "mem rows missing"
[ -z "$(q k.db "SELECT value FROM meta WHERE key='end_unix'")" ] || fail "end_unix should be absent"

# The killed recorder's tracer regions stay in /dev/shm until the next
# feedscope run sees that their maker is gone and removes them.
ls -d /dev/shm/feedscope-trace-$fs-* >/dev/null 2>&1 || fail "expected the killed recorder's region directory"
expect_status 0 "$FEEDSCOPE" run -q -o again.db -- true
ls -d /dev/shm/feedscope-trace-$fs-* >/dev/null 2>&1 && fail "a stale region directory was not removed"

# Killed while replacing a file (-f): the old file is untouched and the run
# so far is in FILE.partial-PID beside it, readable.
echo old >f.db
"$FEEDSCOPE" run -q -f -o f.db -i 0.05 -- sleep 30 &
fs=$!
sleep 2.2
kill -KILL $fs
wait $fs 2>/dev/null
part=f.db.partial-$fs
[ -f "$part" ] || fail "-f: no $part after SIGKILL: $(ls)"
job=$(q "$part" "SELECT value FROM meta WHERE key='pid'")
[ -n "$job" ] && kill "$job" 2>/dev/null
[ "$(cat f.db)" = old ] || fail "-f: the old file changed although the run never completed"
[ "$(q "$part" 'PRAGMA integrity_check')" = ok ] || fail "-f: integrity_check of $part failed"
[ "$(awk -v t="$(q "$part" "SELECT max(t) FROM ticks")" 'BEGIN { print (t >= 1.0) }')" = 1 ] ||
	fail "-f: $part holds too few ticks"

# The job killed: the recorder finishes the file normally.
expect_status 137 "$FEEDSCOPE" run -q -o j.db -- sh -c 'sleep 0.5; kill -KILL $$'
[ "$(q j.db "SELECT value FROM meta WHERE key='exit_code'")" = 137 ] || fail "exit_code after job SIGKILL"
[ -e j.db-wal ] && fail "a clean finish should leave no -wal file"
[ -e j.db-shm ] && fail "a clean finish should leave no -shm file"
[ "$(q j.db 'PRAGMA journal_mode')" = delete ] || fail "run file not in rollback-journal mode after close"
exit 0
