# feedscope in the foreground of a terminal (an interactive bash in tmux):
# the job gets the terminal; Ctrl-C, Ctrl-\ and Ctrl-Z reach it once; a job
# stopped by Ctrl-Z shows as stopped in the shell and `fg` brings it back,
# in the foreground, where it reads a line from the terminal.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
if ! command -v tmux >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] && apt-get install -y -qq tmux >/dev/null 2>&1
	command -v tmux >/dev/null 2>&1 || fail "needs tmux (apt-get install tmux)"
fi
cc -O2 -o sigcount "$FEEDSCOPE_TOP/tests/markers/sigcount.c" || fail "build sigcount"

T() { tmux -S "$TEST_TMP/tmux.sock" "$@"; } # a server of our own, its socket in $TEST_TMP
trap 'touch "$TEST_TMP/stop"; T kill-server 2>/dev/null' EXIT
T new-session -d -s t -x 150 -y 40 "env PS1='$ ' bash --norc --noprofile -i" || fail "tmux"
wait_for() {
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
type_line() { T send-keys -t t "$1" Enter; }
screen() { T capture-pane -p -t t; }
count_is() { grep -qx "$1=$2" counts 2>/dev/null; }
tty_of_pane() { T display -p -t t '#{pane_tty}'; }
fg_pgrp() { ps -o tpgid= -p "$(T display -p -t t '#{pane_pid}')" | tr -d ' '; }
state_of() { ps -o stat= -p "$1" | cut -c1; }

# Ctrl-C, Ctrl-\ and Ctrl-Z, each once; the job handles them and goes on.
type_line "cd '$TEST_TMP' && '$FEEDSCOPE' run -q -o t.db -- ./sigcount ready counts stop"
wait_for test -e ready || fail "the job did not start: $(screen)"
job=$(q t.db "SELECT value FROM meta WHERE key='pid'")
[ "$(fg_pgrp)" = "$job" ] || fail "the terminal's foreground group is $(fg_pgrp), not the job's ($job)"
T send-keys -t t C-c
wait_for count_is INT 1 || fail "Ctrl-C: $(grep INT= counts)"
T send-keys -t t 'C-\'
wait_for count_is QUIT 1 || fail "Ctrl-\\: $(grep QUIT= counts)"
T send-keys -t t C-z
wait_for count_is TSTP 1 || fail "Ctrl-Z: $(grep TSTP= counts)"
fs=$(ps -o ppid= -p "$job" | tr -d ' ')
kill -USR2 "$fs" # comes after any second copy of the keys above
wait_for count_is USR2 1 || fail "SIGUSR2 did not come"
for s in INT QUIT TSTP; do count_is $s 1 || fail "$s: $(grep "^$s=" counts) (expected 1)"; done
touch stop
wait_for eval '[ "$(q t.db "SELECT value FROM meta WHERE key='"'exit_code'"'" 2>/dev/null)" = 3 ]' ||
	fail "exit_code: $(q t.db "SELECT value FROM meta WHERE key='exit_code'")"
wait_for eval '[ "$(fg_pgrp)" = "$(T display -p -t t "#{pane_pid}")" ]' || fail "the shell did not get its terminal back"

# Ctrl-Z stops the job and feedscope; fg continues both, the job in the
# foreground, where it reads a line.
rm -f t.db line.txt
type_line "'$FEEDSCOPE' run -q -o t.db -- sh -c 'read line; echo \"got:\$line\" > line.txt'"
has_job() { [ -n "$(q t.db "SELECT value FROM meta WHERE key='pid'" 2>/dev/null)" ]; }
wait_for has_job || fail "no job: $(screen)"
job=$(q t.db "SELECT value FROM meta WHERE key='pid'")
fs=$(ps -o ppid= -p "$job" | tr -d ' ')
wait_for eval '[ "$(fg_pgrp)" = "$job" ]' || fail "the job did not get the terminal"
T send-keys -t t C-z
wait_for eval '[ "$(state_of $fs)" = T ] && [ "$(state_of $job)" = T ]' ||
	fail "Ctrl-Z: feedscope $(state_of $fs), job $(state_of $job)"
wait_for eval 'screen | grep -q Stopped' || fail "the shell does not show the job stopped: $(screen)"
type_line fg
wait_for eval '[ "$(state_of $job)" = S ] && [ "$(fg_pgrp)" = "$job" ]' || fail "fg: job $(state_of $job), terminal $(fg_pgrp)"
type_line "a line typed"
wait_for test -s line.txt || fail "the job did not read the line: $(screen)"
[ "$(cat line.txt)" = "got:a line typed" ] || fail "the job read '$(cat line.txt)'"
wait_for eval '[ "$(q t.db "SELECT value FROM meta WHERE key='"'exit_code'"'" 2>/dev/null)" = 0 ]' || fail "read job: exit_code"
exit 0
