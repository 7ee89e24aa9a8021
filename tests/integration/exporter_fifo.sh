# The exporter's runs directory with a file that becomes a FIFO (issue 38,
# case 1; docs/exporter.md, "Reading run files safely"): flip.db, a
# symbolic link swapped as fast as a loop can between a real run file and a
# FIFO, next to a live run being written. The reader opens each file once,
# non-blocking, checks that descriptor, and SQLite reads that very
# descriptor: it never waits in a FIFO's open. So the live run's
# feedscope_recorded_seconds moves on in every 2-second window for 16 s of
# flipping (the exporter before this change sat in the kernel's fifo_open
# within a few seconds, and every run froze), the flipped file is
# file_up 0 or not served while a FIFO, and SIGTERM still ends the
# exporter (it joins its reader).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
mkdir runs
live_run runs/live.db
base_run other.db
mkfifo pipe
ln -s "$PWD/other.db" runs/flip.db
P=$(free_port)
start_exporter "$P" runs
wait_figure "$P" feedscope_run_file_up 'job="live"' 1
wait_figure "$P" feedscope_run_file_up 'job="flip"' 1
# the flipper: the link replaced atomically (rename), other.db <-> the FIFO
$PY - "$PWD" <<'PYEOF' &
import os, sys, time
d = sys.argv[1]
targets = [d + "/pipe", d + "/other.db"]
t0, n = time.monotonic(), 0
while not os.path.exists("stop") and not os.path.exists("stopflip") and time.monotonic() - t0 < 60:
    os.symlink(targets[n % 2], d + "/runs/.flip.tmp")
    os.replace(d + "/runs/.flip.tmp", d + "/runs/flip.db")
    n += 1
print("flips:", n)
PYEOF
flipper=$!
bgpids+=($flipper)
seen=$(advancing "$P" live 16) || exit 1
echo "recorded_seconds of the live run while flip.db flips: $seen"
touch stopflip
wait $flipper
# left as the FIFO: not read, and the live run still refreshed
ln -sfn "$PWD/pipe" runs/flip.db
seen=$(advancing "$P" live 4) || exit 1
echo "after, flip.db a FIFO: $seen"
up=$(figure "$P" feedscope_run_file_up 'job="flip"')
case $up in 0 | none) ;; *) fail "flip.db, a FIFO now, is feedscope_run_file_up $up" ;; esac
kill -TERM "$exppid"
for _ in $(seq 50); do kill -0 "$exppid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$exppid" 2>/dev/null && fail "the exporter did not end on SIGTERM (its reader stuck?)"
wait "$exppid" || fail "the exporter exited $?: $(cat exp.err)"
exit 0
