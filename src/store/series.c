#include "store/series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/rollup.h"
#include "store/schema.h"

/* How a measure is combined over one tick's rows. */
enum combine {
	C_MEAN, /* the GPUs: mean of the rows; the least and the most */
	C_MAX,  /* disks, interfaces: the busiest one */
	C_SUM,  /* thread states: summed over the processes */
};

static const enum combine combine_of[FS_SM__COUNT] = {
	[FS_SM_gpu_util] = C_MEAN,
	[FS_SM_cpu_busy] = C_MEAN,
	[FS_SM_cpu_iowait] = C_MEAN,
	[FS_SM_psi_cpu_some] = C_MEAN,
	[FS_SM_psi_io_some] = C_MEAN,
	[FS_SM_psi_io_full] = C_MEAN,
	[FS_SM_psi_memory_some] = C_MEAN,
	[FS_SM_disk_read] = C_MAX,
	[FS_SM_disk_write] = C_MAX,
	[FS_SM_disk_util] = C_MAX,
	[FS_SM_net_rx] = C_MAX,
	[FS_SM_net_tx] = C_MAX,
	[FS_SM_mem_available] = C_MEAN,
	[FS_SM_mem_cached] = C_MEAN,
	[FS_SM_mem_dirty] = C_MEAN,
	[FS_SM_main_running] = C_SUM,
	[FS_SM_main_blocked_io] = C_SUM,
	[FS_SM_main_sleeping] = C_SUM,
	[FS_SM_main_other] = C_SUM,
	[FS_SM_worker_running] = C_SUM,
	[FS_SM_worker_blocked_io] = C_SUM,
	[FS_SM_worker_sleeping] = C_SUM,
	[FS_SM_worker_other] = C_SUM,
};

/* Whether a measure has the _max column; the _min; whole bytes. */
static bool ranged(enum fs_series_measure m)
{
	return m < FS_SM_main_running;
}

static const bool has_min[FS_SM__COUNT] = {
#define FS_SERIES_HAS_MIN(name, unit, min) [FS_SM_##name] = min,
	FS_SERIES_RANGED(FS_SERIES_HAS_MIN)
#undef FS_SERIES_HAS_MIN
};

/* A unit suffix that starts with _bytes (a size or a rate of bytes) is
 * kept in whole bytes: a constant per suffix, so that the table is one a
 * C compiler can build (a strncmp in an initializer is gcc's folding). */
#define FS_SERIES_BYTES__pct 0
#define FS_SERIES_BYTES__bytes 1
#define FS_SERIES_BYTES__bytes_per_s 1
static const bool in_bytes[FS_SM__COUNT] = {
#define FS_SERIES_IN_BYTES(name, unit, min) [FS_SM_##name] = FS_SERIES_BYTES_##unit,
	FS_SERIES_RANGED(FS_SERIES_IN_BYTES)
#undef FS_SERIES_IN_BYTES
};

/* One measure over the current tick's rows; w: their own interval (a
 * machine-wide table's dt_s), 0 where they are the tick's. */
struct tickm {
	double sum, cnt, mn, mx, w;
};

/* One measure over a second's ticks. */
struct secm {
	double sxw, sw, sx, cnt, mn, mx;
};

struct sec {
	long k;
	bool used;
	long n, steps;
	double dt;
	int gpus;
	double wait, wait_max, compute;
	bool has_wait, has_compute;
	struct secm m[FS_SM__COUNT];
};

struct fs_series {
	fs_series_emit emit;
	void *ctx;
	struct sec ring[FS_SERIES_RING];
	long lo; /* the oldest second not yet written; -1 before any row */
	struct tickm tick[FS_SM__COUNT];
	int tick_gpus;
	bool staged; /* rows of a tick whose ticks row has not come */
	double staged_t;
	double row_w; /* the row being staged: its own dt_s, or 0 */
	uint64_t late;
};

static struct fs_rollup_col cols[FS_SERIES_MAX_COLS];
static int ncols;

static void add_col(const char *name, const char *type)
{
	struct fs_rollup_col *c = &cols[ncols++];
	snprintf(c->name, sizeof c->name, "%s", name);
	c->type = type;
}

int fs_series_columns(const struct fs_rollup_col **out)
{
	if (!ncols) {
		add_col("t", "INTEGER"); /* the second's end: the table's key */
		add_col("n", "INTEGER");
		add_col("dt_s", "REAL");
		add_col("gpus", "INTEGER");
		add_col("steps", "INTEGER");
		add_col("wait_s", "REAL");
		add_col("wait_max_s", "REAL");
		add_col("compute_s", "REAL");
#define FS_SERIES_C_RANGED(name, unit, min)                                     \
	add_col(#name #unit, "REAL");                                            \
	if (min)                                                                 \
		add_col(#name #unit "_min", "REAL");                             \
	add_col(#name #unit "_max", "REAL");
#define FS_SERIES_C_MEAN(name) add_col(#name, "REAL");
		FS_SERIES_RANGED(FS_SERIES_C_RANGED)
		FS_SERIES_MEANS(FS_SERIES_C_MEAN)
#undef FS_SERIES_C_RANGED
#undef FS_SERIES_C_MEAN
	}
	*out = cols;
	return ncols;
}

/* The second t falls in: k - 1 < t <= k; t <= 0 is second 0. */
static long second_of(double t)
{
	long k = (long)ceil(t);
	return k < 0 ? 0 : k;
}

static void reset_tick(struct fs_series *s)
{
	for (int m = 0; m < FS_SM__COUNT; m++)
		s->tick[m] = (struct tickm){0, 0, INFINITY, -INFINITY, 0};
	s->tick_gpus = 0;
	s->staged = false;
}

static void reset_sec(struct sec *c, long k)
{
	memset(c, 0, sizeof *c);
	c->k = k;
	c->used = true;
	c->wait_max = -INFINITY;
	for (int m = 0; m < FS_SM__COUNT; m++) {
		c->m[m].mn = INFINITY;
		c->m[m].mx = -INFINITY;
	}
}

static struct fs_value v_real(double x)
{
	struct fs_value v = {.kind = isfinite(x) ? FS_V_REAL : FS_V_NULL};
	v.d = x;
	return v;
}

static struct fs_value v_int(long x)
{
	struct fs_value v = {.kind = FS_V_INT};
	v.i = x;
	return v;
}

static const struct fs_value v_null = {.kind = FS_V_NULL};

static void emit_sec(struct fs_series *s, const struct sec *c)
{
	const struct fs_rollup_col *cl;
	struct fs_value v[FS_SERIES_MAX_COLS];
	int n = 0, want = fs_series_columns(&cl);
	v[n++] = v_int(c->k);
	v[n++] = v_int(c->n);
	v[n++] = c->n ? v_real(c->dt) : v_null;
	v[n++] = c->n ? v_int(c->gpus) : v_null;
	v[n++] = v_int(c->steps);
	v[n++] = c->has_wait ? v_real(c->wait) : v_null;
	v[n++] = c->has_wait ? v_real(c->wait_max) : v_null;
	v[n++] = c->has_compute ? v_real(c->compute) : v_null;
	for (int m = 0; m < FS_SM__COUNT; m++) {
		const struct secm *a = &c->m[m];
		double mean = a->sw > 0 ? a->sxw / a->sw : a->cnt > 0 ? a->sx / a->cnt : NAN;
		double (*r)(double) = in_bytes[m] ? round : NULL;
		v[n++] = v_real(r ? r(mean) : mean);
		if (has_min[m])
			v[n++] = a->cnt > 0 ? v_real(r ? r(a->mn) : a->mn) : v_null;
		if (ranged((enum fs_series_measure)m))
			v[n++] = a->cnt > 0 ? v_real(r ? r(a->mx) : a->mx) : v_null;
	}
	if (n == want)
		s->emit(s->ctx, v, n);
}

/* Write the seconds before upto (those that had anything) and let them go. */
static void advance(struct fs_series *s, long upto)
{
	if (s->lo < 0 || upto <= s->lo)
		return;
	long end = upto - s->lo > FS_SERIES_RING ? s->lo + FS_SERIES_RING : upto;
	for (long k = s->lo; k < end; k++) {
		struct sec *c = &s->ring[k % FS_SERIES_RING];
		if (c->used && c->k == k)
			emit_sec(s, c);
		c->used = false;
	}
	s->lo = upto;
}

/* Second k's slot (k >= lo); the ring moves on when k is past it. */
static struct sec *slot(struct fs_series *s, long k)
{
	if (s->lo < 0)
		s->lo = k;
	if (k >= s->lo + FS_SERIES_RING)
		advance(s, k - FS_SERIES_RING + 1);
	struct sec *c = &s->ring[k % FS_SERIES_RING];
	if (!c->used || c->k != k)
		reset_sec(c, k);
	return c;
}

/* The tick's staged measures into second k's, weighted by w; those with
 * an interval of their own, by it, into the second its middle falls in. */
static void commit_tick(struct fs_series *s, long k, double w)
{
	if (s->lo >= 0 && k < s->lo)
		k = s->lo; /* never before a second already written */
	struct sec *c = slot(s, k);
	c->n++;
	c->dt += w;
	if (s->tick_gpus > c->gpus)
		c->gpus = s->tick_gpus;
	for (int m = 0; m < FS_SM__COUNT; m++) {
		const struct tickm *t = &s->tick[m];
		if (t->cnt <= 0)
			continue;
		double wm = w;
		struct sec *cm = c;
		if (t->w > 0) {
			long km = second_of(s->staged_t - t->w / 2);
			wm = t->w;
			cm = slot(s, km < s->lo ? s->lo : km > k ? k : km);
		}
		double x = t->sum / t->cnt, lo = t->mn, hi = t->mx;
		if (combine_of[m] == C_MAX)
			x = lo = hi = t->mx;
		else if (combine_of[m] == C_SUM)
			x = lo = hi = t->sum;
		struct secm *a = &cm->m[m];
		a->sxw += x * wm;
		a->sw += wm;
		a->sx += x;
		a->cnt += 1;
		a->mn = fmin(a->mn, lo);
		a->mx = fmax(a->mx, hi);
	}
	reset_tick(s);
}

static void stage(struct fs_series *s, enum fs_series_measure m, const struct fs_value *v)
{
	double x;
	if (!fs_value_num(v, &x) || !isfinite(x))
		return;
	struct tickm *t = &s->tick[m];
	t->sum += x;
	t->cnt += 1;
	t->mn = fmin(t->mn, x);
	t->mx = fmax(t->mx, x);
	t->w = s->row_w;
}

static void stage_x(struct fs_series *s, enum fs_series_measure m, double x)
{
	struct fs_value v = v_real(x);
	stage(s, m, &v);
}

static bool text_is(const struct fs_value *v, const char *s)
{
	return v->kind == FS_V_TEXT && !strcmp(v->s, s);
}

static void fold_step(struct fs_series *s, const struct fs_row *r)
{
	double t, wait, comp;
	if (!fs_value_num(&r->v[FS_STEPS_t], &t) || !isfinite(t))
		return;
	long k = second_of(t);
	if (s->lo >= 0 && k < s->lo) {
		s->late++;
		return;
	}
	struct sec *c = slot(s, k);
	c->steps++;
	if (fs_value_num(&r->v[FS_STEPS_wait_s], &wait) && isfinite(wait)) {
		c->wait += wait;
		c->wait_max = fmax(c->wait_max, wait);
		c->has_wait = true;
	}
	if (fs_value_num(&r->v[FS_STEPS_compute_s], &comp) && isfinite(comp)) {
		c->compute += comp;
		c->has_compute = true;
	}
}

static void fold_proc(struct fs_series *s, const struct fs_row *r)
{
	static const int state_col[4] = {FS_PROC_running, FS_PROC_blocked_io, FS_PROC_sleeping, FS_PROC_other};
	int first;
	if (text_is(&r->v[FS_PROC_role], "main"))
		first = FS_SM_main_running;
	else if (text_is(&r->v[FS_PROC_role], "worker"))
		first = FS_SM_worker_running;
	else
		return;
	for (int i = 0; i < 4; i++)
		stage(s, (enum fs_series_measure)(first + i), &r->v[state_col[i]]);
}

void fs_series_row(struct fs_series *s, const struct fs_row *r)
{
	if (r->table == FS_T_STEPS) {
		fold_step(s, r);
		return;
	}
	if (!fs_tables[r->table].sampled || r->v[0].kind != FS_V_REAL)
		return;
	const struct fs_value *v = r->v;
	double idle, iow;
	int own = fs_table_own_dt(r->table);
	if (!own || !fs_value_num(&v[own], &s->row_w) || !(s->row_w > 0))
		s->row_w = 0;
	switch (r->table) {
	case FS_T_TICKS: {
		double dt;
		long k = second_of(v[0].d);
		commit_tick(s, k, fs_value_num(&v[FS_TICKS_dt_s], &dt) && dt > 0 ? dt : 0);
		advance(s, second_of(v[0].d - FS_ROLLUP_STEP_GRACE_S));
		return;
	}
	case FS_T_GPU:
		stage(s, FS_SM_gpu_util, &v[FS_GPU_util_pct]);
		s->tick_gpus++;
		break;
	case FS_T_CPU:
		if (fs_value_num(&v[FS_CPU_idle_pct], &idle) && fs_value_num(&v[FS_CPU_iowait_pct], &iow))
			stage_x(s, FS_SM_cpu_busy, 100 - idle - iow);
		stage(s, FS_SM_cpu_iowait, &v[FS_CPU_iowait_pct]);
		break;
	case FS_T_PSI:
		if (text_is(&v[FS_PSI_resource], "cpu"))
			stage(s, FS_SM_psi_cpu_some, &v[FS_PSI_some_pct]);
		else if (text_is(&v[FS_PSI_resource], "io")) {
			stage(s, FS_SM_psi_io_some, &v[FS_PSI_some_pct]);
			stage(s, FS_SM_psi_io_full, &v[FS_PSI_full_pct]);
		} else if (text_is(&v[FS_PSI_resource], "memory"))
			stage(s, FS_SM_psi_memory_some, &v[FS_PSI_some_pct]);
		break;
	case FS_T_DISK:
		stage(s, FS_SM_disk_read, &v[FS_DISK_read_bytes_per_s]);
		stage(s, FS_SM_disk_write, &v[FS_DISK_write_bytes_per_s]);
		stage(s, FS_SM_disk_util, &v[FS_DISK_util_pct]);
		break;
	case FS_T_NET:
		stage(s, FS_SM_net_rx, &v[FS_NET_rx_bytes_per_s]);
		stage(s, FS_SM_net_tx, &v[FS_NET_tx_bytes_per_s]);
		break;
	case FS_T_MEM:
		stage(s, FS_SM_mem_available, &v[FS_MEM_available_bytes]);
		stage(s, FS_SM_mem_cached, &v[FS_MEM_cached_bytes]);
		stage(s, FS_SM_mem_dirty, &v[FS_MEM_dirty_bytes]);
		break;
	case FS_T_PROC:
		fold_proc(s, r);
		break;
	default:
		return;
	}
	s->staged = true;
	s->staged_t = v[0].d;
}

struct fs_series *fs_series_new(fs_series_emit emit, void *ctx)
{
	struct fs_series *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->emit = emit;
	s->ctx = ctx;
	s->lo = -1;
	reset_tick(s);
	return s;
}

void fs_series_flush(struct fs_series *s)
{
	if (s->staged) /* a tick whose ticks row never came */
		commit_tick(s, second_of(s->staged_t), 0);
	if (s->lo >= 0)
		advance(s, s->lo + FS_SERIES_RING);
}

uint64_t fs_series_late(const struct fs_series *s)
{
	return s->late;
}

void fs_series_free(struct fs_series *s)
{
	free(s);
}
