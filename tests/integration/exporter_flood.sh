# The exporter under a flood (issue 38, case 3; docs/exporter.md, "HTTP"):
# fifty clients sending complete requests as fast as they can (http_flood,
# tests/tools/) for 20 s, from 127.0.0.1, while 25 ordinary scrapes (curl,
# 10 s timeout: Prometheus's default scrape timeout) come from 127.0.0.2,
# as a Prometheus on another host would. Every scrape must succeed: past
# the total limit connections wait in the backlog rather than evicting one,
# and one address holds at most the per-client limit (before this change
# the flood filled the 16 slots and new connections evicted the scraper's:
# scrapes failed). The latencies and the flood's rate are printed, never
# asserted (bench/exporter_flood.sh measures them).
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
FLOOD=$FEEDSCOPE_BUILD/tests/http_flood
[ -x "$FLOOD" ] || fail "no $FLOOD (make unit builds it)"
mkdir runs
base_run runs/a.db
P=$(free_port)
start_exporter "$P" runs
wait_figure "$P" feedscope_run_file_up 'job="a"' 1
"$FLOOD" "$P" 50 20 127.0.0.1 >flood.out &
flood=$!
bgpids+=($flood)
sleep 1
ok=0 errs= lat=
for i in $(seq 25); do
	t=$(curl -s -o page -w '%{http_code} %{time_total}' -m 10 --interface 127.0.0.2 "http://127.0.0.1:$P/metrics")
	rc=$?
	if [ "${t%% *}" = 200 ] && grep -q '^feedscope_run_file_up{job="a"} 1$' page; then
		ok=$((ok + 1))
		lat="$lat ${t#* }"
	else
		errs="$errs #$i:curl=$rc,http=${t%% *}"
	fi
	sleep 0.5
done
wait $flood
echo "$(cat flood.out); $ok of 25 scrapes succeeded, latency s:$lat"
[ $ok = 25 ] || fail "$((25 - ok)) of 25 scrapes failed under the flood:$errs"
exit 0
