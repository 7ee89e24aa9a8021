# exporter_attack.sh - helpers for the exporter's robustness tests
# (tests/integration/exporter_*.sh; sourced after integration.sh): a free
# port, a finished run file, a "live" run file that a writer of the test's
# own appends a tick to every 0.1 s (WAL mode, as the recorder writes), the
# exporter started on a runs directory, and reading one figure off its page.
PY=/usr/bin/python3
[ -x "$PY" ] || fail "needs /usr/bin/python3"
need_cmd curl
need_cmd sqlite3
F=$FEEDSCOPE
bgpids=()
# bounded, even when an exporter is stuck (in a FIFO's open): KILL after 5 s
cleanup() {
	touch stop
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
	for _ in $(seq 25); do
		alive=0
		for p in "${bgpids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.2
	done
	for p in "${bgpids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT

free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# base_run FILE: a finished run file of a 1-second job (made once per test)
base_run() {
	[ -f base.db ] || "$F" run -q --no-hook --no-trace -i 0.1 -o base.db -- sleep 1 2>base.err ||
		fail "could not record the base run: $(cat base.err)"
	cp base.db "$1"
}

# live_run FILE: FILE is a run being recorded (no end yet, WAL mode), a tick
# appended every 0.1 s until ./stop exists; waits for its first tick
live_run() {
	base_run "$1.tmp"
	sqlite3 "$1.tmp" "DELETE FROM meta WHERE key = 'end_unix'; PRAGMA journal_mode=WAL;" >/dev/null
	mv "$1.tmp" "$1"
	$PY - "$1" <<'PYEOF' &
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
t = db.execute("SELECT max(t) FROM ticks").fetchone()[0] or 0
while not os.path.exists("stop"):
    t += 0.1
    db.execute("INSERT INTO ticks(t, dt_s, sample_us, missed, cpu_us) VALUES (?, 0.1, 10, 0, 10)", (t,))
    time.sleep(0.1)
PYEOF
	bgpids+=($!)
}

# start_exporter PORT RUNSDIR [ERRFILE]: the node exporter on RUNSDIR
start_exporter() {
	"$F" exporter --listen "127.0.0.1:$1" --runs-dir "$2" 2>"${3:-exp.err}" &
	exppid=$!
	bgpids+=($exppid)
	for _ in $(seq 100); do
		curl -s -o /dev/null -m 2 "http://127.0.0.1:$1/" && return 0
		sleep 0.1
	done
	fail "the exporter did not answer: $(cat "${3:-exp.err}")"
}

# figure PORT METRIC LABELS: its value on the page ("none" when absent or no answer)
figure() {
	curl -s -m 10 "http://127.0.0.1:$1/metrics" |
		awk -v m="$2{$3}" 'index($0, m " ") == 1 { print $2; f = 1; exit } END { if (!f) print "none" }'
}

# wait_figure PORT METRIC LABELS WANT [TRIES]: until it reads WANT (0.2 s apart)
wait_figure() {
	local got
	for _ in $(seq "${5:-100}"); do
		got=$(figure "$1" "$2" "$3")
		[ "$got" = "$4" ] && return 0
		sleep 0.2
	done
	fail "$2{$3} = $got, expected $4"
}

# advancing PORT JOB SECONDS: feedscope_recorded_seconds of JOB moves on in
# each of SECONDS/2 two-second windows (the reader refreshes once a second);
# prints the values seen. In a command substitution: v=$(advancing ...) || exit 1
advancing() {
	local prev now i
	prev=$(figure "$1" feedscope_recorded_seconds "job=\"$2\"")
	for i in $(seq $(($3 / 2))); do
		sleep 2
		now=$(figure "$1" feedscope_recorded_seconds "job=\"$2\"")
		printf '%s ' "$now"
		[ "$now" != none ] && [ "$prev" != none ] && awk -v a="$now" -v b="$prev" 'BEGIN { exit !(a > b) }' ||
			{ echo; fail "feedscope_recorded_seconds{job=\"$2\"} did not move on in 2 s (window $i: $prev -> $now)"; }
		prev=$now
	done
	echo
}
