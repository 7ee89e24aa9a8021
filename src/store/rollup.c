#include "store/rollup.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/schema.h"

/* What a tier table is made of: the base table, its key columns, the
 * columns summed rather than averaged, and the columns left out. */
struct spec {
	enum fs_table_id base;
	const char *name;
	int keys[4], nkeys;
	int sums[10], nsums;
	int skip; /* a base column not carried (ticks.dt_s: it is the weight), or -1 */
};

static const struct spec specs[FS_RT__COUNT] = {
	[FS_RT_TICKS] = {FS_T_TICKS, "ticks_1m", {0}, 0, {FS_TICKS_missed, FS_TICKS_cpu_us}, 2, FS_TICKS_dt_s},
	[FS_RT_CPU] = {FS_T_CPU, "cpu_1m", {0}, 0, {0}, 0, -1},
	[FS_RT_CPU_CORE] = {FS_T_CPU_CORE, "cpu_core_1m", {FS_CPU_CORE_cpu}, 1, {0}, 0, -1},
	[FS_RT_PSI] = {FS_T_PSI, "psi_1m", {FS_PSI_resource}, 1, {0}, 0, -1},
	[FS_RT_MEM] = {FS_T_MEM, "mem_1m", {0}, 0, {0}, 0, -1},
	[FS_RT_DISK] = {FS_T_DISK, "disk_1m", {FS_DISK_device}, 1, {0}, 0, -1},
	[FS_RT_NET] = {FS_T_NET, "net_1m", {FS_NET_iface}, 1, {0}, 0, -1},
	[FS_RT_TCP] = {FS_T_TCP, "tcp_1m", {0}, 0, {0}, 0, -1},
	[FS_RT_NFS] = {FS_T_NFS, "nfs_1m", {FS_NFS_mount, FS_NFS_server}, 2, {0}, 0, -1},
	[FS_RT_PROC] = {FS_T_PROC, "proc_1m", {FS_PROC_pid, FS_PROC_ppid, FS_PROC_role, FS_PROC_comm}, 4, {0}, 0, -1},
	[FS_RT_CGROUP] = {FS_T_CGROUP, "cgroup_1m", {FS_CGROUP_path, FS_CGROUP_version}, 2, {0}, 0, -1},
	[FS_RT_GPU] = {FS_T_GPU, "gpu_1m", {FS_GPU_gpu, FS_GPU_name}, 2, {0}, 0, -1},
	[FS_RT_GPU_PROC] = {FS_T_GPU_PROC, "gpu_proc_1m", {FS_GPU_PROC_gpu, FS_GPU_PROC_pid}, 2, {0}, 0, -1},
	[FS_RT_IO_INTERVALS] = {FS_T_IO_INTERVALS, "io_intervals_1m", {FS_IO_INTERVALS_pid}, 1,
				{FS_IO_INTERVALS_io_time_s, FS_IO_INTERVALS_read_bytes, FS_IO_INTERVALS_write_bytes,
				 FS_IO_INTERVALS_ops, FS_IO_INTERVALS_meta_ops},
				5, -1},
	[FS_RT_IO_CLASSES] = {FS_T_IO_CLASSES, "io_classes_1m",
			      {FS_IO_CLASSES_pid, FS_IO_CLASSES_class, FS_IO_CLASSES_thread}, 3,
			      {FS_IO_CLASSES_read_s, FS_IO_CLASSES_read_bytes, FS_IO_CLASSES_write_s,
			       FS_IO_CLASSES_write_bytes, FS_IO_CLASSES_sync_s, FS_IO_CLASSES_meta_s, FS_IO_CLASSES_calls},
			      7, -1},
	[FS_RT_STEPS] = {FS_T_STEPS, "steps_1m", {FS_STEPS_pid, FS_STEPS_loader, FS_STEPS_epoch}, 3, {0}, 0, -1},
	[FS_RT_PHASES] = {FS_T_PHASES, "phases_1m", {FS_PHASES_pid, FS_PHASES_name}, 2, {0}, 0, -1},
};

/* Steps and phases are folded by their own time (a step's t, a phase's
 * t_end), not the recorder's minute, and have no tick length. */
static bool own_time(enum fs_rollup_table rt)
{
	return rt == FS_RT_STEPS || rt == FS_RT_PHASES;
}

/* How each base column of a tier table is carried (a machine-wide table's
 * own dt_s is its rows' weight, summed into the tier's dt_s). */
enum role { R_T, R_KEY, R_MEAN, R_SUM, R_SKIP };

static enum role role_of(const struct spec *sp, int c)
{
	if (c == 0)
		return R_T;
	if (c == sp->skip || c == fs_table_own_dt(sp->base))
		return R_SKIP;
	for (int i = 0; i < sp->nkeys; i++)
		if (sp->keys[i] == c)
			return R_KEY;
	for (int i = 0; i < sp->nsums; i++)
		if (sp->sums[i] == c)
			return R_SUM;
	return R_MEAN;
}

/* The steps' tier columns after t, n and the keys: the device's idle
 * inside the waits summed over the steps that have it, and how many do
 * (schema 12). */
enum {
	S_FIRST_STEP,
	S_LAST_STEP,
	S_WAIT,
	S_COMPUTE,
	S_WAIT_MAX,
	S_COMPUTE_MAX,
	S_FIRST_T,
	S_LAST_T,
	S_DEVICE_IDLE,
	S_DEVICE_STEPS,
	S__N
};
static const char *const step_cols[S__N][2] = {
	{"first_step", "INTEGER"},    {"last_step", "INTEGER"},     {"wait_s", "REAL"},  {"compute_s", "REAL"},
	{"wait_max_s", "REAL"},       {"compute_max_s", "REAL"},    {"first_t", "REAL"}, {"last_t", "REAL"},
	{"device_idle_s", "REAL"},    {"device_steps", "INTEGER"},
};

/* The phases' tier columns after t, n and the keys (in st[]). */
enum { P_S, P_MAX, P_FIRST_T, P_LAST_T, P__N };
static const char *const phase_cols[P__N][2] = {
	{"phase_s", "REAL"}, {"phase_max_s", "REAL"}, {"first_t", "REAL"}, {"last_t", "REAL"},
};

/* Tier column lists, made once (a static table: the same for every store). */
static struct fs_rollup_col cols[FS_RT__COUNT][FS_ROLLUP_MAX_COLS];
static int ncols[FS_RT__COUNT];

static void add_col(enum fs_rollup_table rt, const char *name, const char *suffix, const char *type)
{
	struct fs_rollup_col *c = &cols[rt][ncols[rt]++];
	snprintf(c->name, sizeof c->name, "%s%s", name, suffix);
	c->type = type;
}

static void make_cols(enum fs_rollup_table rt)
{
	if (ncols[rt])
		return;
	const struct spec *sp = &specs[rt];
	const struct fs_table *tb = &fs_tables[sp->base];
	add_col(rt, "t", "", "REAL");
	add_col(rt, "n", "", "INTEGER");
	if (!own_time(rt))
		add_col(rt, "dt_s", "", "REAL");
	for (int i = 0; i < sp->nkeys; i++)
		add_col(rt, tb->cols[sp->keys[i]].name, "", tb->cols[sp->keys[i]].type);
	if (rt == FS_RT_PHASES) {
		for (int i = 0; i < P__N; i++)
			add_col(rt, phase_cols[i][0], "", phase_cols[i][1]);
		return;
	}
	if (rt == FS_RT_STEPS) {
		for (int i = 0; i < S__N; i++)
			add_col(rt, step_cols[i][0], "", step_cols[i][1]);
		return;
	}
	for (int c = 1; c < tb->ncols; c++) {
		enum role ro = role_of(sp, c);
		if (ro == R_SUM) {
			add_col(rt, tb->cols[c].name, "", tb->cols[c].type);
		} else if (ro == R_MEAN) {
			add_col(rt, tb->cols[c].name, "", "REAL");
			add_col(rt, tb->cols[c].name, "_min", tb->cols[c].type);
			add_col(rt, tb->cols[c].name, "_max", tb->cols[c].type);
		}
	}
	if (rt == FS_RT_PROC) {
		add_col(rt, "blocked_any_pct", "", "REAL");
		add_col(rt, "running_only_pct", "", "REAL");
	}
	if (rt == FS_RT_DISK)
		add_col(rt, "read_await_reads_ms", "", "REAL");
}

const char *fs_rollup_table_name(enum fs_rollup_table rt)
{
	return specs[rt].name;
}

int fs_rollup_columns(enum fs_rollup_table rt, const struct fs_rollup_col **out)
{
	make_cols(rt);
	*out = cols[rt];
	return ncols[rt];
}

/* One value column's sums over the minute, and over the current tick
 * (staged until the tick's length is known: the ticks row comes last). */
struct colacc {
	double sxw, sw, sx, cnt; /* weighted sum, weights, plain sum, rows */
	double mn, mx;
	double tx, tc; /* this tick */
};

struct acc {
	enum fs_rollup_table rt;
	long period;           /* the minute (steps: the minute of their t) */
	struct fs_value key[4];
	uint64_t hash;
	long n, tick_rows;
	double dt;
	double blocked_any, running_only; /* proc: samples of each class */
	double await_x_reads, reads;      /* disk: read_await_ms weighted by reads_per_s */
	struct colacc *c;                 /* one per base column (index = column) */
	double st[S__N];                  /* steps (phases: the first P__N) */
	bool dirty;
	struct acc *next_hash, *next_all, *next_dirty;
};

#define NBUCKETS 1024

struct fs_rollup {
	fs_rollup_emit emit;
	void *ctx;
	struct acc *buckets[NBUCKETS];
	struct acc *all;   /* every open aggregate */
	struct acc *dirty; /* those with rows this tick */
	long period;       /* the sampled tables' open minute; -1 before any row */
	double last_tick_t;
};

static enum fs_rollup_table rt_of(enum fs_table_id t)
{
	for (int i = 0; i < FS_RT__COUNT; i++)
		if (specs[i].base == t)
			return (enum fs_rollup_table)i;
	return FS_RT__COUNT;
}

long fs_rollup_minute(double t)
{
	long p = (long)ceil(t / FS_ROLLUP_PERIOD_S) - 1;
	return p < 0 ? 0 : p;
}

#define period_of fs_rollup_minute

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t key_hash(enum fs_rollup_table rt, long period, const struct fs_row *r)
{
	const struct spec *sp = &specs[rt];
	uint64_t h = fnv(14695981039346656037ull, &rt, sizeof rt);
	h = fnv(h, &period, sizeof period);
	for (int i = 0; i < sp->nkeys; i++) {
		const struct fs_value *v = &r->v[sp->keys[i]];
		h = fnv(h, &v->kind, sizeof v->kind);
		if (v->kind == FS_V_INT)
			h = fnv(h, &v->i, sizeof v->i);
		else if (v->kind == FS_V_TEXT)
			h = fnv(h, v->s, strlen(v->s));
		else if (v->kind == FS_V_REAL)
			h = fnv(h, &v->d, sizeof v->d);
	}
	return h;
}

static bool same_value(const struct fs_value *a, const struct fs_value *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case FS_V_INT:
		return a->i == b->i;
	case FS_V_REAL:
		return a->d == b->d;
	case FS_V_TEXT:
		return !strcmp(a->s, b->s);
	default:
		return true;
	}
}

static struct acc *find(struct fs_rollup *ru, enum fs_rollup_table rt, long period, const struct fs_row *r)
{
	const struct spec *sp = &specs[rt];
	uint64_t h = key_hash(rt, period, r);
	struct acc **b = &ru->buckets[h % NBUCKETS];
	for (struct acc *a = *b; a; a = a->next_hash) {
		if (a->hash != h || a->rt != rt || a->period != period)
			continue;
		bool same = true;
		for (int i = 0; i < sp->nkeys && same; i++)
			same = same_value(&a->key[i], &r->v[sp->keys[i]]);
		if (same)
			return a;
	}
	struct acc *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->c = calloc((size_t)fs_tables[sp->base].ncols, sizeof *a->c);
	if (!a->c) {
		free(a);
		return NULL;
	}
	a->rt = rt;
	a->period = period;
	a->hash = h;
	for (int i = 0; i < sp->nkeys; i++) {
		a->key[i] = r->v[sp->keys[i]];
		if (a->key[i].kind == FS_V_TEXT && !(a->key[i].s = strdup(a->key[i].s)))
			a->key[i].kind = FS_V_NULL;
	}
	for (int c = 0; c < fs_tables[sp->base].ncols; c++) {
		a->c[c].mn = INFINITY;
		a->c[c].mx = -INFINITY;
	}
	a->st[S_WAIT] = a->st[S_COMPUTE] = a->st[S_DEVICE_IDLE] = NAN;
	a->st[S_DEVICE_STEPS] = 0;
	a->st[S_FIRST_STEP] = a->st[S_FIRST_T] = INFINITY;
	a->st[S_LAST_STEP] = a->st[S_LAST_T] = a->st[S_WAIT_MAX] = a->st[S_COMPUTE_MAX] = -INFINITY;
	if (rt == FS_RT_PHASES) {
		a->st[P_S] = 0;
		a->st[P_MAX] = a->st[P_LAST_T] = -INFINITY;
		a->st[P_FIRST_T] = INFINITY;
	}
	a->next_hash = *b;
	*b = a;
	a->next_all = ru->all;
	ru->all = a;
	return a;
}

/* sum, of cnt values, into the minute's sums, each weighted by w. */
static void fold(struct colacc *k, double sum, double cnt, double w)
{
	k->sxw += sum * w;
	k->sw += cnt * w;
	k->sx += sum;
	k->cnt += cnt;
}

/* The tick's staged values into the minute's sums, weighted by w. */
static void commit_tick(struct fs_rollup *ru, double w)
{
	for (struct acc *a = ru->dirty; a; a = a->next_dirty) {
		int n = fs_tables[specs[a->rt].base].ncols;
		for (int c = 0; c < n; c++) {
			struct colacc *k = &a->c[c];
			if (k->tc > 0) {
				fold(k, k->tx, k->tc, w);
				k->tx = k->tc = 0;
			}
		}
		a->n += a->tick_rows;
		a->tick_rows = 0;
		a->dt += w;
		a->dirty = false;
	}
	ru->dirty = NULL;
}

static struct fs_value v_real(double x)
{
	struct fs_value v = {.kind = isfinite(x) ? FS_V_REAL : FS_V_NULL};
	v.d = x;
	return v;
}

static struct fs_value v_typed(double x, const char *type)
{
	if (!isfinite(x))
		return (struct fs_value){.kind = FS_V_NULL};
	if (!strcmp(type, "INTEGER")) {
		struct fs_value v = {.kind = FS_V_INT};
		v.i = llround(x);
		return v;
	}
	return v_real(x);
}

static void emit_acc(struct fs_rollup *ru, struct acc *a)
{
	const struct spec *sp = &specs[a->rt];
	const struct fs_table *tb = &fs_tables[sp->base];
	struct fs_value v[FS_ROLLUP_MAX_COLS];
	int n = 0;
	make_cols(a->rt);
	v[n++] = v_real((double)(a->period + 1) * FS_ROLLUP_PERIOD_S);
	v[n++] = v_typed((double)a->n, "INTEGER");
	if (!own_time(a->rt))
		v[n++] = v_real(a->dt);
	for (int i = 0; i < sp->nkeys; i++)
		v[n++] = a->key[i];
	if (a->rt == FS_RT_PHASES) {
		for (int i = 0; i < P__N; i++)
			v[n++] = v_typed(a->st[i], phase_cols[i][1]);
	} else if (a->rt == FS_RT_STEPS) {
		for (int i = 0; i < S__N; i++)
			v[n++] = v_typed(a->st[i], step_cols[i][1]);
	} else {
		for (int c = 1; c < tb->ncols; c++) {
			const struct colacc *k = &a->c[c];
			enum role ro = role_of(sp, c);
			if (ro == R_SUM) {
				v[n++] = k->cnt > 0 ? v_typed(k->sx, tb->cols[c].type) : (struct fs_value){.kind = FS_V_NULL};
			} else if (ro == R_MEAN) {
				double mean = k->sw > 0 ? k->sxw / k->sw : k->cnt > 0 ? k->sx / k->cnt : NAN;
				v[n++] = v_real(mean);
				v[n++] = v_typed(k->mn, tb->cols[c].type);
				v[n++] = v_typed(k->mx, tb->cols[c].type);
			}
		}
		if (a->rt == FS_RT_PROC) {
			v[n++] = v_real(a->n > 0 ? 100.0 * a->blocked_any / (double)a->n : NAN);
			v[n++] = v_real(a->n > 0 ? 100.0 * a->running_only / (double)a->n : NAN);
		}
		if (a->rt == FS_RT_DISK)
			v[n++] = v_real(a->reads > 0 ? a->await_x_reads / a->reads : NAN);
	}
	ru->emit(ru->ctx, a->rt, v, n);
}

static void free_acc(struct acc *a)
{
	for (int i = 0; i < 4; i++)
		if (a->key[i].kind == FS_V_TEXT)
			free((char *)a->key[i].s);
	free(a->c);
	free(a);
}

/* Emit and drop the aggregates `which` selects: the sampled tables' (the
 * minute ended), the steps' and phases' of minutes that ended
 * FS_ROLLUP_STEP_GRACE_S before `before`, or all. */
enum which { W_SAMPLED, W_STEPS_BEFORE, W_ALL };

static void flush(struct fs_rollup *ru, enum which w, double before)
{
	if (w != W_STEPS_BEFORE)
		commit_tick(ru, 0); /* rows of a tick whose ticks row never came */
	struct acc **pp = &ru->all;
	while (*pp) {
		struct acc *a = *pp;
		bool go = w == W_ALL ||
			  (w == W_SAMPLED && !own_time(a->rt)) ||
			  (w == W_STEPS_BEFORE && own_time(a->rt) &&
			   (double)(a->period + 1) * FS_ROLLUP_PERIOD_S + FS_ROLLUP_STEP_GRACE_S < before);
		if (!go) {
			pp = &a->next_all;
			continue;
		}
		*pp = a->next_all;
		if (a->n > 0 || !own_time(a->rt))
			emit_acc(ru, a);
		struct acc **hb = &ru->buckets[a->hash % NBUCKETS];
		while (*hb != a)
			hb = &(*hb)->next_hash;
		*hb = a->next_hash;
		free_acc(a);
	}
}

static void fold_step(struct fs_rollup *ru, const struct fs_row *r)
{
	double t, wait, comp, step, idle;
	if (r->v[0].kind != FS_V_REAL)
		return;
	t = r->v[0].d;
	struct acc *a = find(ru, FS_RT_STEPS, period_of(t), r);
	if (!a)
		return;
	a->n++;
	bool hw = fs_value_num(&r->v[FS_STEPS_wait_s], &wait), hc = fs_value_num(&r->v[FS_STEPS_compute_s], &comp);
	if (fs_value_num(&r->v[FS_STEPS_step], &step)) {
		a->st[S_FIRST_STEP] = fmin(a->st[S_FIRST_STEP], step);
		a->st[S_LAST_STEP] = fmax(a->st[S_LAST_STEP], step);
	}
	if (hw) {
		a->st[S_WAIT] = (isfinite(a->st[S_WAIT]) ? a->st[S_WAIT] : 0) + wait;
		a->st[S_WAIT_MAX] = fmax(a->st[S_WAIT_MAX], wait);
	}
	if (hc) {
		a->st[S_COMPUTE] = (isfinite(a->st[S_COMPUTE]) ? a->st[S_COMPUTE] : 0) + comp;
		a->st[S_COMPUTE_MAX] = fmax(a->st[S_COMPUTE_MAX], comp);
	}
	if (fs_value_num(&r->v[FS_STEPS_device_idle_s], &idle)) {
		a->st[S_DEVICE_IDLE] = (isfinite(a->st[S_DEVICE_IDLE]) ? a->st[S_DEVICE_IDLE] : 0) + idle;
		a->st[S_DEVICE_STEPS] += 1;
	}
	a->st[S_FIRST_T] = fmin(a->st[S_FIRST_T], hw ? t - wait : t);
	a->st[S_LAST_T] = fmax(a->st[S_LAST_T], hc ? t + comp : t);
}

/* A phase into the minute of its end: its length summed, the longest,
 * the first start and the last end. */
static void fold_phase(struct fs_rollup *ru, const struct fs_row *r)
{
	double a0, a1;
	if (!fs_value_num(&r->v[FS_PHASES_t_start], &a0) || !fs_value_num(&r->v[FS_PHASES_t_end], &a1) ||
	    !isfinite(a0) || !isfinite(a1))
		return;
	struct acc *a = find(ru, FS_RT_PHASES, period_of(a1), r);
	if (!a)
		return;
	a->n++;
	double len = a1 > a0 ? a1 - a0 : 0;
	a->st[P_S] += len;
	a->st[P_MAX] = fmax(a->st[P_MAX], len);
	a->st[P_FIRST_T] = fmin(a->st[P_FIRST_T], a0);
	a->st[P_LAST_T] = fmax(a->st[P_LAST_T], a1);
}

void fs_rollup_row(struct fs_rollup *ru, const struct fs_row *r)
{
	enum fs_rollup_table rt = rt_of(r->table);
	if (rt == FS_RT__COUNT)
		return;
	if (rt == FS_RT_STEPS) {
		fold_step(ru, r);
		return;
	}
	if (rt == FS_RT_PHASES) {
		fold_phase(ru, r);
		return;
	}
	if (r->v[0].kind != FS_V_REAL)
		return;
	double t = r->v[0].d;
	long p = period_of(t);
	if (ru->period < 0)
		ru->period = p;
	else if (p > ru->period) {
		flush(ru, W_SAMPLED, 0);
		ru->period = p;
	}
	struct acc *a = find(ru, rt, ru->period, r);
	if (!a)
		return;
	const struct spec *sp = &specs[rt];
	int n = fs_tables[sp->base].ncols;
	/* A row with its own interval weighs by it, at once; the others wait
	 * for their tick's length */
	double w = 0;
	int od = fs_table_own_dt(sp->base);
	bool own = od && fs_value_num(&r->v[od], &w) && w > 0;
	for (int c = 1; c < n; c++) {
		enum role ro = role_of(sp, c);
		double x;
		if ((ro != R_MEAN && ro != R_SUM) || !fs_value_num(&r->v[c], &x))
			continue;
		struct colacc *k = &a->c[c];
		if (own) {
			fold(k, x, 1, w);
		} else {
			k->tx += x;
			k->tc += 1;
		}
		k->mn = fmin(k->mn, x);
		k->mx = fmax(k->mx, x);
	}
	if (rt == FS_RT_PROC) {
		double blk = 0, run = 0;
		fs_value_num(&r->v[FS_PROC_blocked_io], &blk);
		fs_value_num(&r->v[FS_PROC_running], &run);
		/* as the analysis classes a sample (metricdefs_table.c): on /proc rows
		 * (counts) 0 or 1; on BPF rows (mean threads in each state over
		 * the tick) the share of it, at most 1 */
		double b = fmin(fmax(blk, 0), 1), rn = fmin(fmax(run, 0), 1);
		a->blocked_any += b;
		a->running_only += rn * (1 - b);
	}
	if (rt == FS_RT_DISK) {
		double aw, rd;
		if (fs_value_num(&r->v[FS_DISK_read_await_ms], &aw) && fs_value_num(&r->v[FS_DISK_reads_per_s], &rd) && rd > 0) {
			a->await_x_reads += aw * rd;
			a->reads += rd;
		}
	}
	if (own) {
		a->n++;
		a->dt += w;
		return;
	}
	a->tick_rows++;
	if (!a->dirty) {
		a->dirty = true;
		a->next_dirty = ru->dirty;
		ru->dirty = a;
	}
	if (rt == FS_RT_TICKS) {
		double dt;
		commit_tick(ru, fs_value_num(&r->v[FS_TICKS_dt_s], &dt) && dt > 0 ? dt : 0);
		ru->last_tick_t = t;
		flush(ru, W_STEPS_BEFORE, t);
	}
}

struct fs_rollup *fs_rollup_new(fs_rollup_emit emit, void *ctx)
{
	struct fs_rollup *ru = calloc(1, sizeof *ru);
	if (!ru)
		return NULL;
	ru->emit = emit;
	ru->ctx = ctx;
	ru->period = -1;
	return ru;
}

void fs_rollup_flush(struct fs_rollup *ru)
{
	flush(ru, W_ALL, 0);
}

void fs_rollup_free(struct fs_rollup *ru)
{
	if (!ru)
		return;
	while (ru->all) {
		struct acc *a = ru->all;
		ru->all = a->next_all;
		free_acc(a);
	}
	free(ru);
}
