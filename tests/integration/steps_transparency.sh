# The zero-code hook changes nothing the job can see: the same PyTorch job
# prints the same stdout with and without feedscope, with spawned and forked
# workers; a sitecustomize of the user's (or Debian's) still runs; DataLoader
# subclasses work (the one whose __iter__ bypasses DataLoader.__iter__ is not
# timed and is named once on stderr); an exception in a sample reaches the job
# unchanged; and feedscope killed (SIGKILL) mid-run leaves the job to finish
# with the same output.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
. "$FEEDSCOPE_TOP/tests/python/steps_lib.sh"
need_torch
need_receiver

plain() { # NAME ARGS... : the job without feedscope
	local name=$1
	shift
	env -u FEEDSCOPE_MARKERS -u FEEDSCOPE_HOOK "$PY" "$JOB" "$@" >"$name.out" 2>"$name.err"
}
same_stdout() { # A B
	diff -u "$1.out" "$2.out" >/dev/null || { diff -u "$1.out" "$2.out" | head -20; fail "stdout of $2 differs from $1"; }
}
no_hook_noise() { # NAME : no warning, no traceback on the job's stderr
	! grep -E 'feedscope: .*(hook|DataLoader)|Traceback' "$1.err" || fail "$1: unexpected stderr"
}

FAST=(--batch 4 --item-ms 2 --compute-ms 2 --steps 10 --epochs 2)

# 1. Same stdout with and without feedscope; forked and spawned workers.
for ctx in fork spawn; do
	plain plain_$ctx --workers 2 --context $ctx "${FAST[@]}" || fail "plain job ($ctx) failed"
	record fs_$ctx --workers 2 --context $ctx "${FAST[@]}" || fail "recorded job ($ctx) failed"
	same_stdout plain_$ctx fs_$ctx
	no_hook_noise fs_$ctx
	[ "$(steps_of fs_$ctx SleepyDataset)" -eq 20 ] || fail "fs_$ctx: the hook did not time the loader"
done
grep -q '^done: 20 steps$' plain_fork.out || fail "the job did not run"

# 2. Debian's sitecustomize (/usr/lib/python3.X/sitecustomize.py, or whichever
#    the interpreter has) still runs: the job prints the file of the module
#    `sitecustomize`, the same with and without feedscope (compared above).
deb=$("$PY" -c 'import sys; print("/usr/lib/python%d.%d/sitecustomize.py" % sys.version_info[:2])')
if [ -e "$deb" ]; then
	grep -qx "sitecustomize: $deb" plain_fork.out || fail "without feedscope: $(grep sitecustomize: plain_fork.out)"
	grep -qx "sitecustomize: $deb" fs_fork.out || fail "Debian's sitecustomize did not run: $(grep sitecustomize: fs_fork.out)"
fi

# 3. A user's own sitecustomize on PYTHONPATH: it and the hook both run.
mkdir -p usersite
cat >usersite/sitecustomize.py <<'PY'
import builtins
builtins.USER_SITECUSTOMIZE_MARK = "user-site"
print("user sitecustomize ran")
PY
PYTHONPATH=$PWD/usersite plain plain_user --workers 0 "${FAST[@]}" || fail "plain job (user site) failed"
PYTHONPATH=$PWD/usersite record fs_user --workers 0 "${FAST[@]}" || fail "recorded job (user site) failed"
same_stdout plain_user fs_user
grep -q '^user mark: user-site$' fs_user.out || fail "the user's sitecustomize did not run"
grep -q "^sitecustomize: $PWD/usersite/sitecustomize.py\$" fs_user.out || fail "sitecustomize is not the user's"
[ "$(steps_of fs_user SleepyDataset)" -eq 20 ] || fail "fs_user: the hook did not time the loader"

# 4. DataLoader subclasses: calling DataLoader.__iter__ (directly or from a
#    generator) is timed; bypassing it is not, and is said once.
for v in super gen override; do
	plain plain_$v --workers 0 --variant $v "${FAST[@]}" || fail "plain job ($v) failed"
	record fs_$v --workers 0 --variant $v "${FAST[@]}" || fail "recorded job ($v) failed"
	same_stdout plain_$v fs_$v
done
no_hook_noise fs_super
no_hook_noise fs_gen
[ "$(steps_of fs_super SleepyDataset)" -eq 20 ] || fail "a subclass calling super() is not timed"
[ "$(steps_of fs_gen SleepyDataset)" -eq 20 ] || fail "a generator subclass calling super() is not timed"
[ "$(steps_of fs_override SleepyDataset)" -eq 0 ] || fail "a bypassing subclass has steps"
[ "$(grep -c 'OwnLoader.__iter__ does not call DataLoader.__iter__' fs_override.err)" -eq 1 ] ||
	fail "expected one warning about OwnLoader: $(cat fs_override.err)"

# 5. An exception from a sample reaches the job as it would without feedscope.
plain plain_fail --workers 0 --fail-at 5 "${FAST[@]}"
rc_plain=$?
record fs_fail --workers 0 --fail-at 5 "${FAST[@]}"
rc_fs=$?
[ $rc_plain -eq 1 ] && [ $rc_fs -eq 1 ] || fail "exit status $rc_fs under feedscope, $rc_plain without (want 1)"
same_stdout plain_fail fs_fail
[ "$(tail -1 plain_fail.err)" = "$(tail -1 fs_fail.err)" ] ||
	fail "last stderr line: '$(tail -1 fs_fail.err)', without feedscope '$(tail -1 plain_fail.err)'"

# 6. feedscope killed mid-run (the channel closes under the job): the job
#    goes on, starts new workers, and prints what it prints without feedscope.
LONG=(--workers 2 --context fork --batch 2 --item-ms 2 --compute-ms 5 --steps 10 --epochs 3)
plain plain_long "${LONG[@]}" || fail "plain long job failed"
if [ "$MODE" = feedscope ]; then
	"$FEEDSCOPE" run -q --pytorch -o kill.db -- "$PY" "$JOB" "${LONG[@]}" --touch-at 12 touched \
		>kill.out 2>kill.err &
	fs=$!
	for _ in $(seq 600); do [ -e touched ] && break; sleep 0.1; done
	[ -e touched ] || fail "the job never reached step 12"
	job=$(q kill.db "SELECT value FROM meta WHERE key='pid'")
	kill -KILL $fs
	wait $fs 2>/dev/null
	[ -n "$job" ] || fail "no job pid in kill.db"
	for _ in $(seq 600); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$job" 2>/dev/null || fail "the job is still running a minute later"
else
	"$PY" -S "$PYTESTS/fsrecv.py" --kill-after-steps 12 --out kill.rec -- "$PY" "$JOB" "${LONG[@]}" \
		>kill.out 2>kill.err || fail "the job failed after the channel closed"
	[ "$(grep -c '^S1 ' kill.rec)" -le 12 ] || fail "records after the channel closed"
fi
same_stdout plain_long kill
grep -q '^done: 30 steps$' kill.out || fail "the job did not finish"
no_hook_noise kill
exit 0
