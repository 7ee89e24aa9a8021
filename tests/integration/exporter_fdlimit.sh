# The exporter out of descriptors (issue 38, case 6; docs/exporter.md,
# "HTTP"): started under `ulimit -n 32` with a run file to serve, then 200
# connections opened and held by one client. The connections it takes are
# bounded by the descriptors it has (the rest wait in the backlog), so it
# never spins on accept: its CPU over 4 s stays under a quarter of a core
# (before this change the server thread spun at 100% of a core on accept
# failing with EMFILE); it still reads the run file (file_up 1) once the
# connections go, and answers.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/lib/exporter_attack.sh"
mkdir runs
base_run runs/a.db
sqlite3 runs/a.db "DELETE FROM meta WHERE key = 'end_unix'" # recording: read every second
P=$(free_port)
(ulimit -n 32 && exec "$F" exporter --listen "127.0.0.1:$P" --runs-dir runs 2>exp.err) &
exppid=$!
bgpids+=($exppid)
wait_figure "$P" feedscope_run_file_up 'job="a"' 1
$PY - "$P" "$exppid" <<'PYEOF' || fail "out of descriptors"
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
hz = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz
held = []
for _ in range(200):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    held.append(s)
time.sleep(1)
c0 = cpu()
time.sleep(4)
used = (cpu() - c0) / 4
print("exporter CPU with 200 connections held under ulimit -n 32: %.1f%% of a core" % (used * 100))
for s in held:
    s.close()
assert used < 0.25, "the exporter spins: %.0f%% of a core" % (used * 100)
PYEOF
wait_figure "$P" feedscope_run_file_up 'job="a"' 1 100
curl -s -m 10 "http://127.0.0.1:$P/metrics" | grep -q '^feedscope_recorded_seconds{job="a"}' || fail "no page after the connections went"
exit 0
