# The job's thread states from both paths (--states proc and bpf) against
# the job's own truth. The job (C, compiled here) runs four threads with
# known duty cycles for 6 s: one spins (R all the time), one sleeps (S),
# one sits in vfork() while its child sleeps (the parent of a vfork waits
# in D, TASK_KILLABLE, until the child exits), and one spins 3 ms then
# sleeps 4-10 ms at random (R 30%, by its own clock; not a fixed period,
# which a sampler at 0.1 s would alias); the main thread waits in join (S).
# The truth is the kernel's own count, read by each thread of itself at its
# start and end (/proc/thread-self/schedstat: time on a CPU + time runnable,
# i.e. in R; on a busy machine a thread woken from usleep waits for a CPU,
# and that is R too), and for the vfork thread the rest of its time (D).
# The process's rows over the run must agree with it:
#   bpf: state time accounted at each switch; the difference from the truth
#        is the window (the rows' ticks vs the threads' lives: the first and
#        last 0.1 s of 6 s, where the threads start and stop, < 0.03
#        threads of 5): 0.06 threads;
#   proc: one sample of each thread per tick, ~60 ticks: the D thread's
#        mean is a proportion of 60 Bernoulli draws (p ~ 0.97: sd 0.02) and
#        the 30% thread's sd is 0.06; 0.25 threads in all leaves > 3 sd.
#        It also reads a thread woken but not yet on a CPU as still asleep
#        (its stat is re-read only once it has run): on a busy machine its
#        running falls short, and sleeping exceeds, by up to the time the
#        threads waited for a CPU, which the job measures too.
# cpu_pct (cores on average) the same way: bpf from the time on a CPU that
# it accounts; proc from utime + stime in 10 ms clock ticks (one row +-0.1
# core, the mean of 60 far less).
# Root: the BPF program needs CAP_BPF + CAP_PERFMON; under CI=true as root
# it must load, else the test fails.
. "$FEEDSCOPE_TOP/tests/lib/integration.sh"
need_cmd cc
need_cmd sqlite3

cat >duty.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double end_s;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
/* The kernel's own count for this thread: time on a CPU + time runnable
 * waiting for one (sched_info), i.e. time in R, in seconds. */
static double r_time(double *cpu)
{
	double run = 0, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%lf %lf", &run, &wait) != 2) { perror("schedstat"); exit(1); }
	fclose(f);
	*cpu = run / 1e9;
	return (run + wait) / 1e9;
}
/* Each CPU's time stolen by the hypervisor and its busy time (user ..
 * softirq + steal), in clock ticks, from /proc/stat's cpuN lines. */
#define NCPU 256
static int steal_busy(double *steal, double *busy)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/stat", "r");
	if (!f) { perror("/proc/stat"); exit(1); }
	while (n < NCPU && fgets(line, sizeof line, f)) {
		double v[8];
		int cpu;
		if (sscanf(line, "cpu%d %lf %lf %lf %lf %lf %lf %lf %lf", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) != 9)
			continue;
		steal[n] = v[7];
		busy[n++] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	}
	fclose(f);
	return n;
}
struct share { double r0, c0, t0, r, c; };
/* r: threads in R on average; c: of which on a CPU; r - c: runnable, waiting */
static void begin(struct share *s) { s->r0 = r_time(&s->c0); s->t0 = now(); }
static void finish(struct share *s)
{
	double c, r = r_time(&c), wall = now() - s->t0;
	s->r = (r - s->r0) / wall;
	s->c = (c - s->c0) / wall;
}
static struct share sh[5];
static void *spin(void *a) { begin(a); while (now() < end_s) ; finish(a); return NULL; }
static void *doze(void *a) { begin(a); while (now() < end_s) usleep(20000); finish(a); return NULL; }
static void *dwait(void *a)
{
	begin(a);
	while (now() < end_s)
		if (vfork() == 0) { usleep(50000); _exit(0); }
	finish(a);
	return NULL;
}
/* 3 ms on, 4-10 ms off (7 on average): a fixed 10 ms period divides the
 * recorder's 0.1 s tick, and a sampler would then see the thread at the
 * same point of its cycle at every tick (aliasing: a run read it in R at 2
 * ticks of 60) */
static void *duty(void *a)
{
	unsigned seed = 1;
	begin(a);
	while (now() < end_s) {
		double s = now();
		while (now() < s + 0.003) ;
		usleep(4000 + rand_r(&seed) % 6001);
	}
	finish(a);
	return NULL;
}
int main(int argc, char **argv)
{
	end_s = now() + (argc > 1 ? atof(argv[1]) : 6);
	static double st0[NCPU], bz0[NCPU], st1[NCPU], bz1[NCPU];
	int ncpu = steal_busy(st0, bz0);
	begin(&sh[4]);
	pthread_t t[4];
	void *(*fn[4])(void *) = {spin, doze, dwait, duty};
	for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, fn[i], &sh[i]);
	for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
	finish(&sh[4]);
	if (steal_busy(st1, bz1) != ncpu) { fprintf(stderr, "CPUs changed\n"); return 1; }
	/* threads in R on average (all five), and in D: the vfork thread is in
	 * D whenever it is not in R (its loop outside vfork is a few us) */
	double r = 0, c = 0;
	for (int i = 0; i < 5; i++) r += sh[i].r, c += sh[i].c;
	/* the largest share of a CPU's busy time the hypervisor took */
	double f = 0;
	for (int i = 0; i < ncpu; i++)
		if (bz1[i] > bz0[i] && (st1[i] - st0[i]) / (bz1[i] - bz0[i]) > f)
			f = (st1[i] - st0[i]) / (bz1[i] - bz0[i]);
	printf("%.4f %.4f %.4f %.4f %.4f\n", r, 1 - sh[2].r, c, r - c, f); /* on a CPU, waiting for one */
	return 0;
}
C
cc -O2 -o duty duty.c -lpthread || fail "cannot build the duty-cycle job"

if [ "$(id -u)" -ne 0 ]; then
	skip "needs root (the BPF path)"
fi

for states in bpf proc; do
	record_states $states $states.db $states.truth ./duty 6
	read -r want_run want_blk want_cpu want_wait steal <$states.truth
	# the main process's rows (the vfork children are processes of their own)
	# with an interval (all but the t = 0 one): the job's whole life, the
	# window its truth is over
	pid=$(q $states.db "SELECT value FROM meta WHERE key='pid'")
	set -- $(q $states.db "SELECT avg(running), avg(blocked_io), avg(sleeping), avg(coalesce(other, 0)), count(*), avg(cpu_pct) / 100
		FROM proc WHERE pid = $pid AND t > 0" | tr '|' ' ')
	run=$1 blk=$2 slp=$3 oth=$4 n=$5 cpu=$6
	[ "$n" -ge 30 ] || fail "--states $states: only $n rows of the job's process"
	tol=0.06
	[ $states = proc ] && tol=0.25
	# 5 threads: what is neither R nor D is S (usleep, join)
	want_slp=$(awk -v r="$want_run" -v d="$want_blk" 'BEGIN { print 5 - r - d }')
	# On a virtual machine the hypervisor takes CPUs (steal): the kernel's
	# count of a thread's execution (schedstat's first figure, the truth's
	# time on a CPU) leaves that out, while the thread is in R all along: R
	# by the clock exceeds the truth's R by the time stolen while its
	# threads were on a CPU, at most cpu * f / (1 - f) with f the largest
	# share of a CPU's busy time stolen during the job (all of it on the CPU
	# most stolen from). cpu is the kernel's count on both paths (utime +
	# stime; the BPF path splits the stolen time off into waiting for a CPU).
	# events the kernel skipped (a program already running on that CPU) and
	# switch-outs whose switch-in was not seen: said with the figures
	missed=$(q $states.db "SELECT group_concat(value, ' and ') FROM meta WHERE key IN ('job.bpf_missed', 'job.bpf_unseen_in')")
	stolen=$(awk -v c="$want_cpu" -v f="$steal" 'BEGIN { printf "%.4f", f < 0.9 ? c * f / (1 - f) : 9 }')
	echo "--states $states: running $run (truth $want_run), blocked_io $blk (truth $want_blk), sleeping $slp (truth $want_slp), other $oth, cpu $cpu cores (truth $want_cpu; waiting for a CPU $want_wait), $n rows; steal up to $steal of a CPU: up to $stolen threads in R more${missed:+; BPF events skipped by the kernel and switch-ins not seen: $missed}"
	# the proc path may also read a thread woken but not yet run as still
	# asleep (docs/schema.md): running may fall short, and sleeping exceed,
	# by up to the time the threads waited for a CPU
	slack=0
	[ $states = proc ] && slack=$want_wait
	for check in "running $run $want_run $slack $stolen" "blocked_io $blk $want_blk 0 0" \
		"sleeping $slp $want_slp $stolen $slack" "other $oth 0 0 0" "cpu $cpu $want_cpu 0 0"; do
		set -- $check
		awk -v a="$2" -v b="$3" -v t="$tol" -v lo="$4" -v hi="$5" \
			'BEGIN { exit !(a >= b - t - lo && a <= b + t + hi) }' ||
			fail "--states $states: $1 is $2 threads on average, the job measured $3 (tolerance $tol, $4 below, $5 above)"
	done
done
