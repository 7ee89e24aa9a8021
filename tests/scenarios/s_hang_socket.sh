# hang_socket: after 30 good steps a DataLoader worker connects to a local
# TCP server (hangserver.py, started here) that accepts, reads the request
# and answers nothing, and blocks in recv; the server closes the connection
# 15 s later. Expected: the stall found within its bound, naming the worker
# in recvfrom on tcp 127.0.0.1:PORT, with its Python stack (hook on).
. "$FS_TOP/tests/scenarios/lib.sh"
. "$FS_TOP/tests/scenarios/hanglib.sh"
twin
mkdir -p "$S/job"
"$PY" "$SCEN_DIR/hangserver.py" "$S/job/port" "$HANG_S" >"$S/server.log" 2>&1 &
ledger pid $!
for _ in $(seq 50); do [ -s "$S/job/port" ] && break; sleep 0.1; done
[ -s "$S/job/port" ] || die "hangserver.py did not start"
hang_run socket --port "$(cat "$S/job/port")"
hang_check socket
