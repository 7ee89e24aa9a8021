#!/bin/sh
# tsan_exporter.sh TSAN_BUILD - part of `make tsan`: feedscope itself built
# with ThreadSanitizer, recording a job with its exporter on (`run
# --export`: the recorder's thread publishes what the exporter's threads
# serve), scraped over and over while the job runs, with garbage, a
# half-sent request and pipelined requests between the scrapes. Fails on
# any race TSan reports, if the job's exit status is lost, or if a scrape
# does not answer with the metrics.
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
