# The device's own idle inside each wait (feedscope.device_timeline(),
# docs/markers.md "The device's own clock"), end to end under feedscope run:
# a Python loop with a fake device timeline of known idle per step (5 ms in
# even steps' waits, 0 in odd ones; events complete 2 steps late) stores
# exactly those figures in steps.device_idle_s, NULL for the steps whose
# events had not completed when their epoch ended, and the per-minute
# steps_1m their sum and count; a loop without a timeline stores every
# figure NULL and no device meta; a job killed with SIGKILL keeps every step
# it sent (those whose figure had not come: NULL).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs $PY"
need_cmd sqlite3
JOB=$FEEDSCOPE_TOP/tests/markers/device_job.py

# check DB OUT: every "step E K IDLE" line of OUT against the run file
check() {
	want=$(awk '$1 == "step" { print $2 "|" $3 "|" $4 }' "$2" | sort)
	got=$(q "$1" "SELECT epoch, step, CASE WHEN device_idle_s IS NULL THEN 'null' ELSE device_idle_s END
		FROM steps WHERE loader = 'train'" | sort)
	[ -n "$want" ] || fail "$1: the job printed no steps"
	[ "$want" = "$got" ] || fail "$1: device_idle_s per step:
want
$want
got
$got"
}

"$FEEDSCOPE" run -q -o tl.db -- "$PY" "$JOB" timeline 2 10 2 >tl.out 2>tl.err || fail "timeline job: $(cat tl.err)"
[ ! -s tl.err ] || fail "timeline job said: $(cat tl.err)"
grep -qx "violations 0" tl.out || fail "feedscope read an event not complete: $(tail -1 tl.out)"
check tl.db tl.out
[ "$(q tl.db "SELECT count(*) FROM steps")" = 20 ] || fail "steps: $(q tl.db 'SELECT count(*) FROM steps')"
[ "$(q tl.db "SELECT count(device_idle_s) FROM steps")" = 16 ] || fail "figures"
[ "$(q tl.db "SELECT value FROM meta WHERE key = 'markers.device_steps'")" = 16 ] || fail "markers.device_steps"
[ "$(q tl.db "SELECT value FROM meta WHERE key = 'markers.bad_records'")" = 0 ] || fail "bad records"
[ "$(q tl.db "SELECT count(*) FROM meta WHERE key = 'markers.device_unmatched'")" = 0 ] || fail "unmatched figures"
pid=$(q tl.db "SELECT DISTINCT pid FROM steps")
[ "$(q tl.db "SELECT value FROM meta WHERE key = 'hook.device_timeline.$pid'")" = "user: fake" ] ||
	fail "hook.device_timeline: $(q tl.db "SELECT key, value FROM meta WHERE key LIKE 'hook.device%'")"
[ "$(q tl.db "SELECT sum(device_steps) || ' ' || round(sum(device_idle_s), 9) FROM steps_1m")" = "16 0.04" ] ||
	fail "steps_1m: $(q tl.db 'SELECT * FROM steps_1m')"
[ "$(q tl.db "SELECT value FROM meta WHERE key = 'schema_version'")" -ge 13 ] || fail "schema_version"
"$FEEDSCOPE" report tl.db >/dev/null || fail "report of tl.db"

# no timeline: the same steps, every figure NULL, no device meta
"$FEEDSCOPE" run -q -o none.db -- "$PY" "$JOB" none 2 10 2 >none.out 2>none.err || fail "none job: $(cat none.err)"
check none.db none.out
[ "$(q none.db "SELECT count(*) || ' ' || count(device_idle_s) FROM steps")" = "20 0" ] || fail "none: figures"
[ "$(q none.db "SELECT count(*) FROM meta WHERE key LIKE 'markers.device%' OR key LIKE 'hook.device%'")" = 0 ] ||
	fail "none: device meta"
[ "$(q none.db "SELECT count(*) FROM steps_1m WHERE device_idle_s IS NOT NULL OR device_steps != 0")" = 0 ] ||
	fail "none: steps_1m"

# killed: every step sent is there; the figures that had come, the rest NULL
"$FEEDSCOPE" run -q -o kill.db -- "$PY" "$JOB" kill 1 8 2 >kill.out 2>kill.err
[ "$(q kill.db "SELECT value FROM meta WHERE key = 'term_signal'")" = 9 ] ||
	fail "kill: term_signal $(q kill.db "SELECT value FROM meta WHERE key = 'term_signal'")"
check kill.db kill.out
[ "$(q kill.db "SELECT count(*) || ' ' || count(device_idle_s) FROM steps")" = "7 5" ] ||
	fail "kill: $(q kill.db 'SELECT step, device_idle_s FROM steps')"
exit 0
