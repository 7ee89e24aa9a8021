/* jobstates - per-thread state times into a process's interval columns. */
#include "source/jobstates.h"

#include <math.h>
#include <string.h>

#include "source/source.h"

void fs_js_totals_at(const struct fs_js_thread *t, uint64_t now_ns, struct fs_js_totals *out)
{
	fs_js_totals_at_exec(t, now_ns, ~0ull, out);
}

void fs_js_totals_at_exec(const struct fs_js_thread *t, uint64_t now_ns, uint64_t exec_ns,
			  struct fs_js_totals *out)
{
	for (int s = 0; s < FS_JS_NSTATES; s++)
		out->ns[s] = t->ns[s];
	out->iowait_ns = t->iowait_ns;
	out->meta_ns = t->meta_ns;
	if (t->state < FS_JS_NSTATES && now_ns > t->since_ns) {
		uint64_t open = now_ns - t->since_ns;
		if ((t->state == FS_JS_ONCPU || t->state == FS_JS_RUNQ) && exec_ns != ~0ull) {
			uint64_t ex = fs_js_grown(exec_ns, t->exec_ns, open);
			out->ns[FS_JS_ONCPU] += ex;
			out->ns[FS_JS_RUNQ] += open - ex;
			open = 0;
		}
		out->ns[t->state] += open;
		if (t->iowait)
			out->iowait_ns += open;
		if (t->meta)
			out->meta_ns += open;
	}
	out->run_ns = out->ns[FS_JS_ONCPU] + out->ns[FS_JS_RUNQ];
}

static uint64_t up(uint64_t prev, uint64_t cur)
{
	return cur > prev ? cur - prev : 0;
}

void fs_js_totals_add_delta(struct fs_js_totals *sum, const struct fs_js_totals *prev,
			    const struct fs_js_totals *cur)
{
	for (int s = 0; s < FS_JS_NSTATES; s++)
		sum->ns[s] += prev ? up(prev->ns[s], cur->ns[s]) : cur->ns[s];
	sum->iowait_ns += prev ? up(prev->iowait_ns, cur->iowait_ns) : cur->iowait_ns;
	sum->meta_ns += prev ? up(prev->meta_ns, cur->meta_ns) : cur->meta_ns;
	sum->run_ns += prev ? up(prev->run_ns, cur->run_ns) : cur->run_ns;
}

void fs_js_totals_mark(struct fs_js_totals *mark, const struct fs_js_totals *cur)
{
	for (int s = 0; s < FS_JS_NSTATES; s++)
		if (cur->ns[s] > mark->ns[s])
			mark->ns[s] = cur->ns[s];
	if (cur->iowait_ns > mark->iowait_ns)
		mark->iowait_ns = cur->iowait_ns;
	if (cur->meta_ns > mark->meta_ns)
		mark->meta_ns = cur->meta_ns;
	if (cur->run_ns > mark->run_ns)
		mark->run_ns = cur->run_ns;
}

bool fs_js_copy(struct fs_js_thread *out, const struct fs_js_thread *slot, int tries)
{
	for (int i = 0; i < tries; i++) {
		uint32_t a = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
		memcpy(out, (const void *)slot, sizeof *out);
		/* the copy's loads before the second read of seq */
#ifdef __SANITIZE_THREAD__
		__asm__ __volatile__("" ::: "memory"); /* TSan has no fences; x86 keeps loads in order */
		uint32_t b = __atomic_load_n(&slot->seq, __ATOMIC_SEQ_CST);
#else
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint32_t b = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
#endif
		if (a == b && !(a & 1))
			return true;
	}
	return false;
}

void fs_js_columns(const struct fs_js_totals *sum, uint64_t dt_ns, struct fs_js_columns *out)
{
	if (dt_ns == 0) {
		out->running = out->blocked_io = out->blocked_meta = out->sleeping = out->other = NAN;
		out->run_wait_pct = out->blkio_delay_pct = out->cpu_pct = NAN;
		return;
	}
	double dt = (double)dt_ns;
	out->running = (double)sum->run_ns / dt;
	out->blocked_io = (double)sum->ns[FS_JS_BLOCKED] / dt;
	/* never more than the time in D it is part of (the two are marked
	 * apart: a torn read may settle them at different reads) */
	out->blocked_meta = (double)(sum->meta_ns < sum->ns[FS_JS_BLOCKED] ? sum->meta_ns : sum->ns[FS_JS_BLOCKED]) / dt;
	out->sleeping = (double)sum->ns[FS_JS_SLEEP] / dt;
	out->other = (double)sum->ns[FS_JS_OTHER] / dt;
	uint64_t on = sum->ns[FS_JS_ONCPU];
	out->run_wait_pct = 100.0 * (double)(sum->run_ns > on ? sum->run_ns - on : 0) / dt;
	out->cpu_pct = 100.0 * (double)sum->ns[FS_JS_ONCPU] / dt;
	out->blkio_delay_pct = 100.0 * (double)sum->iowait_ns / dt;
}

uint32_t fs_js_from_letter(char state)
{
	switch (state) {
	/* on a CPU or waiting for one: the next switch tells. Taken as on a
	 * CPU: a thread that is (a busy one may not switch for seconds) would
	 * otherwise count as waiting until it does; one that waits is wrong
	 * by one wait for a CPU at most. */
	case 'R': return FS_JS_ONCPU;
	case 'D': return FS_JS_BLOCKED;
	case 'S': case 'I': return FS_JS_SLEEP;
	default: return FS_JS_OTHER;
	}
}

int fs_js_states_parse(const char *arg)
{
	static const char *const names[] = {[FS_STATES_AUTO] = "auto", [FS_STATES_PROC] = "proc",
					    [FS_STATES_BPF] = "bpf"};
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	return -1;
}
