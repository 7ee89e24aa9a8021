# feedscope report: the checkpoint / host-I/O bucket (docs/verdicts.md) is
# the union of checkpoint phases and the trainer's main-thread write + sync
# time on files (io_classes), each tick's time s booked as (t - s, t].
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd /usr/bin/python3
need_cmd sqlite3
"$FEEDSCOPE_BUILD/tests/synth_run" s.db 60 >/dev/null || fail "synth_run"
pid=$(q s.db "SELECT value FROM meta WHERE key = 'pid'")
[ -n "$pid" ] || fail "synth_run wrote no meta pid"

# bucket EXPECTED_CHECKPOINT_S EXPECTED_HOST_IO_S EXPECTED_PHASE_S: the report's figures
bucket() {
	"$FEEDSCOPE" report --format json s.db >r.json || fail "report"
	/usr/bin/python3 - "$@" <<'PY' || fail "bucket: wanted checkpoint_s=$1 host_io_s=$2 checkpoint_phase_s=$3, got $(cat got.txt)"
import json, sys
m = json.load(open("r.json"))["metrics"]
got = [m.get("checkpoint_s"), m.get("host_io_s"), m.get("checkpoint_phase_s")]
open("got.txt", "w").write(" ".join(map(str, got)))
want = [float(x) if x != "null" else None for x in sys.argv[1:]]
ok = all((w is None and g is None) or (w is not None and g is not None and abs(g - w) < 1e-6) for g, w in zip(got, want))
sys.exit(0 if ok else 1)
PY
}
ins() { sqlite3 s.db "$1" || fail "sqlite3: $1"; }
io_row() { # t thread write_s sync_s
	ins "INSERT INTO io_classes (t, pid, class, thread, read_s, read_bytes, write_s, write_bytes, sync_s, meta_s, calls)
	     VALUES ($1, $pid, 'file', '$2', 0, 0, $3, 1048576, $4, 0, 2)"
}

bucket 0 0 0                         # nothing written
io_row 12.0 main 0.05 1.95           # a 2 s write + fsync ending at t = 12
io_row 30.0 main 0 1.0
bucket 3 3 0
ins "INSERT INTO phases (t_start, t_end, pid, name) VALUES (10.0, 12.0, $pid, 'checkpoint')"
bucket 3 3 2                         # the phase holds the first: not counted twice
ins "INSERT INTO phases (t_start, t_end, pid, name) VALUES (40.0, 41.0, $pid, 'checkpoint')"
bucket 4 3 3                         # a phase without tracer writes counts by itself
io_row 50.0 other 0 5.0              # a background thread's checkpoint: not the loop's time
bucket 4 3 3
ins "INSERT INTO io_classes (t, pid, class, thread, read_s, read_bytes, write_s, write_bytes, sync_s, meta_s, calls)
     VALUES (55.0, $pid, 'socket', 'main', 0, 0, 3.0, 100, 0, 0, 1)"
bucket 4 3 3                         # socket writes are not host I/O on files
ins "DROP TABLE io_classes"
bucket 3 null 3                      # an older run file: the phases alone
