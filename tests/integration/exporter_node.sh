# `feedscope exporter` without run files (docs/exporter.md, "The machine"
# and "The runs directory"), scraped by a real Prometheus (Debian's):
#  1. the machine's figures against /proc: MemTotal and the CPUs online
#     exactly; counters bracketed by the kernel's own (a sample known to
#     fall between two reads of /proc: feedscope_node_samples_total moved by
#     2 after the first read), on a loop device of the test's read with
#     O_DIRECT (its read bytes and reads exactly) and on lo while 8 MiB
#     cross it; counters that never reset in Prometheus's view;
#  2. the runs directory, missing when the exporter starts (said once):
#     a run recorded into it with `run --to-runs-dir` is served live, then
#     finished (and its file is folded back into one file: no -wal left by
#     the exporter's reads); a finished run file copied in appears, removed
#     disappears; a *.db that is no run file is said once and not served;
#  3. the usage errors, before anything is served or recorded.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_root # the loop device
need_cmd curl
need_cmd sqlite3
need_cmd losetup
PY=/usr/bin/python3
[ -x "$PY" ] || skip "needs /usr/bin/python3"
PROM=$(command -v prometheus || true)
[ -n "$PROM" ] || skip "needs prometheus (Debian's package; scripts/deps.sh test installs it)"
F=$FEEDSCOPE
# run --to-runs-dir and the exporter's default runs directory: here, not /var/lib/feedscope
export FEEDSCOPE_STATE_DIR=$TEST_TMP/state
RUNS=$FEEDSCOPE_STATE_DIR/runs
bgpids=()
dev=
cleanup() {
	touch stop
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -f loop.img
}
trap cleanup EXIT

read -r P1 P2 P3 < <($PY - <<'PYEOF'
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
PYEOF
)

# --- 3. usage errors: exit 2, nothing served, nothing recorded
touch afile
expect_status 2 "$F" exporter --runs-dir "" 2>err
expect_status 2 "$F" exporter --runs-dir afile 2>err
grep -q "not a directory" err || fail "--runs-dir on a file: $(cat err)"
expect_status 2 "$F" exporter --runs-dir "$RUNS" x.db 2>err
grep -q "not both" err || fail "--runs-dir with a run file: $(cat err)"
expect_status 2 "$F" exporter --listen nope 2>/dev/null
expect_status 2 "$F" run -q --to-runs-dir --output-dir out -- true 2>/dev/null
expect_status 2 "$F" run -q --to-runs-dir -o x.db -- true 2>/dev/null
expect_status 2 "$F" run -q --output-dir afile/sub -- true 2>err
grep -q "afile/sub" err || fail "--output-dir under a file: $(cat err)"
expect_status 2 "$F" run -q --output-dir "" -- true 2>/dev/null
[ ! -e "$FEEDSCOPE_STATE_DIR" ] && [ ! -e out ] && [ ! -e x.db ] || fail "a refused command made files: $(ls -R)"
# --output-dir makes the directory and puts the default name in it
expect_status 0 "$F" run -q --output-dir made/here -- true
ls made/here/feedscope-*.db >/dev/null 2>&1 || fail "run --output-dir: $(ls -R made)"

# --- the exporter without run files; its runs directory is not there yet
echo junk >junk.db
"$F" exporter --listen "127.0.0.1:$P1" 2>exp.err &
exppid=$!
bgpids+=($exppid)
cat >prom.yml <<YEOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: node
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:$P1"]
YEOF
"$PROM" --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address="127.0.0.1:$P2" \
	--log.level=warn >prom.log 2>&1 &
bgpids+=($!)
. "$FEEDSCOPE_TOP/tests/lib/promql.sh"
for _ in $(seq 120); do
	curl -sf "http://127.0.0.1:$P2/-/ready" >/dev/null && break
	sleep 0.5
done
curl -sf "http://127.0.0.1:$P2/-/ready" >/dev/null || fail "prometheus did not become ready: $(tail -5 prom.log)"
poll_eq 'up{job="node"}' 1

# --- 1. the machine's figures
poll_eq feedscope_node_memory_total_bytes "$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)"
poll_eq feedscope_node_cpus "$(grep -c '^cpu[0-9]' /proc/stat)"
for s in cpu mem disk net; do poll_eq "feedscope_node_source_up{source=\"$s\"}" 1; done
[ -r /proc/pressure/io ] && poll_eq 'feedscope_node_source_up{source="psi"}' 1
busy=$(pq feedscope_node_cpu_busy_ratio)
awk -v b="$busy" 'BEGIN { exit !(b >= 0 && b <= 1) }' || fail "cpu busy ratio $busy"
sum=$(pq 'sum(feedscope_node_cpu_ratio)')
approx "$sum" 1 1e-9 || fail "the CPU modes add up to $sum"

# a loop device of our own: only this test reads it
dd if=/dev/zero of=loop.img bs=1M count=48 conv=fsync status=none || fail "cannot write loop.img"
dev=$(losetup -f --show --direct-io=on loop.img) || fail "losetup failed"
name=${dev#/dev/}
dd if="$dev" of=/dev/null bs=1M count=1 iflag=direct status=none # used: the disk source follows it
$PY - "$P1" "$name" >bracket.out <<'PYEOF' || fail "bracketed counters: $(cat bracket.out)"
import socket, subprocess, sys, threading, time, urllib.request
port, dev = int(sys.argv[1]), sys.argv[2]
def page():
    body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read().decode()
    return {l.rsplit(" ", 1)[0]: float(l.rsplit(" ", 1)[1]) for l in body.splitlines() if l and l[0] != "#"}
def after_two():
    """a page whose sample was read after this call began"""
    n0 = page()["feedscope_node_samples_total"]
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30:
        p = page()
        if p["feedscope_node_samples_total"] >= n0 + 2:
            return p
        time.sleep(0.2)
    sys.exit("the sampler did not move in 30 s")
def disk():
    for l in open("/proc/diskstats"):
        f = l.split()
        if f[2] == dev:
            return {"read_bytes": int(f[5]) * 512, "reads": int(f[3])}
    sys.exit("no %s in /proc/diskstats" % dev)
def lo():
    for l in open("/proc/net/dev"):
        if l.strip().startswith("lo:"):
            f = l.split(":", 1)[1].split()
            return {"rx": int(f[0]), "tx": int(f[8])}
def kernel():
    d, n = disk(), lo()
    return {'feedscope_node_disk_read_bytes_total{device="%s"}' % dev: d["read_bytes"],
            'feedscope_node_disk_reads_completed_total{device="%s"}' % dev: d["reads"],
            'feedscope_node_network_receive_bytes_total{device="lo"}': n["rx"],
            'feedscope_node_network_transmit_bytes_total{device="lo"}': n["tx"]}
def send_lo(nbytes):
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
    got = []
    def sink():
        c, _ = srv.accept(); n = 0
        while True:
            b = c.recv(1 << 16)
            if not b: break
            n += len(b)
        got.append(n); c.close()
    t = threading.Thread(target=sink); t.start()
    s = socket.create_connection(srv.getsockname()); s.sendall(b"x" * nbytes); s.close(); t.join()
    assert got == [nbytes], got

x0 = kernel(); p1 = after_two(); xb = kernel()
want = 32 << 20
subprocess.run(["dd", "if=/dev/" + dev, "of=/dev/null", "bs=1M", "count=32", "iflag=direct", "status=none"], check=True)
send_lo(8 << 20)
xc = kernel(); p2 = after_two(); x1 = kernel()
ok = True
for k in x0:
    if k not in p1 or k not in p2:
        print("no sample", k); ok = False; continue
    got = p2[k] - p1[k]
    lo_b, hi_b = xc[k] - xb[k], x1[k] - x0[k]
    print("%s: exporter +%d, kernel between +%d and +%d" % (k, got, lo_b, hi_b))
    ok &= lo_b <= got <= hi_b
rb = 'feedscope_node_disk_read_bytes_total{device="%s"}' % dev
ok &= p2[rb] - p1[rb] == want  # nobody else reads it: exactly dd's 32 MiB
ok &= p2['feedscope_node_network_receive_bytes_total{device="lo"}'] - p1['feedscope_node_network_receive_bytes_total{device="lo"}'] >= 8 << 20
print("final", int(p2[rb]))
sys.exit(0 if ok else 1)
PYEOF
cat bracket.out
final=$(sed -n 's/^final //p' bracket.out)
# the same value through Prometheus (nothing reads the loop device any more)
poll_eq "feedscope_node_disk_read_bytes_total{device=\"$name\"}" "$final"
poll_eq 'resets(feedscope_node_network_receive_bytes_total{device="lo"}[1m])' 0
poll_eq "resets(feedscope_node_disk_read_bytes_total{device=\"$name\"}[1m])" 0
losetup -d "$dev" && dev=

# --- 2. the runs directory
cat >job.py <<'PYEOF'
import os, sys, time
import feedscope
for b in feedscope.watch(range(int(sys.argv[1])), name="train"):
    time.sleep(0.01)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
PYEOF
"$F" run -q --to-runs-dir --no-hook -- $PY job.py 30 stop 2>run.err &
runpid=$!
bgpids+=($runpid)
db=
for _ in $(seq 60); do
	db=$(ls "$RUNS"/feedscope-*.db 2>/dev/null | head -1)
	[ -n "$db" ] && break
	sleep 0.25
done
[ -n "$db" ] || fail "run --to-runs-dir wrote nothing into $RUNS"
J=$(basename "$db" .db)
poll_eq "feedscope_recording{job=\"$J\"}" 1
poll_eq "sum(feedscope_steps_total{job=\"$J\",loader=\"train\"})" 30
cp junk.db "$RUNS/junk.db"
touch stop
wait $runpid || fail "feedscope run exited $?: $(cat run.err)"
grep -q "fold" run.err && fail "the run file was not folded back: $(cat run.err)"
[ ! -e "$db-wal" ] || fail "$db-wal left behind while the exporter served it"
poll_eq "feedscope_recording{job=\"$J\"}" 0
poll_eq "sum(feedscope_steps_total{job=\"$J\"})" "$(q "$db" 'SELECT count(*) FROM steps')"
cp "$db" "$RUNS/copied.db"
poll_eq 'sum(feedscope_steps_total{job="copied"})' 30
poll_eq 'feedscope_recording{job="copied"}' 0
# the runs directory by name, to a second exporter
"$F" exporter --listen "127.0.0.1:$P3" --runs-dir "$RUNS" 2>exp3.err &
bgpids+=($!)
for _ in $(seq 20); do
	curl -s "http://127.0.0.1:$P3/metrics" | grep -q "^feedscope_run_file_up{job=\"copied\"} 1" && break
	sleep 0.5
done
curl -s "http://127.0.0.1:$P3/metrics" | grep -q "^feedscope_run_file_up{job=\"copied\"} 1" ||
	fail "--runs-dir $RUNS: copied.db not served: $(cat exp3.err)"
rm "$RUNS/copied.db"
poll_eq 'count(feedscope_run_file_up{job="copied"})' none
curl -s "http://127.0.0.1:$P1/metrics" | grep -q 'job="copied"' && fail "copied.db removed, still served"
# junk.db is said once it has been refused for 5 s (looked at every second)
for _ in $(seq 40); do
	grep -q 'junk.db' exp.err && break
	sleep 0.5
done
sleep 2 # more scans: still said once
curl -s "http://127.0.0.1:$P1/metrics" | grep -q 'job="junk"' && fail "junk.db served"
[ "$(grep -c 'junk.db' exp.err)" = 1 ] || fail "junk.db not said once: $(cat exp.err)"
[ "$(grep -c 'No such file or directory' exp.err)" = 1 ] || fail "the missing runs directory not said once: $(cat exp.err)"
cat exp.err
kill -TERM $exppid
wait $exppid || fail "exporter exited $? on SIGTERM: $(cat exp.err)"
exit 0
