# The exporter's runs directory with files held under an exclusive lock
# (issue 38, case 2; docs/exporter.md, "Reading run files safely"): five
# run files locked (BEGIN EXCLUSIVE, kept) before they appear in the runs
# directory, and a sixth, a run being recorded, locked once it is served.
# Each file has its own deadline (a lock is waited for 250 ms at most) and a
# back-off: the live run next to them refreshes in every 2-second window
# (before this change each locked file cost its 5 s busy timeout, one after
# another, every second: no run refreshed for the whole time); the locked
# served file says so (feedscope_run_file_up 0, its figures no longer
# shown); once the locks go, the five are served.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
mkdir runs
for i in 1 2 3 4 5; do base_run "l$i.db"; done
base_run runs/held.db
sqlite3 runs/held.db "DELETE FROM meta WHERE key = 'end_unix'" # recording: refreshed every second
live_run runs/live.db
P=$(free_port)
start_exporter "$P" runs
wait_figure "$P" feedscope_run_file_up 'job="live"' 1
wait_figure "$P" feedscope_run_file_up 'job="held"' 1
# the locker: the five, then held.db; each connection keeps its lock until ./stop
$PY - l1.db l2.db l3.db l4.db l5.db runs/held.db <<'PYEOF' &
import os, sqlite3, sys, time
held = []
for p in sys.argv[1:]:
    c = sqlite3.connect(p, isolation_level=None, timeout=10)
    c.execute("BEGIN EXCLUSIVE")
    held.append(c)
open("locked", "w").close()
while not os.path.exists("stop") and not os.path.exists("unlock"):
    time.sleep(0.05)
for c in held:
    c.execute("ROLLBACK")
    c.close()
PYEOF
locker=$!
bgpids+=($locker)
for _ in $(seq 100); do [ -e locked ] && break; sleep 0.1; done
[ -e locked ] || fail "the locker did not lock"
for i in 1 2 3 4 5; do mv "l$i.db" runs/; done # locked, now in the runs directory
seen=$(advancing "$P" live 12) || exit 1
echo "recorded_seconds of the live run next to 6 locked files: $seen"
wait_figure "$P" feedscope_run_file_up 'job="held"' 0 20
[ "$(figure "$P" feedscope_recorded_seconds 'job="held"')" = none ] || fail "held.db, locked, still shows its figures"
grep -q "held.db: not read (database is locked" exp.err || fail "the locked file was not said: $(cat exp.err)"
touch unlock
wait "$locker"
for i in 1 2 3 4 5; do wait_figure "$P" feedscope_run_file_up "job=\"l$i\"" 1 200; done
wait_figure "$P" feedscope_run_file_up 'job="held"' 1 200
exit 0
