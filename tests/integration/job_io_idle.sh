# The job source's I/O rates of processes that sleep between bursts, on
# both --states paths. Where the kernel lets it (meta job.io = bpf), the
# BPF path sums the growth of each thread's own counters (task->ioac,
# copied by the program at each switch out, exit and 4 ms of execution)
# instead of reading /proc/PID/io every tick; the /proc path reads the
# file. This checks that the rows are what the processes' own counters say.
# The job (C, compiled here) ignores SIGCHLD (its child is reaped by the
# kernel, whose I/O is then never added to the parent's /proc/PID/io), and:
#   - 0.25 s in, forks a child that sleeps 0.3 s, reads 5 MiB of /dev/zero, sleeps
#     0.5 s, reports its own /proc/self/io growth, sleeps 0.3 s and exits
#     (a process followed from its fork: its first row holds what it did
#     since its birth; on the BPF path it is never NULL, the program saw
#     the fork);
#   - forks 25 children 4 ms apart that sleep 0.5 s and exit (the BPF
#     path knows each one's fork: its first row has its rates from its
#     birth; the proc path, from a start time in 10 ms clock ticks, cannot
#     tell one born within 10 ms of a tick, whose first row is NULL);
#   - reads its own /proc/self/io, sleeps 1.2 s, reads 4 MiB of /dev/zero,
#     sleeps 1.2 s, writes 3 MiB to /dev/null, sleeps 1.2 s, starts a thread
#     that reads /dev/zero without ever blocking for 0.3 s and exits (its
#     counters count in the process's after its exit; while it runs, only
#     the program's copies every 4 ms of execution show them), joins it,
#     forks a child that writes 6 MiB to /dev/null, reports its counters,
#     sleeps 0.3 s and exits, and waits for it (reaping it adds all of the
#     child's I/O to the parent's /proc/PID/io: the job source takes the
#     child's last counters back out of the parent's, and the BPF path
#     never sees it there; the parent's truth is its growth less the
#     child's counters), sleeps 1.2 s and reads its io again; it prints both reads' growth and
#     the CLOCK_MONOTONIC times of the three bursts.
# Over each process's rows (the parent's but its first, which has no
# interval; the child's first counts from its birth):
#   - sum(rate x tick interval) is its counters' growth (rchar, wchar), 3%;
#   - the rates are never NULL, and 0 in the ticks wholly inside a sleep;
#   - each burst is in a row no later than 0.5 s after it (a skip that
#     missed the burst would show it later);
#   - the rows wholly inside the spinning thread's 0.3 s show its reads
#     (counters copied only when a thread leaves its CPU would not).
# Root: the BPF path needs it; under CI=true as root it must load.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
need_cmd sqlite3
[ "$(id -u)" -eq 0 ] || skip "needs root (the BPF path)"

cat >iojob.c <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static char buf[1 << 20];
static int zero, null;
static void io(unsigned long long *rc, unsigned long long *wc)
{
	char t[1024];
	int fd = open("/proc/self/io", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, t, sizeof t - 1);
	if (n <= 0) { perror("/proc/self/io"); exit(1); }
	t[n] = '\0';
	close(fd);
	if (sscanf(strstr(t, "rchar:"), "rchar: %llu", rc) != 1 || sscanf(strstr(t, "wchar:"), "wchar: %llu", wc) != 1)
		exit(1);
}
static long long mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void all(int fd, int wr, size_t total)
{
	for (size_t done = 0; done < total;) {
		ssize_t k = wr ? write(fd, buf, sizeof buf) : read(fd, buf, sizeof buf);
		if (k <= 0) { perror("burst"); exit(1); }
		done += (size_t)k;
	}
}
/* reads 64 KiB at a time for 0.3 s: never blocks, rarely leaves its CPU */
static void *spin(void *arg)
{
	(void)arg;
	static char small[64 << 10];
	long long end = mono() + 300000000LL;
	while (mono() < end)
		if (read(zero, small, sizeof small) <= 0) { perror("spin"); exit(1); }
	return NULL;
}
int main(void)
{
	unsigned long long r0, w0, r1, w1;
	zero = open("/dev/zero", O_RDONLY);
	null = open("/dev/null", O_WRONLY);
	if (zero < 0 || null < 0) { perror("open"); return 1; }
	signal(SIGCHLD, SIG_IGN);
	usleep(250000); /* the child is born between two ticks, not before the first */
	pid_t kid = fork();
	if (kid < 0) { perror("fork"); return 1; }
	if (kid == 0) {
		unsigned long long a, b, c, d;
		io(&a, &b);
		usleep(300000);
		all(zero, 0, 5 << 20);
		usleep(500000);
		io(&c, &d);
		printf("child %d %llu %llu\n", (int)getpid(), c - a, d - b);
		fflush(stdout);
		usleep(300000);
		_exit(0);
	}
	/* 25 children 4 ms apart: over 100 ms, some are born within a few ms
	 * after a tick, where a start time in 10 ms clock ticks cannot tell */
	for (int i = 0; i < 25; i++) {
		pid_t p = fork();
		if (p < 0) { perror("fork"); return 1; }
		if (p == 0) { usleep(500000); _exit(0); }
		printf("sleeper %d\n", (int)p);
		usleep(4000);
	}
	fflush(stdout);
	io(&r0, &w0);
	usleep(1200000);
	long long t1 = mono();
	all(zero, 0, 4 << 20);
	usleep(1200000);
	long long t2 = mono();
	all(null, 1, 3 << 20);
	usleep(1200000);
	long long t3 = mono();
	pthread_t th;
	if (pthread_create(&th, NULL, spin, NULL) != 0 || pthread_join(th, NULL) != 0) { perror("thread"); return 1; }
	/* a child it waits for: the kernel adds all of the child's I/O to the
	 * parent's /proc/PID/io when it reaps it */
	signal(SIGCHLD, SIG_DFL);
	pid_t waited = fork();
	if (waited < 0) { perror("fork"); return 1; }
	if (waited == 0) {
		unsigned long long c, d;
		all(null, 1, 6 << 20);
		io(&c, &d);
		printf("waited %d %llu %llu\n", (int)getpid(), c, d);
		fflush(stdout);
		usleep(300000);
		_exit(0);
	}
	if (waitpid(waited, NULL, 0) != waited) { perror("waitpid"); return 1; }
	usleep(1200000);
	io(&r1, &w1);
	printf("parent %llu %llu %lld %lld %lld\n", r1 - r0, w1 - w0, t1, t2, t3);
	return 0;
}
C
cc -O2 -pthread -o iojob iojob.c || fail "cannot build the job"

# sum_rows DB ROWS: "count nulls sum(r*dt) sum(w*dt)"
sum_rows() {
	q "$1" "SELECT count(*), sum(r IS NULL OR w IS NULL), printf('%.0f', sum(r * dt)),
		printf('%.0f', sum(w * dt)) FROM ($2)" | tr '|' ' '
}

for states in bpf proc; do
	record_states $states $states.db $states.out ./iojob
	want_io=$([ $states = bpf ] && echo bpf || echo proc)
	got_io=$(q $states.db "SELECT value FROM meta WHERE key='job.io'")
	[ "$got_io" = "$want_io" ] || fail "--states $states: meta job.io is '$got_io', not '$want_io'"
	read -r _ want_r want_w t1 t2 t3 <<<"$(grep '^parent ' $states.out)"
	# its own: less what the waited-for child's reaping added (its counters
	# at its end: the child counts its own)
	read -r _ _ waited_r waited_w <<<"$(grep '^waited ' $states.out)"
	[ -n "${waited_w:-}" ] || fail "--states $states: no line from the waited-for child"
	want_r=$((want_r - waited_r)) want_w=$((want_w - waited_w))
	read -r _ kid kid_r kid_w <<<"$(grep '^child ' $states.out)"
	[ -n "${t3:-}" ] && [ -n "${kid_w:-}" ] || fail "--states $states: the job printed '$(cat $states.out)'"
	[ "$want_r" -ge $((4 << 20)) ] && [ "$want_w" -ge $((3 << 20)) ] && [ "$kid_r" -ge $((5 << 20)) ] ||
		fail "--states $states: the job's own counters grew by $want_r / $want_w bytes, the child's by $kid_r"
	pid=$(q $states.db "SELECT value FROM meta WHERE key='pid'")
	mono0=$(q $states.db "SELECT value FROM meta WHERE key='start_monotonic_ns'")
	at() { awk -v a="$1" -v z="$mono0" 'BEGIN { printf "%.4f", (a - z) / 1e9 }'; }
	b1=$(at "$t1") b2=$(at "$t2") b3=$(at "$t3")
	# its rows after the first (the first has no interval), with the tick's interval
	rows="SELECT p.t, p.rchar_per_s AS r, p.wchar_per_s AS w, k.dt_s AS dt FROM proc p JOIN ticks k ON k.t = p.t
		WHERE p.pid = $pid AND p.t > (SELECT min(t) FROM proc WHERE pid = $pid)"
	read -r n nulls got_r got_w <<<"$(sum_rows $states.db "$rows")"
	[ "$n" -ge 40 ] || fail "--states $states: only $n rows of the job's process"
	[ "$nulls" -eq 0 ] || fail "--states $states: $nulls of its $n rows have NULL I/O rates"
	approx "$got_r" "$want_r" 0.03 || fail "--states $states: its rows read $got_r bytes (rchar), the job $want_r"
	approx "$got_w" "$want_w" 0.03 || fail "--states $states: its rows wrote $got_w bytes (wchar), the job $want_w"
	# the ticks wholly inside the sleeps: 0 (the row at t covers (t - dt, t])
	busy=$(q $states.db "SELECT count(*) FROM ($rows) WHERE (r > 0 OR w > 0) AND
		((t - dt > $b1 + 0.05 AND t < $b2 - 0.05) OR (t - dt > $b2 + 0.05 AND t < $b3 - 0.05))")
	[ "$busy" -eq 0 ] || fail "--states $states: $busy rows inside its sleeps show I/O"
	for b in "r $b1" "w $b2" "r $b3"; do
		set -- $b
		first=$(q $states.db "SELECT min(t) FROM ($rows) WHERE $1 > 0 AND t >= $2")
		[ -n "$first" ] && awk -v a="$first" -v b="$2" 'BEGIN { exit !(a <= b + 0.5) }' ||
			fail "--states $states: the burst at t=$2 s is in no row up to 0.5 s after it (first: '${first:-none}')"
	done
	# the spinning thread's reads show while it runs, in the rows wholly
	# inside its 0.3 s, not only once it has left its CPU
	spin=$(q $states.db "SELECT count(*), sum(r > 0) FROM ($rows) WHERE t - dt >= $b3 + 0.01 AND t <= $b3 + 0.29" | tr '|' ' ')
	set -- $spin
	[ "$1" -ge 1 ] && [ "$2" -eq "$1" ] || fail "--states $states: $2 of the $1 rows inside the spinning thread's run show its reads"
	# the child's rows: its first counts from its birth when the job source
	# can tell it was born in that tick: always on the BPF path (the program
	# saw its fork); on the proc path when its start time, in 10 ms clock
	# ticks, is 10 ms past the previous tick's, else that row has no
	# interval (NULL; the child does nothing for its first 0.3 s)
	kid_rows="SELECT p.t, p.rchar_per_s AS r, p.wchar_per_s AS w, k.dt_s AS dt FROM proc p JOIN ticks k ON k.t = p.t
		WHERE p.pid = $kid"
	[ $states = bpf ] ||
		kid_rows="$kid_rows AND (p.t > (SELECT min(t) FROM proc WHERE pid = $kid) OR p.rchar_per_s IS NOT NULL)"
	read -r kn knulls kgot_r _ <<<"$(sum_rows $states.db "$kid_rows")"
	[ "$kn" -ge 8 ] || fail "--states $states: only $kn rows of the child"
	[ "$knulls" -eq 0 ] || fail "--states $states: $knulls of the child's $kn rows have NULL I/O rates"
	approx "$kgot_r" "$kid_r" 0.03 || fail "--states $states: the child's rows read $kgot_r bytes, the child $kid_r"
	# the sleepers' first rows: on the BPF path, each born in its tick
	if [ $states = bpf ]; then
		nulls=0
		for p in $(awk '$1 == "sleeper" { print $2 }' $states.out); do
			v=$(q $states.db "SELECT cpu_pct IS NULL OR rchar_per_s IS NULL FROM proc WHERE pid = $p ORDER BY t LIMIT 1")
			[ "$v" = 0 ] || nulls=$((nulls + 1))
		done
		[ "$nulls" -eq 0 ] || fail "--states bpf: $nulls of the 25 sleepers' first rows have no interval (NULL or none)"
	fi
	echo "--states $states (job.io $got_io): $n rows; read $got_r of $want_r bytes, wrote $got_w of $want_w;" \
		"bursts at $b1, $b2, $b3 s; child: $kn rows, read $kgot_r of $kid_r"
done
