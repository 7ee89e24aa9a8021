#!/usr/bin/env bash
# bench/exporter_flood.sh FEEDSCOPE HTTP_FLOOD [FLOOD_SRC [SCRAPE_SRC]] -
# the exporter under a flood of complete requests (figures, never asserted;
# docs/exporter.md, "HTTP"): `feedscope exporter` on a runs directory with
# one run file; 50 clients (http_flood, tests/tools/) sending whole GET
# /metrics requests from FLOOD_SRC (default 127.0.0.1) for 20 s; meanwhile
# 25 ordinary scrapes (curl, 10 s timeout as Prometheus's default, from
# SCRAPE_SRC, default 127.0.0.1), 0.5 s apart. Prints the flood's rate, how
# many scrapes succeeded, their latency (min, median, max) and the
# exporter's CPU over the flood.
set -u
F=${1:?usage: bench/exporter_flood.sh FEEDSCOPE HTTP_FLOOD [FLOOD_SRC [SCRAPE_SRC]]}
FLOOD=${2:?}
fsrc=${3:-127.0.0.1}
ssrc=${4:-127.0.0.1}
d=$(mktemp -d /tmp/fs-flood.XXXXXX)
trap 'kill $exp 2>/dev/null; sleep 0.5; kill -9 $exp 2>/dev/null; rm -rf "$d"' EXIT
mkdir "$d/runs"
"$F" run -q --no-hook --no-trace -i 0.1 -o "$d/runs/a.db" -- sleep 1 2>/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$F" exporter --listen "127.0.0.1:$port" --runs-dir "$d/runs" 2>"$d/exp.err" &
exp=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
hz=$(getconf CLK_TCK)
c0=$(awk '{ print $14 + $15 }' /proc/$exp/stat)
"$FLOOD" "$port" 50 20 "$fsrc" "${FLOOD_PATH:-/metrics}" >"$d/flood.out" &
fl=$!
sleep 1
ok=0
errs=
: >"$d/lat"
for i in $(seq 25); do
	t=$(curl -s -o "$d/page" -w '%{http_code} %{time_total}' -m 10 --interface "$ssrc" "http://127.0.0.1:$port/metrics")
	rc=$?
	if [ "${t%% *}" = 200 ] && grep -q '^feedscope_run_file_up{job="a"} 1' "$d/page"; then
		ok=$((ok + 1))
		echo "${t#* }" >>"$d/lat"
	else
		errs="$errs curl:$rc"
	fi
	sleep 0.5
done
wait $fl
c1=$(awk '{ print $14 + $15 }' /proc/$exp/stat)
echo "$(cat "$d/flood.out") from $fsrc; scrapes from $ssrc: $ok of 25 succeeded;" \
	"latency s (min median max): $(sort -n "$d/lat" | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f %.3f %.3f", v[1], v[int((NR + 1) / 2)], v[NR]; else printf "-" }');" \
	"failures:${errs:- none}; exporter CPU: $(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.0f%% of a core", (b - a) / hz / 21 * 100 }')"
