# The recorder's cost in the kernel (run --bpf-stats): the BPF programs of
# the job source run in the job's context switches, where feedscope's own
# CPU time does not see them. With --bpf-stats the run counts their time
# (the kernel's statistics, held on by a descriptor for the run only) less
# what the counting adds to each run (an empty program at the same
# switches), writes it to meta job.bpf_cpu_s, and its summary adds it to the
# recorder's line. Checked here, on a job that switches (40 threads
# sleeping 1 ms 200 times):
#   - with --bpf-stats: job.bpf_cpu_s > 0 and below the job's duration,
#     job.bpf_prog gives the runs and the counting's own time taken off, the
#     summary says "+ X% in its BPF programs ... = Y%";
#   - the sysctl kernel.bpf_stats_enabled is as it was, and the statistics
#     went off with the run: a run after it without the flag counts nothing
#     (its job.bpf_prog says "not counted", its summary how to count it);
#   - with --states proc there are no programs: no job.bpf_cpu_s, the
#     summary's recorder line has no BPF part;
#   - --bpf-stats takes no value: exit 2 before any job starts.
# Root: the BPF path needs it; under CI=true as root it must load.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd sqlite3
need_cmd python3

expect_status 2 "$FEEDSCOPE" run --bpf-stats=1 -o bad.db -- sh -c 'touch started'
[ ! -e started ] || fail "--bpf-stats=1: the job ran"

[ "$(id -u)" -eq 0 ] || skip "needs root (the BPF path)"
sysctl=/proc/sys/kernel/bpf_stats_enabled
before=$(cat $sysctl)

"$FEEDSCOPE" run -f --no-trace --bpf-stats -o counted.db -- python3 -c '
import threading, time
def f():
    for _ in range(200):
        time.sleep(0.001)
ts = [threading.Thread(target=f) for _ in range(40)]
[t.start() for t in ts]
[t.join() for t in ts]' >counted.out 2>&1 || fail "the --bpf-stats run failed: $(tail -3 counted.out)"
[ "$(q counted.db "SELECT value FROM meta WHERE key='job.states'")" = bpf ] ||
	fail "the BPF path did not load (meta job.states: $(q counted.db "SELECT value FROM meta WHERE key='job.states'"))"
[ "$(cat $sysctl)" = "$before" ] || fail "kernel.bpf_stats_enabled was $before, is $(cat $sysctl) after the run"
prog=$(q counted.db "SELECT value FROM meta WHERE key='job.bpf_prog'")
cpu=$(q counted.db "SELECT value FROM meta WHERE key='job.bpf_cpu_s'")
dur=$(q counted.db "SELECT value FROM meta WHERE key='duration_s'")
echo "--bpf-stats: job.bpf_prog '$prog'; job.bpf_cpu_s $cpu over $dur s"
case $prog in
*" runs, "*" ms in the kernel ("*" ns a run); "*" ms less the counting's own "*) ;;
*) fail "--bpf-stats: meta job.bpf_prog is '$prog'" ;;
esac
awk -v c="${cpu:-x}" -v d="$dur" 'BEGIN { exit !(c + 0 > 0 && c + 0 < d) }' ||
	fail "--bpf-stats: meta job.bpf_cpu_s is '$cpu' (duration $dur s)"
line=$(grep '^  recorder ' counted.out) || fail "--bpf-stats: no recorder line in the summary: $(cat counted.out)"
echo "$line"
case $line in
*"% of one core ("*") + "*"% in its BPF programs (in the kernel, in the job's context switches) = "*%) ;;
*) fail "--bpf-stats: the summary's recorder line is '$line'" ;;
esac

# the statistics went off with the run (where nothing else holds them on)
"$FEEDSCOPE" run -f --no-trace -o plain.db -- python3 -c 'import time; [time.sleep(0.001) for _ in range(300)]' \
	>plain.out 2>&1 || fail "the plain run failed: $(tail -3 plain.out)"
prog=$(q plain.db "SELECT value FROM meta WHERE key='job.bpf_prog'")
if [ "$(cat $sysctl)" = 0 ]; then
	[ "$prog" = "not counted: feedscope run --bpf-stats counts it" ] ||
		fail "a run after the --bpf-stats one: meta job.bpf_prog is '$prog' (the statistics stayed on?)"
	[ -z "$(q plain.db "SELECT value FROM meta WHERE key='job.bpf_cpu_s'")" ] ||
		fail "a run without --bpf-stats has a job.bpf_cpu_s"
	grep -q "^  recorder .*; its BPF programs' time (in the job's context switches) not counted: --bpf-stats counts it$" \
		plain.out || fail "without --bpf-stats, the summary's recorder line is '$(grep '^  recorder' plain.out)'"
else
	echo "kernel.bpf_stats_enabled is on (set outside the test): the plain run is counted ($prog)"
fi

"$FEEDSCOPE" run -f --no-trace --states proc --bpf-stats -o proc.db -- sleep 0.3 >proc.out 2>&1 ||
	fail "the --states proc run failed: $(tail -3 proc.out)"
[ -z "$(q proc.db "SELECT value FROM meta WHERE key='job.bpf_cpu_s'")" ] || fail "--states proc has a job.bpf_cpu_s"
line=$(grep '^  recorder ' proc.out) || fail "--states proc: no recorder line in the summary"
case $line in
*BPF*) fail "--states proc: the summary's recorder line is '$line'" ;;
esac
echo "--states proc: $line"
