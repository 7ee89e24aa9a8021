# Every signal a launcher may send to feedscope reaches the job exactly once
# (the job counts them with handlers), feedscope keeps recording and exits
# with the job's status; a SIGINT sent to feedscope's whole process group
# reaches the job once (the job has a group of its own); SIGKILL sent to
# that group kills feedscope only.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
need_cmd setsid
cc -O2 -o sigcount "$FEEDSCOPE_TOP/tests/markers/sigcount.c" || fail "build sigcount"
trap 'touch "$TEST_TMP/stop"' EXIT # a failed check leaves no job behind

# wait_for CMD... : up to 10 s for CMD to succeed
wait_for() {
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
total() { sed -n 's/^total=//p' counts 2>/dev/null; }
count_is() { grep -qx "$1=$2" counts; }
total_is() { [ "$(total)" = "$1" ]; }
total_ge() { [ "$(total)" -ge "$1" ] 2>/dev/null; }
pgid_of() { ps -o pgid= -p "$1" | tr -d ' '; }
alive() { [ -e /proc/"$1" ] && ! grep -q '^[0-9]* (.*) Z' /proc/"$1"/stat 2>/dev/null; }

sigs="INT TERM HUP QUIT USR1 USR2 ALRM PROF VTALRM WINCH CONT TSTP TTIN TTOU"
rm -f ready counts stop
"$FEEDSCOPE" run -q -o s.db -- ./sigcount ready counts stop &
fs=$!
wait_for test -e ready || fail "the job did not start"
job=$(ps -o pid= --ppid $fs | tr -d ' ')
[ -n "$job" ] || fail "no job under feedscope $fs"
[ "$(pgid_of "$job")" = "$job" ] || fail "the job is not in a process group of its own"
[ "$(pgid_of "$job")" != "$(pgid_of $fs)" ] || fail "the job shares feedscope's group"
n=0
for sig in $sigs; do
	kill -"$sig" $fs || fail "feedscope is gone before SIG$sig"
	n=$((n + 1))
	# the job rewrites its counts after each signal; wait until this one is in
	wait_for total_is $n || fail "SIG$sig: the job counted $(total) signals, expected $n: $(tr '\n' ' ' <counts)"
	count_is "$sig" 1 || fail "SIG$sig: $(grep "^$sig=" counts) (expected 1)"
done
kill -0 $fs 2>/dev/null || fail "feedscope did not survive the signals"
touch stop
wait $fs; rc=$?
[ $rc -eq 3 ] || fail "feedscope exited $rc, expected the job's 3"
[ "$(q s.db "SELECT value FROM meta WHERE key='exit_code'")" = 3 ] || fail "exit_code meta"
[ "$(q s.db "SELECT count(*) FROM ticks")" -gt 1 ] || fail "no ticks recorded"
for sig in $sigs; do
	count_is "$sig" 1 || fail "at the end: $(grep "^$sig=" counts) (expected 1)"
done

# A SIGINT to the whole process group of feedscope (started under setsid, so
# feedscope leads its own group), sent twice: the job counts 2, not 4.
rm -f ready counts stop s.db
setsid "$FEEDSCOPE" run -q -o s.db -- ./sigcount ready counts stop &
wait_for test -e ready || fail "setsid: the job did not start"
job=$(q s.db "SELECT value FROM meta WHERE key='pid'")
fs=$(ps -o ppid= -p "$job" | tr -d ' ')
pg=$(pgid_of "$fs")
[ -n "$pg" ] && [ "$pg" != "$(pgid_of $$)" ] || fail "feedscope is not in a group of its own"
kill -INT -- -"$pg"
wait_for total_is 1 || fail "group SIGINT: the job counted $(total)"
kill -INT -- -"$pg"
wait_for total_ge 2 || fail "group SIGINT: the job counted $(total)"
# feedscope forwards in the order it reads: once the job has this USR2, any
# copy of the SIGINTs that feedscope would have forwarded has come too
kill -USR2 "$fs"
wait_for count_is USR2 1 || fail "SIGUSR2 after the group SIGINTs did not come"
count_is INT 2 || fail "group-wide SIGINT twice: the job got $(grep '^INT=' counts) (expected 2)"
touch stop
wait_for eval "! alive $fs" || fail "feedscope did not exit"
[ "$(q s.db "SELECT value FROM meta WHERE key='exit_code'")" = 3 ] || fail "setsid: exit_code meta"

# SIGKILL to feedscope's whole group kills feedscope only: a recorder's
# death never takes the job with it (steps_transparency.sh, kill9.sh); the
# job's own group is what to kill.
rm -f s.db
setsid "$FEEDSCOPE" run -q -o s.db -- sh -c 'sleep 60 & wait' &
has_pid() { [ -n "$(q s.db "SELECT value FROM meta WHERE key='pid'" 2>/dev/null)" ]; }
wait_for has_pid || fail "kill -9: no job"
job=$(q s.db "SELECT value FROM meta WHERE key='pid'")
fs=$(ps -o ppid= -p "$job" | tr -d ' ')
kill -KILL -- -"$(pgid_of "$fs")"
wait_for eval "! alive $fs" || fail "kill -9 -PGID: feedscope still alive"
alive "$job" || fail "kill -9 of feedscope's group killed the job"
kill -KILL -- -"$job"
wait_for eval "! alive $job" || fail "kill -9 of the job's group left it running"
exit 0
