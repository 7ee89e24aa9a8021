# The Prometheus exporter (docs/exporter.md): `feedscope run --export` serves
# a job while it records and `feedscope exporter` a finished run file; a real
# Prometheus (Debian's) scrapes both and its HTTP API answers PromQL queries
# with the values the run file itself holds (sqlite3 on its tables). Then
# hostile clients (garbage, an oversize head, a flood of idle connections, a
# slowloris, pipelining) against the exporter inside the recorder: it still
# answers, the recording finishes, and nothing crashed. And the usage errors.
# The exporter without run files (the machine, a runs directory):
# exporter_node.sh.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd curl
need_cmd sqlite3
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs /usr/bin/python3"
PROM=$(command -v prometheus || true)
[ -n "$PROM" ] || skip "needs prometheus (Debian's package; scripts/deps.sh test installs it)"
F=$FEEDSCOPE
bgpids=()
cleanup() { touch stop; for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

# three free ports: the live exporter, Prometheus, the exporter of the finished file
read -r P1 P2 P3 < <($PY - <<'PYEOF'
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
PYEOF
)

# the job: 80 steps (feedscope.watch), then idle until told to stop, so the
# totals are final while Prometheus scrapes
cat > job.py <<'PYEOF'
import os, sys, time
import feedscope
for b in feedscope.watch(range(int(sys.argv[1])), name="train"):
    time.sleep(0.005 if b % 4 else 0.02)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PYEOF

. "$FEEDSCOPE_TOP/tests/lib/promql.sh"
# poll_near QUERY WANT: the same within 1e-9 (sums in another order)
poll_near() {
	local got
	for _ in $(seq 60); do
		got=$(pq "$1")
		[ "$got" != none ] && approx "$got" "$2" 1e-9 && return 0
		sleep 0.5
	done
	fail "$1 = $got, the run file says $2"
}

# --- usage errors, before anything starts
expect_status 2 "$F" exporter --listen nope x.db 2>err
grep -q "listen" err || fail "bad --listen: $(cat err)"
expect_status 2 "$F" exporter --listen 127.0.0.1:99999 x.db 2>/dev/null
expect_status 2 "$F" exporter --listen example.com:80 x.db 2>/dev/null
expect_status 2 "$F" exporter --verdict-window -1 x.db 2>/dev/null
expect_status 2 "$F" exporter --bogus x.db 2>/dev/null
expect_status 2 "$F" exporter --listen "127.0.0.1:$P3" missing.db 2>err
grep -q "missing.db" err || fail "missing run file not said: $(cat err)"
expect_status 2 "$F" run -q -o never.db --export 1.2.3.4.5:1 -- true 2>/dev/null
[ ! -e never.db ] || fail "a bad --export created the run file"
expect_status 2 "$F" run -q -o never.db --export "127.0.0.1:" -- true 2>/dev/null

# --- Prometheus, scraping both exporters every second (honor_labels: the
# run's job label is kept, docs/exporter.md)
cat > prom.yml <<YEOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: feedscope
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$P1", "127.0.0.1:$P3"]
YEOF
"$PROM" --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address="127.0.0.1:$P2" \
	--log.level=warn >prom.log 2>&1 &
bgpids+=($!)

# --- the recorded job, served while it runs
"$F" run -q -o live.db --no-hook --export "127.0.0.1:$P1" -- $PY job.py 80 stop 2>run.err &
runpid=$!
bgpids+=($runpid)
for _ in $(seq 120); do
	curl -sf "http://127.0.0.1:$P2/-/ready" >/dev/null && break
	sleep 0.5
done
curl -sf "http://127.0.0.1:$P2/-/ready" >/dev/null || fail "prometheus did not become ready: $(tail -5 prom.log)"
for _ in $(seq 60); do
	[ "$(q live.db 'SELECT count(*) FROM steps' 2>/dev/null)" = 80 ] && break
	sleep 0.5
done
[ "$(q live.db 'SELECT count(*) FROM steps')" = 80 ] || fail "the job's steps did not reach the run file"
I1="instance=\"127.0.0.1:$P1\""
poll_eq "up{$I1}" 1
poll_eq "sum(feedscope_steps_total{$I1,job=\"live\",loader=\"train\"})" 80
poll_near "sum(feedscope_input_wait_seconds_total{$I1,job=\"live\"})" "$(q live.db 'SELECT sum(wait_s) FROM steps')"
poll_near "sum(feedscope_compute_seconds_total{$I1,job=\"live\"})" "$(q live.db 'SELECT sum(compute_s) FROM steps')"
echo "promql: steps_total $(pq "sum(feedscope_steps_total{$I1,job=\"live\"})") (run file $(q live.db 'SELECT count(*) FROM steps'));" \
	"input_wait_seconds_total $(pq "sum(feedscope_input_wait_seconds_total{$I1,job=\"live\"})") ($(q live.db 'SELECT sum(wait_s) FROM steps'));" \
	"compute_seconds_total $(pq "sum(feedscope_compute_seconds_total{$I1,job=\"live\"})") ($(q live.db 'SELECT sum(compute_s) FROM steps'))"
poll_eq "feedscope_recording{$I1,job=\"live\"}" 1
poll_eq "count(feedscope_verdict_info{$I1,job=\"live\"})" 1
primary=$($PY - "$P2" "$I1" <<'PYEOF'
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": "feedscope_verdict_info{%s}" % sys.argv[2]})
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[1], q)))
print(r["data"]["result"][0]["metric"].get("primary", ""))
PYEOF
)
case " compute_bound storage_bandwidth storage_latency metadata cpu_preprocess loader_parallelism network memory_pressure checkpoint_stall epoch_start host_to_device undetermined " in
*" $primary "*) ;;
*) fail "verdict primary '$primary' is no verdict id" ;;
esac
idle=$(pq "feedscope_accelerator_idle_ratio{$I1}")
[ "$idle" != none ] && awk -v v="$idle" 'BEGIN { exit !(v >= 0 && v <= 1) }' || fail "idle ratio $idle"

# --- hostile clients against the exporter inside the recorder (the
# flood's and the idle connections come from 127.0.0.3, another "host"
# than the scraper's 127.0.0.1: one address holds at most 16 connections)
$PY - "$P1" <<'PYEOF' || fail "hostile clients"
import os, socket, sys, time, urllib.request
port = int(sys.argv[1])
def conn(src="127.0.0.1"):
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(src, 0))
    return s
def answer(s):
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        data += b
    return data
def scrape():
    r = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10)
    body = r.read().decode()
    assert r.status == 200 and "feedscope_steps_total{" in body, body[:200]
    return body
# garbage: a TLS hello (no line end: closed unanswered at the deadline, 5 s),
# and bytes with line ends (400, or closed)
for junk in (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200), b"\x01\x02\x03 junk\r\n\r\n" + os.urandom(3000)):
    s = conn(); s.sendall(junk); a = answer(s); s.close()
    assert a == b"" or a.startswith(b"HTTP/1.1 400 "), a[:80]
# an oversize head
s = conn(); s.sendall(b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
a = answer(s); s.close()
assert a.startswith(b"HTTP/1.1 431 "), a[:80]
# other methods, paths, a body
for req, want in ((b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", b"405"),
                  (b"GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n", b"404"),
                  (b"GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", b"413"),
                  (b"GET /metrics HTTP/3.0\r\n\r\n", b"505")):
    s = conn(); s.sendall(req); a = answer(s); s.close()
    assert a.startswith(b"HTTP/1.1 " + want), (req, a[:80])
# pipelined: two requests in one write, two answers in order
s = conn()
s.sendall(b"GET / HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\nConnection: close\r\n\r\n")
a = answer(s); s.close()
assert a.count(b"HTTP/1.1 200 OK") == 2 and a.rstrip().endswith(b"# EOF"), a[:200]
# HEAD: the length, no body
s = conn(); s.sendall(b"HEAD /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"); a = answer(s); s.close()
assert a.startswith(b"HTTP/1.1 200") and a.endswith(b"\r\n\r\n") and b"Content-Length: " in a, a[:200]
# a slowloris alone: a header line every 0.3 s; the deadline closes it
s = conn(); s.sendall(b"GET /metrics HTTP/1.1\r\n")
closed = False
t0 = time.monotonic()
while time.monotonic() - t0 < 20:
    try:
        s.sendall(b"X-Slow: 1\r\n")
        s.settimeout(0.3)
        if s.recv(100) == b"":
            closed = True; break
    except socket.timeout:
        continue
    except (BrokenPipeError, ConnectionResetError):
        closed = True; break
s.close()
assert closed, "the slowloris was never closed"
# 100 idle connections held open from one address, a slowloris among
# them: 16 held, the others refused; a scrape still answers
idle = []
for _ in range(100):
    try:
        idle.append(conn("127.0.0.3"))
    except OSError:
        pass
slow = conn("127.0.0.3")
try:
    slow.sendall(b"GET /metr")
except OSError:
    pass
scrape()
# and floods of connections that come and go
for _ in range(300):
    try:
        c = conn("127.0.0.3"); c.close()
    except OSError:
        pass
body = scrape()
for c in idle: c.close()
slow.close()
vals = {l.split()[0]: float(l.split()[1]) for l in body.splitlines() if l.startswith("feedscope_exporter_")}
assert vals["feedscope_exporter_bad_requests_total"] >= 3, vals  # 431, 413, 405, 404
assert vals["feedscope_exporter_evicted_connections_total"] >= 84, vals  # refused: 100 idle, 16 held
assert vals["feedscope_exporter_timed_out_connections_total"] >= 1, vals
print("hostile: ok;", ", ".join("%s %g" % (k[19:], v) for k, v in sorted(vals.items())))
PYEOF
poll_eq "up{$I1}" 1
kill -0 $runpid 2>/dev/null || fail "feedscope run died under the hostile clients: $(cat run.err)"
touch stop
wait $runpid || fail "feedscope run exited $?: $(cat run.err)"
[ "$(q live.db "SELECT value FROM meta WHERE key='exporter'")" = "http://127.0.0.1:$P1/metrics" ] ||
	fail "meta exporter: $(q live.db "SELECT value FROM meta WHERE key='exporter'")"
[ "$(q live.db 'SELECT count(*) FROM steps')" = 80 ] || fail "steps after the run"
echo "recorder: $(q live.db "SELECT value FROM meta WHERE key='recorder_ticks'") ticks, missed $(q live.db "SELECT value FROM meta WHERE key='recorder_missed_ticks'")"

# --- the finished run file through `feedscope exporter`
"$F" exporter --listen "127.0.0.1:$P3" live.db 2>exp.err &
exppid=$!
bgpids+=($exppid)
I3="instance=\"127.0.0.1:$P3\""
poll_eq "up{$I3}" 1
poll_eq "feedscope_recording{$I3,job=\"live\"}" 0
poll_eq "sum(feedscope_steps_total{$I3})" "$(q live.db 'SELECT count(*) FROM steps')"
poll_near "sum(feedscope_input_wait_seconds_total{$I3})" "$(q live.db 'SELECT sum(wait_s) FROM steps')"
poll_eq "feedscope_recorder_ticks_total{$I3}" "$(q live.db 'SELECT count(*) FROM ticks')"
poll_eq "feedscope_recorder_missed_ticks_total{$I3}" "$(q live.db 'SELECT total(missed) FROM ticks' | sed 's/\.0$//')"
poll_near "sum(feedscope_loader_thread_seconds_total{$I3})" \
	"$(q live.db 'SELECT sum((p.running + p.blocked_io + p.sleeping + p.other) * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t')"
poll_near "sum(feedscope_loader_thread_seconds_total{$I3,role=\"main\",state=\"sleeping\"})" \
	"$(q live.db "SELECT sum(p.sleeping * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t WHERE p.role = 'main'")"
if [ "$(q live.db 'SELECT count(*) FROM io_classes')" -gt 0 ]; then
	poll_near "sum(feedscope_io_call_seconds_total{$I3,class=\"file\"})" \
		"$(q live.db "SELECT sum(read_s + write_s + sync_s + meta_s) FROM io_classes WHERE class = 'file'")"
	poll_near "sum(feedscope_io_bytes_total{$I3,direction=\"read\"})" "$(q live.db 'SELECT sum(read_bytes) FROM io_classes')"
else
	fail "no io_classes rows: the tracer did not run ($(q live.db "SELECT value FROM meta WHERE key='trace'"))"
fi
# the job's memory: its latest tick's smaps_rollup figures summed, the
# training process (the steps' pid) as role main; /dev/shm's and the
# cgroup's latest rows (no sample where the run file has NULL)
poll_gauge() { # QUERY VALUE-FROM-THE-RUN-FILE
	if [ -z "$2" ]; then poll_eq "$1" none "the run file has NULL:"; else poll_near "$1" "$2"; fi
}
LAST="t = (SELECT max(t) FROM proc)"
[ -n "$(q live.db "SELECT sum(pss_bytes) FROM proc WHERE $LAST")" ] || fail "no PSS in the run file's last tick ($(q live.db "SELECT value FROM meta WHERE key='job.pss'"))"
poll_near "sum(feedscope_job_memory_pss_bytes{$I3,job=\"live\"})" "$(q live.db "SELECT sum(pss_bytes) FROM proc WHERE $LAST")"
poll_near "feedscope_job_memory_pss_bytes{$I3,job=\"live\",role=\"main\"}" \
	"$(q live.db "SELECT sum(pss_bytes) FROM proc WHERE $LAST AND pid IN (SELECT pid FROM steps)")"
poll_near "sum(feedscope_job_memory_uss_bytes{$I3,job=\"live\"})" "$(q live.db "SELECT sum(uss_bytes) FROM proc WHERE $LAST")"
poll_near "sum(feedscope_job_memory_swap_bytes{$I3,job=\"live\"})" "$(q live.db "SELECT sum(swap_bytes) FROM proc WHERE $LAST")"
poll_gauge "feedscope_dev_shm_used_bytes{$I3,job=\"live\"}" "$(q live.db 'SELECT dev_shm_bytes FROM mem ORDER BY rowid DESC LIMIT 1')"
poll_gauge "feedscope_dev_shm_size_bytes{$I3,job=\"live\"}" "$(q live.db 'SELECT dev_shm_size_bytes FROM mem ORDER BY rowid DESC LIMIT 1')"
CG="t = (SELECT max(t) FROM cgroup)"
poll_gauge "feedscope_cgroup_memory_limit_bytes{$I3,job=\"live\"}" "$(q live.db "SELECT max(mem_limit_bytes) FROM cgroup WHERE $CG")"
poll_gauge "feedscope_cgroup_memory_peak_bytes{$I3,job=\"live\"}" "$(q live.db "SELECT max(mem_peak_bytes) FROM cgroup WHERE $CG")"
echo "memory: pss $(pq "sum(feedscope_job_memory_pss_bytes{$I3})") (run file $(q live.db "SELECT sum(pss_bytes) FROM proc WHERE $LAST"))," \
	"shm $(pq "feedscope_dev_shm_used_bytes{$I3}") of $(pq "feedscope_dev_shm_size_bytes{$I3}"), cgroup peak $(pq "feedscope_cgroup_memory_peak_bytes{$I3}")"
poll_eq "count(feedscope_verdict_info{$I3,job=\"live\"})" 1
# the same verdict as report over the same window (the last 60 s: all of it)
want=$("$F" report --format json live.db | $PY -c 'import json,sys; print(json.load(sys.stdin)["verdict"]["primary"])' 2>/dev/null || true)
[ -n "$want" ] || fail "report --format json gave no verdict"
poll_eq "count(feedscope_verdict_info{$I3,primary=\"$want\"})" 1
curl -s -H 'Accept: application/openmetrics-text' "http://127.0.0.1:$P3/metrics" >page.om
tail -1 page.om | grep -qx '# EOF' || fail "OpenMetrics page does not end with # EOF"
curl -s "http://127.0.0.1:$P3/metrics" >page.txt
grep -q '^# TYPE feedscope_steps_total counter$' page.txt || fail "text page: TYPE line"

# the port is taken: `exporter` fails (1), `run --export` records without it
expect_status 1 "$F" exporter --listen "127.0.0.1:$P3" live.db 2>err
grep -q "in use" err || fail "port in use not said: $(cat err)"
expect_status 0 "$F" run -q -o inuse.db --no-hook --export "127.0.0.1:$P3" -- true 2>err
grep -q "recording without the exporter" err || fail "run --export on a taken port: $(cat err)"
case "$(q inuse.db "SELECT value FROM meta WHERE key='exporter'")" in
unavailable:*in\ use*) ;;
*) fail "meta exporter: $(q inuse.db "SELECT value FROM meta WHERE key='exporter'")" ;;
esac

# --- the Grafana dashboard: valid JSON, and every metric it queries is one
# the exporter emits
$PY - "$FEEDSCOPE_TOP/examples/grafana-feedscope.json" page.txt <<'PYEOF' || fail "grafana dashboard"
import json, re, sys
d = json.load(open(sys.argv[1]))
names = set()
for line in open(sys.argv[2]):
    m = re.match(r"# TYPE (\S+) ", line)
    if m:
        names.add(m.group(1))
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
assert len(exprs) >= 6, exprs
used = set()
for e in exprs:
    for n in re.findall(r"\bfeedscope_[a-z_]+", e):
        assert n in names, "%s: not a metric of the exporter" % n
        used.add(n)
for want in ("feedscope_input_wait_seconds_total", "feedscope_steps_total", "feedscope_loader_thread_seconds_total",
             "feedscope_io_call_seconds_total", "feedscope_accelerator_idle_ratio", "feedscope_verdict_info"):
    assert want in used, "no panel for " + want
print("grafana: %d panels, %d queries" % (len(d["panels"]), len(exprs)))
PYEOF

kill -TERM $exppid
wait $exppid || fail "exporter exited $? on SIGTERM: $(cat exp.err)"

# -f: the file being written is NAME.partial-PID; that one is served, as
# job NAME, not the old NAME it will replace
"$F" run -q -f -o live.db --no-hook --export "127.0.0.1:$P3" -- $PY job.py 7 stop2 2>run2.err &
run2=$!
bgpids+=($run2)
steps=
for _ in $(seq 60); do
	steps=$(curl -s "http://127.0.0.1:$P3/metrics" | awk '/^feedscope_steps_total\{job="live",/ { n += $2 } END { print n + 0 }')
	[ "$steps" = 7 ] && break
	sleep 0.5
done
[ "$steps" = 7 ] || fail "run -f --export served $steps steps, the new run has 7"
touch stop2
wait $run2 || fail "feedscope run -f exited $?: $(cat run2.err)"
[ "$(q live.db 'SELECT count(*) FROM steps')" = 7 ] || fail "-f: the new run file was not put in place"
exit 0
