# The 64th loader (issue 38, case 5; docs/exporter.md, "Metrics"): a run
# file with 100 (pid, loader) pairs, one step each. The exporter keeps 63
# and folds the others into loader="(other)"; every step is counted:
# Σ feedscope_steps_total is 100 and the "(other)" series holds 37 (before
# this change the 64th slot held the folded steps but was never shown: 63).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
base_run many.db
sqlite3 many.db "DELETE FROM steps;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100)
INSERT INTO steps(t, pid, loader, epoch, step, wait_s, compute_s) SELECT 0.5, 1000 + i, 'train', 0, 0, 0.01, 0.02 FROM k;"
P=$(free_port)
"$F" exporter --listen "127.0.0.1:$P" many.db 2>exp.err &
exppid=$!
bgpids+=($exppid)
wait_figure "$P" feedscope_run_file_up 'job="many"' 1
page=$(curl -s -m 10 "http://127.0.0.1:$P/metrics")
total=$(printf '%s\n' "$page" | awk '/^feedscope_steps_total\{/ { n += $2 } END { print n + 0 }')
series=$(printf '%s\n' "$page" | grep -c '^feedscope_steps_total{')
other=$(printf '%s\n' "$page" | awk '/^feedscope_steps_total\{.*loader="\(other\)"/ { print $2 }')
echo "steps: $total in $series series, (other) $other"
[ "$total" = 100 ] || fail "Σ feedscope_steps_total is $total, the run file has 100 steps"
[ "$series" = 64 ] || fail "$series feedscope_steps_total series, expected 63 and (other)"
[ "$other" = 37 ] || fail "loader=\"(other)\" holds '$other' steps, expected 37"
exit 0
