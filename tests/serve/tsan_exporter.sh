#!/bin/sh
# tsan_exporter.sh TSAN_BUILD - part of `make tsan`: feedscope itself built
# with ThreadSanitizer, recording a job with its exporter on (`run
# --export`: the recorder's thread publishes what the exporter's threads
# serve), scraped over and over while the job runs, with garbage, a
# half-sent request and pipelined requests between the scrapes. Fails on
# any race TSan reports, if the job's exit status is lost, or if a scrape
# does not answer with the metrics. Then `feedscope exporter` without run
# files (the machine's sampler, the runs directory): run files copied in
# and removed over and over while it computes their verdicts (every
# second) and is scraped.
set -eu
tsan=$1
dir=$(mktemp -d /tmp/feedscope-tsan-exp.XXXXXX)
trap 'rm -rf "$dir"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" "$tsan/feedscope" run -q --no-trace -i 0.05 \
	-o "$dir/run.db" --export "127.0.0.1:$port" -- sh -c 'sleep 6; exit 3' 2>"$dir/err" &
pid=$!
ok=0
i=0
while [ $i -lt 60 ]; do
	i=$((i + 1))
	if curl -s -m 2 "http://127.0.0.1:$port/metrics" >"$dir/m" 2>/dev/null && grep -q '^feedscope_' "$dir/m"; then
		ok=$((ok + 1))
	fi
	# garbage, a request cut short, two pipelined requests
	printf '\026\003\001garbage\r\n\r\n' | curl -s -m 0.4 "telnet://127.0.0.1:$port" >/dev/null 2>&1 || true
	printf 'GET /metr' | curl -s -m 0.4 "telnet://127.0.0.1:$port" >/dev/null 2>&1 || true
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n' |
		curl -s -m 0.4 "telnet://127.0.0.1:$port" >/dev/null 2>&1 || true
	kill -0 $pid 2>/dev/null || break
done
rc=0
wait $pid || rc=$?
if grep -q 'ThreadSanitizer' "$dir/err"; then
	cat "$dir/err" >&2
	echo "FAIL  tsan: feedscope run --export: ThreadSanitizer reported" >&2
	exit 1
fi
[ $rc -eq 3 ] || { cat "$dir/err" >&2; echo "FAIL  tsan: feedscope run --export exited $rc, the job's status is 3" >&2; exit 1; }
[ $ok -ge 3 ] || { echo "FAIL  tsan: only $ok scrapes answered with the metrics" >&2; exit 1; }
echo "PASS  tsan: run --export scraped $ok times (with garbage, cut and pipelined requests between), no race reported"

# the exporter without run files: jobs come and go under the verdict thread
mkdir "$dir/runs"
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" "$tsan/feedscope" exporter --listen "127.0.0.1:$port" \
	--runs-dir "$dir/runs" --verdict-every 1 2>"$dir/err2" &
pid=$!
ok=0
jobs=0
verdicts=0
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	cp "$dir/run.db" "$dir/runs/new.tmp" && mv "$dir/runs/new.tmp" "$dir/runs/r$((i % 3)).db"
	[ $((i % 2)) -eq 0 ] && rm -f "$dir/runs/r$(((i + 1) % 3)).db"
	if curl -s -m 2 "http://127.0.0.1:$port/metrics" >"$dir/m" 2>/dev/null && grep -q '^feedscope_node_samples_total' "$dir/m"; then
		ok=$((ok + 1))
		grep -q '^feedscope_run_file_up{job="r[0-2]"} 1' "$dir/m" && jobs=$((jobs + 1))
		grep -q '^feedscope_verdict_info{job="r[0-2]"' "$dir/m" && verdicts=$((verdicts + 1))
	fi
	sleep 0.3
	kill -0 $pid 2>/dev/null || break
done
kill -TERM $pid 2>/dev/null || true
rc=0
wait $pid || rc=$?
if grep -q 'ThreadSanitizer' "$dir/err2"; then
	cat "$dir/err2" >&2
	echo "FAIL  tsan: feedscope exporter --runs-dir: ThreadSanitizer reported" >&2
	exit 1
fi
[ $rc -eq 0 ] || { cat "$dir/err2" >&2; echo "FAIL  tsan: feedscope exporter exited $rc on SIGTERM" >&2; exit 1; }
[ $ok -ge 3 ] || { echo "FAIL  tsan: only $ok scrapes of the exporter answered with the machine's metrics" >&2; exit 1; }
[ $jobs -ge 3 ] && [ $verdicts -ge 1 ] ||
	{ echo "FAIL  tsan: run files served in $jobs scrapes, with a verdict in $verdicts: the jobs' paths were not exercised" >&2; exit 1; }
echo "PASS  tsan: exporter --runs-dir scraped $ok times while run files came and went ($jobs with run files, $verdicts with a verdict), no race reported"
