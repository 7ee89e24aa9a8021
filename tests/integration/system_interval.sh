# The machine-wide tables (cpu, cpu_core, psi, mem, disk, net, tcp) are
# sampled once per system interval (--system-interval, 1 s by default), not
# every tick, each row with the interval it covers in its own dt_s, and once
# more at the run's last tick: together their rows cover the whole run. The
# job's own tables stay every tick. Bad values exit 2 before the job starts.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"

# The job spins on one core for 2.6 s and prints the CPU time it used: the
# machine's busy core-seconds over the rows must hold at least that much,
# which they do only if the rows reach the end of the run (the last full
# second ends at 2 s).
cat >spin.py <<'EOF'
import time
t0 = time.monotonic()
while time.monotonic() - t0 < 2.6:
    pass
print(time.process_time())
EOF
"$FEEDSCOPE" run -q --no-trace -o d.db -i 0.1 -- /usr/bin/python3 spin.py >cpu.txt || fail "run failed"
[ "$(q d.db "SELECT value FROM meta WHERE key='system_interval_s'")" = 1 ] || fail "meta system_interval_s is not 1"
last=$(q d.db "SELECT max(t) FROM ticks")
ticks=$(q d.db "SELECT count(*) FROM ticks")
for tb in cpu cpu_core psi disk net; do
	n=$(q d.db "SELECT count(DISTINCT t) FROM $tb")
	[ -n "$(q d.db "SELECT 1 FROM $tb LIMIT 1")" ] || fail "$tb: no rows"
	# rows at about 1, 2 and the last tick (2.6 s and a little)
	[ "$n" -ge 3 ] && [ "$n" -le 4 ] || fail "$tb: rows at $n times in $ticks ticks, expected 3 or 4"
	# every interval about a second but the last; the last row at the last tick
	bad=$(q d.db "SELECT count(*) FROM $tb WHERE t < $last AND (dt_s < 0.9 OR dt_s > 1.2)")
	[ "$bad" = 0 ] || fail "$tb: $bad rows whose dt_s is not about 1 s: $(q d.db "SELECT DISTINCT t, dt_s FROM $tb")"
	[ "$(q d.db "SELECT count(*) FROM $tb WHERE t = $last")" -ge 1 ] || fail "$tb: no row at the last tick $last"
done
# cpu's rows cover the run from the first tick (t = 0, the baseline) to the last
covered=$(q d.db "SELECT sum(dt_s) FROM cpu")
approx "$covered" "$last" 0.01 || fail "cpu rows cover $covered s of a run of $last s"
# mem and tcp never more than once a second, but for their last row, at the
# run's last tick
for tb in mem tcp; do
	gap=$(q d.db "SELECT min(dt_s) FROM $tb WHERE t < $last")
	[ -z "$gap" ] || awk -v g="$gap" 'BEGIN { exit !(g >= 0.9) }' || fail "$tb: rows $gap s apart"
	[ -z "$(q d.db "SELECT 1 FROM $tb LIMIT 1")" ] || [ "$(q d.db "SELECT count(*) FROM $tb WHERE t = $last")" = 1 ] ||
		fail "$tb: no row at the last tick $last"
done
# the job's own tables every tick
[ "$(q d.db "SELECT count(DISTINCT t) FROM proc")" -ge $((ticks - 2)) ] || fail "proc is not every tick"
used=$(cat cpu.txt)
busy=$(q d.db "SELECT sum((100 - idle_pct - iowait_pct) / 100.0 * ncpu * dt_s) FROM cpu")
echo "job CPU $used s; machine busy over the cpu rows $busy core-s over $covered s"
awk -v b="$busy" -v u="$used" 'BEGIN { exit !(b >= 0.95 * u) }' ||
	fail "the cpu rows hold $busy busy core-seconds, less than the job's own $used s"
# and the report's disk and network figures come from those rows
"$FEEDSCOPE" report --json d.db >r.json || fail "report failed"
/usr/bin/python3 - <<'EOF' || fail "report figures"
import json
r = json.load(open("r.json"))
s = json.dumps(r)
assert "cpu_busy_pct" in s, "no cpu figure in the report"
EOF

# --system-interval 0: every tick, each row's dt_s its tick's
"$FEEDSCOPE" run -q --no-trace -o z.db -i 0.1 --system-interval 0 -- sleep 1 || fail "run --system-interval 0 failed"
[ "$(q z.db "SELECT value FROM meta WHERE key='system_interval_s'")" = 0.1 ] || fail "meta system_interval_s is not 0.1"
n=$(q z.db "SELECT count(DISTINCT t) FROM cpu")
tk=$(q z.db "SELECT count(*) FROM ticks WHERE dt_s IS NOT NULL")
[ "$n" = "$tk" ] || fail "--system-interval 0: cpu rows at $n times, ticks $tk"
off=$(q z.db "SELECT max(abs(c.dt_s - k.dt_s)) FROM cpu c JOIN ticks k ON k.t = c.t")
awk -v o="$off" 'BEGIN { exit !(o < 0.02) }' || fail "--system-interval 0: cpu dt_s differs from the tick's by $off"

# 0.5 s: rows about half a second apart; with -i 1 it is every tick
"$FEEDSCOPE" run -q --no-trace -o h.db -i 0.1 --system-interval 500ms -- sleep 1.6 || fail "run --system-interval 500ms failed"
bad=$(q h.db "SELECT count(*) FROM disk WHERE t < (SELECT max(t) FROM ticks) AND (dt_s < 0.45 OR dt_s > 0.65)")
[ "$bad" = 0 ] || fail "500ms: disk rows $(q h.db "SELECT DISTINCT dt_s FROM disk")"
"$FEEDSCOPE" run -q --no-trace -o s.db -i 1 --system-interval 0.3 -- sleep 2.2 || fail "run -i 1 failed"
[ "$(q s.db "SELECT value FROM meta WHERE key='system_interval_s'")" = 1 ] || fail "-i 1: meta system_interval_s is not 1"
[ "$(q s.db "SELECT count(DISTINCT t) FROM cpu")" = "$(q s.db "SELECT count(*) FROM ticks WHERE dt_s IS NOT NULL")" ] ||
	fail "-i 1 --system-interval 0.3: cpu not every tick"

# attach takes it too
sleep 3 &
pid=$!
"$FEEDSCOPE" attach -q -o a.db -i 0.1 --system-interval 0.5 -d 1.2 $pid || fail "attach --system-interval failed"
kill $pid 2>/dev/null
[ "$(q a.db "SELECT value FROM meta WHERE key='system_interval_s'")" = 0.5 ] || fail "attach: meta system_interval_s"

# bad values: exit 2, the job never started
for v in -1 abc 0.0001 7200 ''; do
	rm -f started
	expect_status 2 "$FEEDSCOPE" run -q -o bad.db --system-interval "$v" -- touch started 2>err.txt
	[ ! -e started ] || fail "--system-interval '$v': the job ran"
	grep -q 'system-interval' err.txt || fail "--system-interval '$v': no message: $(cat err.txt)"
	[ ! -e bad.db ] || fail "--system-interval '$v': a run file was made"
done
exit 0
