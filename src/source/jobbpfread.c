/* jobbpfread - the job source's reads of a process on the BPF path: its
 * stat once a second (jobbpf.c gives the states, CPU time and, where the
 * kernel lets the program copy them, its threads' I/O counters every
 * tick; else its /proc/PID/io is read every tick), its threads' states
 * seeded from their stat when it is first seen, and, on a walk, its
 * threads' children files. */
#include <string.h>

#include "source/job_int.h"

/* Seed the threads the BPF map lacks from their stat (the state letters also
 * give this first row's counts), and track the process. While its I/O
 * counters are JOB_IO_SEEDING, each thread's own (task/TID/io) is read
 * before it is followed, so that only its growth from there is added to
 * the process's; one not read or not followed leaves the process on
 * /proc/PID/io. */
static void seed_threads(struct job_state *s, struct jproc *p, const struct job_bpf_proc *bp)
{
	struct jtick *k = &p->now;
	p->seen = true;
	job_bpf_track(s->bpf, p->pid);
	/* its main thread was followed from the fork, so every thread it made
	 * since was too (one made after this tick's read of the program's
	 * records, the stat above may count already: it is in the next read) */
	p->from_fork = bp && bp->born_ns;
	if (p->from_fork)
		return;
	for (int i = 0; i < p->nth; i++) {
		struct fs_pstat st;
		if (job_read_rel(s, p->task_fd, p->th[i].tid, "stat") <= 0 || !fs_pstat_parse(s->buf.data, &st))
			continue;
		job_count_state(k, st.state);
		k->nread++;
		/* one that has exited (a zombie, a vfork child read after its
		 * exit) has no exit to come that would give its slot back; its
		 * I/O is in the process's counters already */
		if (st.state == 'Z' || st.state == 'X' || st.state == 'x')
			continue;
		struct fs_schedstat ss = {~0ull, ~0ull, 0};
		if (job_read_rel(s, p->task_fd, p->th[i].tid, "schedstat") <= 0 ||
		    !fs_schedstat_parse(s->buf.data, &ss))
			ss.run_ns = ss.wait_ns = ~0ull;
		struct fs_pio io;
		bool have_io = p->io_src == JOB_IO_SEEDING &&
			       job_read_rel(s, p->task_fd, p->th[i].tid, "io") > 0 && fs_pio_parse(s->buf.data, &io);
		if (!job_bpf_seed(s->bpf, p->pid, p->th[i].tid, st.state, s->ctx->now_ns, ss.run_ns, ss.wait_ns,
				  have_io ? &io : NULL) ||
		    !have_io)
			p->io_src = JOB_IO_PROC;
	}
	if (p->io_src == JOB_IO_SEEDING)
		p->io_src = JOB_IO_BPF;
}

/* Whether p's io counters are where the last tick left them without
 * reading /proc/PID/io: the kernel adds to them only in the context of one
 * of its threads (its syscalls, the pages it dirties or reads in, a
 * truncate it makes), and the BPF totals say none of them was on a CPU or
 * runnable in this interval (bp->ran: their figures as read did not move)
 * nor is at the read (one woken after the tick's clock read may be
 * running now). Only when every thread it has is followed and last tick's
 * counters were read. */
static bool job_io_unchanged(const struct job_state *s, const struct jproc *p, const struct job_bpf_proc *bp)
{
	return bp && p->have_prev && p->prev.have_io && p->now.cur.have_io && p->io_fd >= 0 &&
	       job_bpf_dt_ns(s->bpf) && bp->threads >= p->now.st.num_threads && !bp->ran &&
	       bp->counts[FS_JS_ONCPU] == 0 && bp->counts[FS_JS_RUNQ] == 0;
}

/* p's I/O counters into p->now.cur. From its threads' (JOB_IO_BPF): the
 * growth the program saw this interval added to what the process had
 * (where it was followed from its fork, all of it; seeded, /proc/PID/io at
 * the first read). Else /proc/PID/io, unless it cannot have moved
 * (job_io_unchanged). first: the process's first read, which picks. */
static void read_io(struct job_state *s, struct jproc *p, const struct job_bpf_proc *bp, bool first)
{
	struct jtick *k = &p->now;
	if (first)
		p->io_src = job_bpf_io_why(s->bpf) ? JOB_IO_PROC
			    : bp && bp->born_ns	   ? JOB_IO_BPF /* followed from its fork, and its threads */
						   : JOB_IO_SEEDING;
	if (p->io_src == JOB_IO_BPF) {
		if (bp)
			fs_pio_add(&p->bpf_io, &bp->io);
		k->cur.io = p->bpf_io;
		k->cur.have_io = true;
		return;
	}
	if (!first && job_io_unchanged(s, p, bp))
		k->cur.io = p->prev.io;
	else
		job_read_io(s, p);
	if (p->io_src == JOB_IO_SEEDING) {
		if (k->cur.have_io)
			p->bpf_io = k->cur.io;
		else
			p->io_src = JOB_IO_PROC;
	}
}

/* BPF path: stat at most once a JOB_BPF_SLOW_NS (always the first time, on
 * a walk and after an exec), with its rates over the interval since the
 * last such read; the I/O counters every tick (read_io).
 * False: the process is gone. */
static bool read_slow(struct job_state *s, struct jproc *p, const struct job_bpf_proc *bp, bool walk)
{
	struct jtick *k = &p->now;
	uint64_t now = s->ctx->now_ns;
	bool exec = bp && bp->execs != p->execs; /* a new program: its comm, its environment */
	if (p->have_slow && !walk && !exec && now - p->slow_ns < JOB_BPF_SLOW_NS) {
		k->st = p->slow_st;
		k->cur = p->slow_prev;
		/* the io counters every tick: their rates over the tick, as on
		 * the /proc path (a second's rate repeated over the next second
		 * moved a start-up's reads into the loop) */
		read_io(s, p, bp, false);
		return true;
	}
	if (fs_read_fd_one(p->stat_fd, &s->buf) <= 0 || !fs_pstat_parse(s->buf.data, &k->st))
		return false;
	k->cur.cpu_ticks = k->st.utime + k->st.stime;
	k->cur.majflt = k->st.majflt;
	k->cur.minflt = k->st.minflt;
	k->cur.sys_ticks = k->st.stime;
	read_io(s, p, bp, !p->have_slow);
	/* born after the previous tick: by its fork's time where the program saw
	 * it, else by its start time (10 ms clock ticks: job_born_in_interval) */
	k->born = !p->have_prev && (bp && bp->born_ns ? s->have_tick && bp->born_ns > s->prev_tick_ns
						     : job_born_in_interval(s, k->st.starttime));
	struct fs_pcounters zero = {.have_io = k->cur.have_io};
	if (p->have_slow)
		fs_prates_compute(&p->slow_prev, &k->cur, (double)(now - p->slow_ns) / 1e9, s->clk_tck,
				  &p->slow_rates);
	else if (k->born) /* all of it in this interval */
		fs_prates_compute(&zero, &k->cur, (double)(now - s->prev_tick_ns) / 1e9, s->clk_tck,
				  &p->slow_rates);
	else
		fs_prates_compute(&zero, &k->cur, 0, s->clk_tck, &p->slow_rates); /* NaN */
	p->have_slow = true;
	p->execs = bp ? bp->execs : 0;
	p->slow_ns = now;
	p->slow_st = k->st;
	p->slow_prev = k->cur;
	return true;
}

bool job_proc_read_bpf(struct job_state *s, struct jproc *p, bool walk)
{
	struct jtick *k = &p->now;
	memset(k, 0, sizeof *k);
	const struct job_bpf_proc *bp = job_bpf_find(s->bpf, p->pid);
	if (p->seen && (!bp || bp->threads == 0))
		return false; /* every thread it had has exited */
	if (!read_slow(s, p, bp, walk))
		return false;
	bool first = !p->seen;
	if (first) {
		if (!job_list_threads(s, p))
			return false;
		seed_threads(s, p, bp);
	}
	/* its threads' children files: a process followed from its fork has
	 * every fork of its threads followed too, unless the program lost one
	 * (s->bpf_whole: none dropped, no event missed) */
	if (walk && s->use_children && !(p->from_fork && s->bpf_whole)) {
		if (!first && !job_list_threads(s, p))
			return false;
		for (int i = 0; i < p->nth; i++)
			job_thread_children(s, p, &p->th[i]);
	}
	uint64_t dt = job_bpf_dt_ns(s->bpf);
	if (bp && dt && (p->have_prev || k->born)) {
		k->have_js = true;
		fs_js_columns(&bp->sum, dt, &k->js);
		k->nread = bp->threads;
	} else if (bp && !k->nread) {
		/* no interval yet: the states at this read, as the /proc path samples them */
		k->running = bp->counts[FS_JS_ONCPU] + bp->counts[FS_JS_RUNQ];
		k->blocked_io = bp->counts[FS_JS_BLOCKED];
		k->sleeping = bp->counts[FS_JS_SLEEP];
		k->other = bp->counts[FS_JS_OTHER];
		k->nread = bp->threads;
	}
	if (!k->nread)
		k->nread = (int)k->st.num_threads;
	return true;
}
