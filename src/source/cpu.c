/* cpu - /proc/stat: whole-machine and per-core CPU time shares.
 * Tables: cpu, cpu_core. */
#include "source/cpu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/source.h"
#include "util/parse.h"
#include "util/pfile.h"

struct core {
	bool seen;      /* present in the previous read */
	bool seen_now;  /* present in this read */
	struct fs_cpu_ticks prev;
};

struct cpu_state {
	struct fs_pfile stat;
	struct fs_buf buf;
	bool have_prev;
	struct fs_cpu_ticks prev;
	uint64_t prev_ns; /* when prev was read: the rows' dt_s */
	struct core *cores;
	int ncores; /* allocated */
};

bool fs_cpu_parse_ticks(const char *p, struct fs_cpu_ticks *out)
{
	uint64_t *f[] = {&out->user, &out->nice, &out->system, &out->idle, &out->iowait,
			 &out->irq, &out->softirq, &out->steal, &out->guest, &out->guest_nice};
	memset(out, 0, sizeof *out);
	size_t i = 0;
	for (; i < sizeof f / sizeof f[0]; i++)
		if (!fs_scan_u64(&p, f[i]))
			break;
	return i >= 4;
}

void fs_cpu_compute(const struct fs_cpu_ticks *a, const struct fs_cpu_ticks *b,
		    struct fs_cpu_pct *out)
{
	double user = (double)fs_counter_delta(a->user, b->user);
	double nice = (double)fs_counter_delta(a->nice, b->nice);
	double guest = (double)fs_counter_delta(a->guest, b->guest);
	double guest_nice = (double)fs_counter_delta(a->guest_nice, b->guest_nice);
	double sys = (double)(fs_counter_delta(a->system, b->system) +
			      fs_counter_delta(a->irq, b->irq) +
			      fs_counter_delta(a->softirq, b->softirq));
	double idle = (double)fs_counter_delta(a->idle, b->idle);
	double iowait = (double)fs_counter_delta(a->iowait, b->iowait);
	double steal = (double)fs_counter_delta(a->steal, b->steal);
	double total = user + nice + sys + idle + iowait + steal;
	if (total <= 0) {
		out->user = out->nice = out->system = out->iowait = out->idle = out->steal =
			out->guest = NAN;
		return;
	}
	double u = user > guest ? user - guest : 0;
	double n = nice > guest_nice ? nice - guest_nice : 0;
	out->user = 100.0 * u / total;
	out->nice = 100.0 * n / total;
	out->system = 100.0 * sys / total;
	out->iowait = 100.0 * iowait / total;
	out->idle = 100.0 * idle / total;
	out->steal = 100.0 * steal / total;
	out->guest = 100.0 * (guest + guest_nice) / total;
}

static int cpu_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct cpu_state *s = calloc(1, sizeof *s);
	char path[512];
	if (!s || fs_pfile_init(&s->stat, fs_proc_path(path, sizeof path, ctx->paths, "stat")) < 0) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	if (fs_pfile_read_one(&s->stat, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		fs_pfile_close(&s->stat);
		free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	*state = s;
	return FS_SOURCE_OK;
}

static struct core *core_slot(struct cpu_state *s, int n)
{
	if (n >= s->ncores) {
		int want = n + 16;
		struct core *c = realloc(s->cores, (size_t)want * sizeof *c);
		if (!c)
			return NULL;
		memset(c + s->ncores, 0, (size_t)(want - s->ncores) * sizeof *c);
		s->cores = c;
		s->ncores = want;
	}
	return &s->cores[n];
}

static void emit_cpu(const struct fs_source_ctx *ctx, const struct fs_cpu_pct *p, int ncpu, double dt_s)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_CPU, ctx->t);
	fs_row_real(&r, FS_CPU_user_pct, p->user);
	fs_row_real(&r, FS_CPU_system_pct, p->system);
	fs_row_real(&r, FS_CPU_iowait_pct, p->iowait);
	fs_row_real(&r, FS_CPU_idle_pct, p->idle);
	fs_row_real(&r, FS_CPU_steal_pct, p->steal);
	fs_row_real(&r, FS_CPU_nice_pct, p->nice);
	fs_row_real(&r, FS_CPU_guest_pct, p->guest);
	fs_row_int(&r, FS_CPU_ncpu, ncpu);
	fs_row_real(&r, FS_CPU_dt_s, dt_s);
	fs_sink_row(ctx->sink, &r);
}

static void emit_core(const struct fs_source_ctx *ctx, int n, const struct fs_cpu_pct *p, double dt_s)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_CPU_CORE, ctx->t);
	fs_row_int(&r, FS_CPU_CORE_cpu, n);
	fs_row_real(&r, FS_CPU_CORE_busy_pct, 100.0 - p->idle - p->iowait);
	fs_row_real(&r, FS_CPU_CORE_iowait_pct, p->iowait);
	fs_row_real(&r, FS_CPU_CORE_dt_s, dt_s);
	fs_sink_row(ctx->sink, &r);
}

static int cpu_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct cpu_state *s = state;
	if (fs_pfile_read_one(&s->stat, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->stat.path, strerror(errno));
		return FS_SOURCE_UNAVAILABLE;
	}
	for (int i = 0; i < s->ncores; i++)
		s->cores[i].seen_now = false;

	bool have_total = false;
	double dt_s = (double)(ctx->now_ns - s->prev_ns) / 1e9;
	struct fs_cpu_ticks total;
	int online = 0;
	for (const char *line = s->buf.data; line && *line;) {
		if (strncmp(line, "cpu", 3) != 0)
			break; /* the cpu lines come first */
		struct fs_cpu_ticks ticks;
		if (line[3] == ' ') {
			have_total = fs_cpu_parse_ticks(line + 3, &total);
		} else {
			const char *p = line + 3;
			uint64_t n;
			struct core *c;
			if (fs_scan_u64(&p, &n) && n < 1u << 20 && fs_cpu_parse_ticks(p, &ticks) &&
			    (c = core_slot(s, (int)n))) {
				online++;
				if (c->seen) {
					struct fs_cpu_pct pct;
					fs_cpu_compute(&c->prev, &ticks, &pct);
					emit_core(ctx, (int)n, &pct, dt_s);
				}
				c->prev = ticks;
				c->seen_now = true;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	/* A core that went offline starts afresh when it comes back. */
	for (int i = 0; i < s->ncores; i++)
		s->cores[i].seen = s->cores[i].seen_now;

	if (!have_total) {
		snprintf(why, whylen, "no aggregate cpu line in %s", s->stat.path);
		return FS_SOURCE_UNAVAILABLE;
	}
	if (s->have_prev) {
		struct fs_cpu_pct pct;
		fs_cpu_compute(&s->prev, &total, &pct);
		emit_cpu(ctx, &pct, online, dt_s);
	}
	s->prev = total;
	s->prev_ns = ctx->now_ns;
	s->have_prev = true;
	return FS_SOURCE_OK;
}

static void cpu_close(void *state)
{
	struct cpu_state *s = state;
	fs_pfile_close(&s->stat);
	fs_buf_free(&s->buf);
	free(s->cores);
	free(s);
}

const struct fs_source_ops fs_source_cpu = {
	.abi = FS_SOURCE_ABI,
	.name = "cpu",
	.machine = true,
	.open = cpu_open,
	.sample = cpu_sample,
	.close = cpu_close,
};
