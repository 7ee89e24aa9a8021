# The job source's I/O rates of a process that sleeps between bursts, on
# both --states paths. The BPF path does not re-read /proc/PID/io for a
# process none of whose threads was on a CPU in the tick (its counters move
# only in its own threads' context) and repeats its last values: this checks
# that the rows stay what a read every tick gives. The job (C, compiled
# here) reads its own /proc/self/io, sleeps 1.2 s, reads 4 MiB of
# /dev/zero, sleeps 1.2 s, writes 3 MiB to /dev/null, sleeps 1.2 s and reads
# its io again; it prints both reads and the CLOCK_MONOTONIC times of the
# bursts. Over its rows (all but the first, which has no interval):
#   - sum(rate x tick interval) is its counters' growth (rchar, wchar), 3%;
#   - the rates are never NULL, and 0 in the ticks wholly inside a sleep;
#   - each burst is in a row no later than 0.5 s after it (a skip that
#     missed the burst would show it only when the process next runs, 1.2 s
#     later).
# Root: the BPF path needs it; under CI=true as root it must load.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
need_cmd sqlite3
[ "$(id -u)" -eq 0 ] || skip "needs root (the BPF path)"

cat >iojob.c <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static char buf[1 << 20];
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
int main(void)
{
	unsigned long long r0, w0, r1, w1;
	int zero = open("/dev/zero", O_RDONLY), null = open("/dev/null", O_WRONLY);
	if (zero < 0 || null < 0) { perror("open"); return 1; }
	io(&r0, &w0);
	usleep(1200000);
	long long t1 = mono();
	all(zero, 0, 4 << 20);
	usleep(1200000);
	long long t2 = mono();
	all(null, 1, 3 << 20);
	usleep(1200000);
	io(&r1, &w1);
	printf("%llu %llu %lld %lld\n", r1 - r0, w1 - w0, t1, t2);
	return 0;
}
C
cc -O2 -o iojob iojob.c || fail "cannot build the job"

for states in bpf proc; do
	record_states $states $states.db $states.truth ./iojob
	read -r want_r want_w t1 t2 <$states.truth
	[ "$want_r" -ge $((4 << 20)) ] && [ "$want_w" -ge $((3 << 20)) ] ||
		fail "--states $states: the job's own counters grew by $want_r / $want_w bytes"
	pid=$(q $states.db "SELECT value FROM meta WHERE key='pid'")
	mono0=$(q $states.db "SELECT value FROM meta WHERE key='start_monotonic_ns'")
	b1=$(awk -v a="$t1" -v z="$mono0" 'BEGIN { printf "%.4f", (a - z) / 1e9 }')
	b2=$(awk -v a="$t2" -v z="$mono0" 'BEGIN { printf "%.4f", (a - z) / 1e9 }')
	# its rows after the first (the first has no interval), with the tick's interval
	rows="SELECT p.t, p.rchar_per_s AS r, p.wchar_per_s AS w, k.dt_s AS dt FROM proc p JOIN ticks k ON k.t = p.t
		WHERE p.pid = $pid AND p.t > (SELECT min(t) FROM proc WHERE pid = $pid)"
	set -- $(q $states.db "SELECT count(*), sum(r IS NULL OR w IS NULL), printf('%.0f', sum(r * dt)),
		printf('%.0f', sum(w * dt)) FROM ($rows)" | tr '|' ' ')
	n=$1 nulls=$2 got_r=$3 got_w=$4
	[ "$n" -ge 30 ] || fail "--states $states: only $n rows of the job's process"
	[ "$nulls" -eq 0 ] || fail "--states $states: $nulls of its $n rows have NULL I/O rates"
	approx "$got_r" "$want_r" 0.03 || fail "--states $states: its rows read $got_r bytes (rchar), the job $want_r"
	approx "$got_w" "$want_w" 0.03 || fail "--states $states: its rows wrote $got_w bytes (wchar), the job $want_w"
	# the ticks wholly inside the sleeps: 0 (the row at t covers (t - dt, t])
	busy=$(q $states.db "SELECT count(*) FROM ($rows) WHERE (r > 0 OR w > 0) AND
		((t - dt > $b1 + 0.05 AND t < $b2 - 0.05) OR (t - dt > $b2 + 0.05 AND t < $b2 + 1.1))")
	[ "$busy" -eq 0 ] || fail "--states $states: $busy rows inside its sleeps show I/O"
	for b in "r $b1" "w $b2"; do
		set -- $b
		at=$(q $states.db "SELECT min(t) FROM ($rows) WHERE $1 > 0 AND t >= $2")
		[ -n "$at" ] && awk -v a="$at" -v b="$2" 'BEGIN { exit !(a <= b + 0.5) }' ||
			fail "--states $states: the burst at t=$2 s is in no row up to 0.5 s after it (first: '${at:-none}')"
	done
	echo "--states $states: $n rows; read $got_r of $want_r bytes, wrote $got_w of $want_w; bursts at $b1, $b2 s"
done
