# The job's exit status is feedscope's; its stdio is its own; signals sent to
# feedscope reach the job.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
set -m # background jobs get default SIGINT handling, as in an interactive shell

expect_status 0 "$FEEDSCOPE" run -q -o a.db -- true
expect_status 1 "$FEEDSCOPE" run -q -f -o a.db -- false
expect_status 42 "$FEEDSCOPE" run -q -f -o a.db -- sh -c 'exit 42'
[ "$(q a.db "SELECT value FROM meta WHERE key='exit_code'")" = 42 ] || fail "exit_code meta"
expect_status 143 "$FEEDSCOPE" run -q -f -o a.db -- sh -c 'kill -TERM $$'
[ "$(q a.db "SELECT value FROM meta WHERE key='term_signal'")" = 15 ] || fail "term_signal meta"
expect_status 137 "$FEEDSCOPE" run -q -f -o a.db -- sh -c 'kill -KILL $$'

# stdin, stdout and stderr are the job's: nothing of feedscope's on stdout.
out=$(printf 'hello\nworld\n' | "$FEEDSCOPE" run -f -o a.db -- cat 2>err.txt)
[ "$out" = "$(printf 'hello\nworld')" ] || fail "stdout was '$out'"
grep -q 'feedscope: recorded' err.txt || fail "no summary on stderr"
"$FEEDSCOPE" run -q -f -o a.db -- sh -c 'echo to-stderr >&2' 2>err.txt >/dev/null
[ "$(cat err.txt)" = to-stderr ] || fail "stderr was '$(cat err.txt)'"

# A signal sent to feedscope alone is forwarded; feedscope then reports the
# job's death by that signal (SIGUSR1: Slurm's --signal, Lightning's requeue;
# it used to kill feedscope instead, leaving the job unrecorded).
for sig in TERM HUP INT USR1 USR2 ALRM; do
	rm -f s.db
	# (a shell started with SIGINT ignored cannot restore it, and the job
	# would inherit it: env restores the default for the job to receive)
	env --default-signal=INT "$FEEDSCOPE" run -q -o s.db -- sleep 30 &
	fs=$!
	for _ in $(seq 50); do
		[ "$(q s.db "SELECT count(*) FROM ticks" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
		sleep 0.1
	done
	job=$(q s.db "SELECT value FROM meta WHERE key='pid'")
	[ -n "$job" ] || fail "no job pid in meta"
	# the job is the command once it has exec'd it: a signal forwarded
	# between the fork and the exec (the child's set-up) is the child's,
	# not the command's (the first tick can come before the exec)
	for _ in $(seq 50); do
		[ "$(cat /proc/"$job"/comm 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	kill -"$sig" $fs
	wait $fs; rc=$?
	want=$((128 + $(kill -l "$sig")))
	[ $rc -eq $want ] || fail "SIG$sig: feedscope exited $rc, expected $want"
	kill -0 "$job" 2>/dev/null && fail "SIG$sig: job $job still alive"
	[ "$(q s.db "SELECT value FROM meta WHERE key='exit_code'")" = "$want" ] || fail "SIG$sig: exit_code meta"
done

# A job that ignores the signal keeps running, and is still recorded.
"$FEEDSCOPE" run -q -f -o s.db -- sh -c 'trap "" TERM; sleep 1; exit 7' &
fs=$!
sleep 0.5
kill -TERM $fs
wait $fs; rc=$?
[ $rc -eq 7 ] || fail "job ignoring SIGTERM: feedscope exited $rc, expected 7"
exit 0
