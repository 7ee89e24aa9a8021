# The tracer's regions never change the job's fate, and the recorder
# survives anything the job does to them. Each case runs feedscope in a
# mount namespace of its own with a small tmpfs on /dev/shm (where the
# region directory is made), so that filling it touches nothing else:
#  - a full /dev/shm: every process of a job that forks 200 of them runs
#    untraced, its output and exit status unchanged, each listed in meta
#    trace.untraced.<pid> with the reason;
#  - /dev/shm filling up under a traced process: the records it can no
#    longer back go to "(other files)" (trace.blind.<pid>), no fault;
#  - 300 short processes: their regions are read and freed during the run
#    (the directory and /dev/shm stay small), and every one's files row is
#    in the run file;
#  - a region truncated under the recorder, and region names replaced by
#    junk: the recorder finishes and writes a valid run file;
#  - a process without the tracer, and one whose tracer made no region:
#    both listed untraced, with the reason.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
[ -f "$FEEDSCOPE_BUILD/libfeedscope-trace.so" ] || fail "no tracer library in $FEEDSCOPE_BUILD"
need_root
need_cmd unshare
need_cmd truncate

# in_ns SIZE CMD... : CMD with a fresh SIZE tmpfs on /dev/shm (private to it)
in_ns() {
	local size_=$1
	shift
	in_private_ns bash -c '. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
		mount -t tmpfs -o "size=$0" feedscope-test /dev/shm || exit 90
		check_private /dev/shm || { umount /dev/shm; echo "the test tmpfs on /dev/shm is not private" >&2; exit 91; }
		exec "$@"' "$size_" "$@"
}
valid() { # DB : a complete run file
	[ "$(q "$1" 'PRAGMA integrity_check')" = ok ] || fail "$1 is not a valid run file"
	[ -n "$(q "$1" "SELECT value FROM meta WHERE key = 'duration_s'")" ] || fail "$1 has no end meta"
}

head -c 5000 /dev/urandom >in.bin
mkdir d
for i in $(seq 30); do echo "line $i" >"d/f$i"; done

# 1. A full /dev/shm.
# (every dd here is bounded, and runs only inside in_ns)
cat >full.sh <<'EOF'
dd if=/dev/zero of=/dev/shm/fill bs=4k count=1024 status=none 2>/dev/null
for i in $(seq 200); do cat in.bin; done | sha256sum
echo done
exit 3
EOF
expect_status 3 in_ns 2m sh full.sh >plain.out 2>plain.err
expect_status 3 in_ns 2m "$FEEDSCOPE" run -q -o full.db -- sh full.sh >full.out 2>full.err
cmp -s plain.out full.out || fail "the job's output changed on a full /dev/shm: $(cat full.out)"
[ ! -s full.err ] || fail "stderr on a full /dev/shm: $(cat full.err)"
valid full.db
[ "$(q full.db "SELECT value FROM meta WHERE key = 'exit_code'")" = 3 ] || fail "exit_code meta"
n=$(q full.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.untraced.%' AND value LIKE '%no room for its region%No space left on device%'")
all=$(q full.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.untraced.%'")
# How many get in depends on how soon the recorder frees an exited process's
# region (a freed page lets the next one in): some do, most need not. Every
# process listed untraced must be there for want of room, and some must be.
[ "$n" -ge 1 ] || fail "no process listed untraced for want of room: $(q full.db "SELECT * FROM meta WHERE key LIKE 'trace.%' LIMIT 5")"
[ "$n" = "$all" ] || fail "$all processes listed untraced, $n of them for want of room: $(q full.db "SELECT * FROM meta WHERE key LIKE 'trace.untraced.%' AND value NOT LIKE '%no room%' LIMIT 5")"
seen=$(q full.db "SELECT sum(value) FROM meta WHERE key IN ('trace.untraced', 'trace.regions')")
[ "$seen" -ge 203 ] || fail "$seen processes traced or listed untraced, expected every one of 200 cats, dd, sh and sha256sum"
[ "$(q full.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.untraced.%' AND value LIKE 'cat: %'")" -ge 1 ] ||
	fail "untraced processes are not named"

# 2. /dev/shm fills up under a traced process: the shell opens 30 files
# after dd took the last page.
cat >fills.sh <<'EOF'
dd if=/dev/zero of=/dev/shm/fill bs=4k count=1024 status=none 2>/dev/null
for f in d/*; do read -r line <"$f"; echo "$line"; done
EOF
expect_status 0 in_ns 1m sh fills.sh >plain2.out
expect_status 0 in_ns 1m "$FEEDSCOPE" run -q -o fills.db -- sh fills.sh >fills.out
cmp -s plain2.out fills.out || fail "the job's output changed when /dev/shm filled up"
valid fills.db
q fills.db "SELECT value FROM meta WHERE key LIKE 'trace.blind.%'" | grep -q 'no room for more file records' ||
	fail "no trace.blind note: $(q fills.db "SELECT * FROM meta WHERE key LIKE 'trace.%'")"
[ "$(q fills.db "SELECT count(*) FROM files WHERE path LIKE '$TEST_TMP/d/%'")" -lt 30 ] || fail "all 30 records were backed"

# 3. 300 short processes: regions freed during the run, files rows kept.
cat >many.sh <<'EOF'
for i in $(seq 300); do cat in.bin >/dev/null; done
sleep 0.5 # a few ticks: every exited process's region read and closed
echo "regions $(ls "$FEEDSCOPE_TRACE_DIR" | wc -l) used_kib $(df -k /dev/shm | awk 'NR == 2 { print $3 }')"
EOF
expect_status 0 in_ns 64m "$FEEDSCOPE" run -q -o many.db -- sh many.sh >many.out
read -r _ regions _ used <many.out
[ "$regions" -le 5 ] || fail "$regions region files still in the directory after 300 processes exited"
[ "$used" -le 1024 ] || fail "/dev/shm holds $used KiB after 300 processes exited"
valid many.db
[ "$(q many.db "SELECT count(*) || ' ' || sum(read_bytes) FROM files WHERE path = '$TEST_TMP/in.bin'")" = "300 1500000" ] ||
	fail "files rows of the 300 cats: $(q many.db "SELECT count(*), sum(read_bytes) FROM files WHERE path = '$TEST_TMP/in.bin'")"
[ "$(q many.db "SELECT value FROM meta WHERE key = 'trace.regions'")" -ge 301 ] || fail "trace.regions"
[ -z "$(q many.db "SELECT value FROM meta WHERE key LIKE 'trace.untraced.%'")" ] ||
	fail "traced processes called untraced: $(q many.db "SELECT * FROM meta WHERE key LIKE 'trace.untraced.%' LIMIT 3")"

# 4. The job truncates its region under the recorder (through
# /proc/PID/map_files: the recorder has taken its name away), then execs.
cat >trunc.sh <<'EOF'
sleep 0.5
m=$(grep -F "$FEEDSCOPE_TRACE_DIR/" /proc/$$/maps | head -1)
/usr/bin/truncate -s 0 "/proc/$$/map_files/${m%% *}"
exec /bin/sleep 0.3
EOF
expect_status 0 in_ns 16m "$FEEDSCOPE" run -q -o trunc.db -- sh trunc.sh
valid trunc.db
[ "$(q trunc.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.damaged.%' AND value LIKE '%truncated%'")" = 1 ] ||
	fail "no trace.damaged note: $(q trunc.db "SELECT * FROM meta WHERE key LIKE 'trace.%'")"

# 5. Junk under region names: a region replaced, an earlier image's region
# truncated by name, a "region" with the right magic but no body.
cat >junk.sh <<'EOF'
printf junk >"$FEEDSCOPE_TRACE_DIR/j" && mv -f "$FEEDSCOPE_TRACE_DIR/j" "$FEEDSCOPE_TRACE_DIR/$$"
printf 'FSTR\002\000\000\000' >"$FEEDSCOPE_TRACE_DIR/999999"
sh -c 'truncate -s 0 "$FEEDSCOPE_TRACE_DIR/$$"; exec sleep 0.3'
echo ok
EOF
expect_status 0 in_ns 16m "$FEEDSCOPE" run -q -o junk.db -- sh junk.sh >junk.out
[ "$(cat junk.out)" = ok ] || fail "junk job output: $(cat junk.out)"
valid junk.db

# 6. Processes the recorder finds with no region: one without the tracer,
# one whose tracer could make none (and could leave no marker either).
cat >none.sh <<'EOF'
env -u LD_PRELOAD sleep 0.8 &
FEEDSCOPE_TRACE_DIR=/nonexistent sleep 1 &
wait
EOF
expect_status 0 in_ns 16m "$FEEDSCOPE" run -q -o none.db -- sh none.sh
valid none.db
[ "$(q none.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.untraced.%' AND value LIKE '%sleep: the tracer is not loaded%'")" = 1 ] ||
	fail "the process without LD_PRELOAD: $(q none.db "SELECT * FROM meta WHERE key LIKE 'trace.untraced%'")"
[ "$(q none.db "SELECT count(*) FROM meta WHERE key LIKE 'trace.untraced.%' AND value LIKE '%sleep: the tracer is loaded but has no region%'")" = 1 ] ||
	fail "the process with no region: $(q none.db "SELECT * FROM meta WHERE key LIKE 'trace.untraced%'")"
[ "$(q none.db "SELECT value FROM meta WHERE key = 'trace.untraced'")" = 2 ] || fail "trace.untraced count"
exit 0
