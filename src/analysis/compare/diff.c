/* diff.c - two runs compared (diff.h; docs/verdicts.md, "diff"). */
#include "analysis/compare/diff.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/load/metricdefs.h"
#include "analysis/load/query.h"
#include "util/text.h"

/* The environment: meta keys feedscope writes about the machine and the
 * recording (docs/schema.md), besides loader.* and probe.*. */
static const char *const env_keys[] = {
	"command", "hook", "hook.pytorch", "hostname", "kernel", "kernel_version", "arch",
	"ncpu", "mem_bytes", "interval_s", "trace", "feedscope_version",
};
#define NENV (sizeof env_keys / sizeof env_keys[0])

static bool is_env_key(const char *key)
{
	for (size_t i = 0; i < NENV; i++)
		if (!strcmp(key, env_keys[i]))
			return true;
	return !strncmp(key, "probe.", 6);
}

int fs_diff_meta_load(const char *path, struct fs_diff_meta *meta, char *err, size_t errlen)
{
	memset(meta, 0, sizeof *meta);
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	/* LIKE's '_' and '%' are wildcards, '.' is not: the prefixes are exact
	 * up to their dot; the rest is filtered in C */
	sqlite3_stmt *st = fs_q_prep(&q, "SELECT key, value FROM meta WHERE key LIKE 'loader.%' OR key LIKE 'probe.%'"
					  " OR key NOT LIKE '%.%' OR key = 'hook.pytorch' ORDER BY key");
	while (fs_q_step(&q, st)) {
		const char *key = fs_q_col_text(st, 0);
		if (strncmp(key, "loader.", 7) && !is_env_key(key))
			continue;
		if (meta->n == FS_DIFF_MAX_META) {
			meta->cut = true;
			continue;
		}
		struct fs_diff_kv *kv = &meta->kv[meta->n++];
		snprintf(kv->key, sizeof kv->key, "%s", key);
		snprintf(kv->value, sizeof kv->value, "%s", fs_q_col_text(st, 1));
	}
	sqlite3_finalize(st);
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}

static const struct fs_diff_kv *find(const struct fs_diff_meta *m, const char *key)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return &m->kv[i];
	return NULL;
}

/* ---- the two sides ---- */

static void side_of(const struct fs_merged *g, struct fs_diff_side *s)
{
	const struct fs_metrics *m = &g->m;
	const struct fs_verdict *v = &g->v;
	memset(s, 0, sizeof *s);
	s->verdict = v->primary;
	s->input_bound = v->input_bound_fraction;
	s->confidence = v->confidence;
	s->predicted_speedup = v->predicted_speedup;
	snprintf(s->basis, sizeof s->basis, "%s", v->basis);
	s->incomplete = m->incomplete;
	const struct fs_accounting *A = fs_verdict_trainer(v);
	s->acct_valid = A && A->valid;
	for (int b = 0; b < FS_BUCKET__N; b++)
		s->share[b] = s->acct_valid ? A->share[b] : NAN;
	if (s->acct_valid)
		snprintf(s->acct_basis, sizeof s->acct_basis, "%s", A->basis);
	snprintf(s->loader, sizeof s->loader, "%s", m->loader);
	const struct fs_loop_proc *L = fs_metrics_trainer(m);
	bool steps = L && L->have_steps && L->steps > 0 && L->loop_s > 0;
	s->steps = L ? L->steps : 0;
	s->loop_s = L ? L->loop_s : NAN;
	s->step_s = steps ? L->loop_s / (double)L->steps : NAN;
	s->batch_size = m->batch_size;
	s->samples_per_s = steps && m->batch_size > 0 ? (double)L->steps * m->batch_size / L->loop_s : NAN;
}

/* a and b differ by at least FS_DIFF_CHANGED of scale (both known). */
static bool changed(double a, double b, double scale)
{
	return isfinite(a) && isfinite(b) && fabs(b - a) >= FS_DIFF_CHANGED * scale;
}

static double ratio(double a, double b)
{
	return isfinite(a) && isfinite(b) && a != 0 ? b / a : NAN;
}

static void compare_speed(struct fs_diff *d)
{
	d->step_ratio = ratio(d->a.step_s, d->b.step_s);
	d->samples_ratio = ratio(d->a.samples_per_s, d->b.samples_per_s);
	d->step_changed = changed(d->a.step_s, d->b.step_s, fmax(d->a.step_s, d->b.step_s));
	/* a step of 64 samples against one of 32: per step says nothing */
	d->by_samples = d->a.batch_size > 0 && d->b.batch_size > 0 && d->a.batch_size != d->b.batch_size &&
			isfinite(d->samples_ratio);
	if (d->by_samples)
		d->step_changed = changed(d->a.samples_per_s, d->b.samples_per_s,
					  fmax(d->a.samples_per_s, d->b.samples_per_s));
}

static void compare_buckets(struct fs_diff *d)
{
	d->largest_bucket = -1;
	for (int b = 0; b < FS_BUCKET__N; b++) {
		d->bucket_change[b] = d->a.acct_valid && d->b.acct_valid ? d->b.share[b] - d->a.share[b] : NAN;
		if (b == FS_BUCKET_BUSY || !isfinite(d->bucket_change[b]))
			continue; /* busy is what the idle buckets leave: the cause is one of them */
		if (d->largest_bucket < 0 || fabs(d->bucket_change[b]) > fabs(d->bucket_change[d->largest_bucket]))
			d->largest_bucket = b;
	}
	d->bucket_moved = false;
	for (int b = 0; b < FS_BUCKET__N; b++)
		d->bucket_moved |= changed(d->a.share[b], d->b.share[b], 1);
}

/* ---- meta: knobs and environment ---- */

static struct fs_diff_pair *add_pair(struct fs_diff *d, bool knob, const char *key, const struct fs_diff_kv *a,
				     const struct fs_diff_kv *b)
{
	if (a && b && !strcmp(a->value, b->value))
		return NULL;
	int *n = knob ? &d->nknobs : &d->nenv;
	struct fs_diff_pair *list = knob ? d->knobs : d->env;
	if (*n == FS_DIFF_MAX_PAIRS) {
		d->pairs_cut = true;
		return NULL;
	}
	struct fs_diff_pair *p = &list[(*n)++];
	memset(p, 0, sizeof *p);
	snprintf(p->key, sizeof p->key, "%s", key);
	p->in_a = a != NULL;
	p->in_b = b != NULL;
	snprintf(p->a, sizeof p->a, "%s", a ? a->value : "");
	snprintf(p->b, sizeof p->b, "%s", b ? b->value : "");
	return p;
}

/* The knob of key under loader prefix ("loader.train."), or NULL. */
static const char *knob_of(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return prefix[0] && !strncmp(key, prefix, n) && !strchr(key + n, '.') ? key + n : NULL;
}

/* The two main loaders' knobs, matched by knob name (a loader may be named
 * differently in each run: ImageFolder, ImageFolder_2): those that differ. */
static void main_knobs(struct fs_diff *d, const struct fs_diff_meta *ma, const struct fs_diff_meta *mb,
		       const char *pa, const char *pb)
{
	char key[160];
	for (int i = 0; i < ma->n; i++) {
		const char *k = knob_of(ma->kv[i].key, pa);
		if (!k)
			continue;
		snprintf(key, sizeof key, "%s%s", pb, k);
		struct fs_diff_pair *p = add_pair(d, true, k, &ma->kv[i], pb[0] ? find(mb, key) : NULL);
		if (p)
			p->main_knob = true;
	}
	for (int i = 0; i < mb->n; i++) {
		const char *k = knob_of(mb->kv[i].key, pb);
		if (!k)
			continue;
		snprintf(key, sizeof key, "%s%s", pa, k);
		struct fs_diff_pair *p = pa[0] && find(ma, key) ? NULL : add_pair(d, true, k, NULL, &mb->kv[i]);
		if (p)
			p->main_knob = true;
	}
}

/* Every other key compared by its name: in a, then in b only. knobs
 * picks loader.* keys (not the main loaders') or the environment's. */
static void other_keys(struct fs_diff *d, const struct fs_diff_meta *ma, const struct fs_diff_meta *mb,
		       const char *pa, const char *pb, bool knobs)
{
	for (int side = 0; side < 2; side++) {
		const struct fs_diff_meta *m = side ? mb : ma, *o = side ? ma : mb;
		for (int i = 0; i < m->n; i++) {
			const char *key = m->kv[i].key;
			bool loader = !strncmp(key, "loader.", 7);
			if (loader != knobs || knob_of(key, pa) || knob_of(key, pb))
				continue;
			const struct fs_diff_kv *other = find(o, key);
			if (side && other)
				continue; /* seen from a */
			add_pair(d, knobs, key, side ? other : &m->kv[i], side ? &m->kv[i] : other);
		}
	}
}

static void compare_meta(struct fs_diff *d, const struct fs_diff_meta *ma, const struct fs_diff_meta *mb)
{
	char pa[80] = "", pb[80] = "";
	if (d->a.loader[0])
		snprintf(pa, sizeof pa, "loader.%s.", d->a.loader);
	if (d->b.loader[0])
		snprintf(pb, sizeof pb, "loader.%s.", d->b.loader);
	main_knobs(d, ma, mb, pa, pb);
	other_keys(d, ma, mb, pa, pb, true);
	other_keys(d, ma, mb, pa, pb, false);
	d->pairs_cut |= ma->cut || mb->cut;
}

/* ---- resources ---- */

enum fig_key { KEY_NONE, KEY_DISK, KEY_NIC };

/* A figure of struct fs_metrics and the metric definition it was loaded
 * through (so its name and unit are that definition's). */
struct figdef {
	bool keyed;
	int id;           /* enum fs_md_id, or fs_mdk_id when keyed */
	enum fig_key key;
	size_t off;       /* of the double in struct fs_metrics */
	double scale;     /* to the definition's unit (gpu_busy is 0..1, the definition %) */
};

#define FIG(k, id, key, field, scale) {k, id, key, offsetof(struct fs_metrics, field), scale}
static const struct figdef figdefs[] = {
	FIG(false, FS_MD_CPU_BUSY_PCT, KEY_NONE, cpu_busy_pct, 1),
	FIG(false, FS_MD_CPU_IOWAIT_PCT, KEY_NONE, cpu_iowait_pct, 1),
	FIG(false, FS_MD_PSI_CPU_SOME_PCT, KEY_NONE, psi_cpu, 1),
	FIG(false, FS_MD_PSI_IO_SOME_PCT, KEY_NONE, psi_io, 1),
	FIG(false, FS_MD_PSI_MEMORY_SOME_PCT, KEY_NONE, psi_mem, 1),
	FIG(false, FS_MD_CGROUP_THROTTLED_PCT, KEY_NONE, cg_throttled_pct, 1),
	FIG(false, FS_MD_MEM_AVAILABLE_MIN_BYTES, KEY_NONE, mem_available_min_bytes, 1),
	FIG(false, FS_MD_PAGE_CACHE_MAX_BYTES, KEY_NONE, cached_max_bytes, 1),
	FIG(false, FS_MD_MAJOR_FAULTS_PER_S, KEY_NONE, majflt_per_s, 1),
	FIG(false, FS_MD_GPU_UTIL_PCT, KEY_NONE, gpu_busy, 100),
	FIG(true, FS_MDK_DISK_READ_BYTES_PER_S, KEY_DISK, disk_read_bytes_per_s, 1),
	FIG(true, FS_MDK_DISK_UTIL_PCT, KEY_DISK, disk_util_pct, 1),
	FIG(true, FS_MDK_DISK_READS_PER_S, KEY_DISK, disk_iops, 1),
	FIG(true, FS_MDK_DISK_READ_REQ_BYTES, KEY_DISK, disk_req_bytes, 1),
	FIG(true, FS_MDK_DISK_READ_AWAIT_MS, KEY_DISK, disk_await_ms, 1),
	FIG(true, FS_MDK_NIC_RX_BYTES_PER_S, KEY_NIC, nic_rx_bytes_per_s, 1),
};
#define NFIGDEFS (sizeof figdefs / sizeof figdefs[0])
_Static_assert(NFIGDEFS <= FS_DIFF_MAX_FIGURES, "every figure fits in struct fs_diff");

/* The scale a change is measured on, by unit (docs/verdicts.md, "diff"):
 * a share's is the whole (100 points); anything else's the larger value,
 * but at least a level below which the figure is noise (a few major faults
 * a second, a latency under a millisecond). */
static double scale_of(const char *unit, double a, double b)
{
	static const struct {
		const char *unit;
		double idle;
	} floors[] = {{"1/s", 10}, {"ms", 1}};
	if (!strcmp(unit, "%"))
		return 100;
	double s = fmax(fabs(a), fabs(b));
	for (size_t i = 0; i < sizeof floors / sizeof floors[0]; i++)
		if (!strcmp(unit, floors[i].unit))
			return fmax(s, floors[i].idle);
	return s;
}

static double value_of(const struct fs_metrics *m, const struct figdef *f)
{
	double v;
	memcpy(&v, (const char *)m + f->off, sizeof v);
	return isfinite(v) ? v * f->scale : NAN;
}

/* "vda", or "vda → vdb" when the runs' data lie on different devices. */
static void key_of(char *out, size_t cap, const struct fs_metrics *a, const struct fs_metrics *b, enum fig_key k)
{
	const char *ka = k == KEY_DISK ? a->disk : k == KEY_NIC ? a->nic : "";
	const char *kb = k == KEY_DISK ? b->disk : k == KEY_NIC ? b->nic : "";
	if (!strcmp(ka, kb) || !kb[0])
		snprintf(out, cap, "%s", ka);
	else if (!ka[0])
		snprintf(out, cap, "%s", kb);
	else
		snprintf(out, cap, "%s → %s", ka, kb);
}

/* A disk or interface that moved less than this in both runs is idle
 * there: its rates, request sizes and latencies are the machine's
 * background (another process's page-ins, a log write), and a change of
 * them says nothing about the job. */
#define IDLE_BYTES_PER_S 1e6

static bool active(const struct fs_metrics *a, const struct fs_metrics *b, enum fig_key k)
{
	if (k == KEY_NONE)
		return true;
	double x = k == KEY_DISK ? a->disk_read_bytes_per_s : a->nic_rx_bytes_per_s;
	double y = k == KEY_DISK ? b->disk_read_bytes_per_s : b->nic_rx_bytes_per_s;
	return x >= IDLE_BYTES_PER_S || y >= IDLE_BYTES_PER_S;
}

static void compare_figures(struct fs_diff *d, const struct fs_metrics *a, const struct fs_metrics *b)
{
	for (size_t i = 0; i < NFIGDEFS; i++) {
		const struct figdef *f = &figdefs[i];
		const struct fs_metricdef *def = f->keyed ? &fs_metricdefs_by[f->id] : &fs_metricdefs[f->id];
		struct fs_diff_figure *F = &d->fig[d->nfig++];
		F->name = def->name;
		F->unit = def->unit;
		key_of(F->key, sizeof F->key, a, b, f->key);
		F->a = value_of(a, f);
		F->b = value_of(b, f);
		F->ratio = ratio(F->a, F->b);
		F->changed = active(a, b, f->key) && changed(F->a, F->b, scale_of(F->unit, F->a, F->b));
		d->nchanged += F->changed;
	}
}

/* ---- the headline ---- */

static const char *const bucket_words[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "busy", [FS_BUCKET_INPUT] = "input wait", [FS_BUCKET_HOST_IO] = "host I/O",
	[FS_BUCKET_RANKS] = "waiting on other ranks", [FS_BUCKET_EPOCH] = "epoch starts", [FS_BUCKET_OTHER] = "other host time",
};

/* Append printf-style to out[cap] (cut when full). */
static void add(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *out, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(out);
	if (n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out + n, cap - n, fmt, ap);
	va_end(ap);
}

/* "B is 1.9× faster per step", "... slower ...", "as fast", or why unknown. */
static void speed_clause(const struct fs_diff *d, char *out, size_t cap)
{
	const char *unit = d->by_samples ? "in samples/s" : "per step";
	double r = d->by_samples ? d->samples_ratio : 1 / d->step_ratio; /* > 1: B is faster */
	if (!isfinite(r) || r <= 0) {
		bool na = !isfinite(d->a.step_s), nb = !isfinite(d->b.step_s);
		add(out, cap, "step time unknown (%s without steps)", na && nb ? "both runs" : na ? "A" : "B");
	} else if (!d->step_changed) {
		add(out, cap, "B is as fast %s as A (within %.0f%%)", unit, 100 * FS_DIFF_CHANGED);
	} else {
		add(out, cap, "B is %.2g× %s %s", r >= 1 ? r : 1 / r, r >= 1 ? "faster" : "slower", unit);
	}
}

static void bucket_clause(const struct fs_diff *d, char *out, size_t cap)
{
	int b = d->largest_bucket;
	if (b < 0)
		add(out, cap, "the loop's time is not split in %s", !d->a.acct_valid && !d->b.acct_valid ? "either run"
								  : !d->a.acct_valid		      ? "A"
												      : "B");
	else if (!d->bucket_moved)
		add(out, cap, "no bucket of the loop's time moved by %.0f points", 100 * FS_DIFF_CHANGED);
	else
		add(out, cap, "%s %.0f%% → %.0f%%", bucket_words[b], 100 * d->a.share[b], 100 * d->b.share[b]);
}

static void knob_clause(const struct fs_diff *d, char *out, size_t cap)
{
	char x[4 * 96 + 1], y[4 * 96 + 1], k[4 * 96 + 1];
	int shown = 0, main = 0;
	if (!d->a.loader[0] != !d->b.loader[0]) { /* its knobs are all "unset" in the other */
		add(out, cap, " (no loader in %s)", d->a.loader[0] ? "B" : "A");
		return;
	}
	for (int i = 0; i < d->nknobs; i++)
		main += d->knobs[i].main_knob;
	if (strcmp(d->a.loader, d->b.loader) && d->a.loader[0] && d->b.loader[0])
		add(out, cap, " after loader %s → %s%s", fs_text_escape(x, sizeof x, d->a.loader),
		    fs_text_escape(y, sizeof y, d->b.loader), main ? "," : "");
	else if (main)
		add(out, cap, " after");
	for (int i = 0; i < d->nknobs && shown < 3; i++) {
		const struct fs_diff_pair *p = &d->knobs[i];
		if (!p->main_knob)
			continue;
		add(out, cap, "%s %s %s → %s", shown++ ? "," : "", fs_text_escape(k, sizeof k, p->key),
		    p->in_a ? fs_text_escape(x, sizeof x, p->a) : "(unset)", p->in_b ? fs_text_escape(y, sizeof y, p->b) : "(unset)");
	}
	if (main > shown)
		add(out, cap, " and %d more", main - shown);
	if (main == 0 && !strcmp(d->a.loader, d->b.loader))
		add(out, cap, ", with the same loader knobs");
	if (main == 0 && d->nenv > 0) {
		add(out, cap, " (differs:");
		for (int i = 0; i < d->nenv && i < 4; i++)
			add(out, cap, "%s %s", i ? "," : "", fs_text_escape(k, sizeof k, d->env[i].key));
		add(out, cap, "%s)", d->nenv > 4 ? ", ..." : "");
	}
}

static void headline(struct fs_diff *d)
{
	char *h = d->headline;
	size_t cap = sizeof d->headline;
	h[0] = '\0';
	if (d->identical) {
		add(h, cap, "A and B do not differ: the same verdict (%s), step time within %.0f%%, no bucket moved by"
			    " %.0f points, the same loader knobs and environment, no resource changed",
		    fs_verdict_name(d->a.verdict), 100 * FS_DIFF_CHANGED, 100 * FS_DIFF_CHANGED);
		return;
	}
	speed_clause(d, h, cap);
	add(h, cap, ": ");
	bucket_clause(d, h, cap);
	knob_clause(d, h, cap);
	if (d->a.verdict != d->b.verdict)
		add(h, cap, "; verdict %s → %s", fs_verdict_name(d->a.verdict), fs_verdict_name(d->b.verdict));
}

static void add_phase(struct fs_diff *d, const struct fs_verdict *va, int ia, const struct fs_verdict *vb, int ib)
{
	struct fs_diff_phase *p = &d->phase[d->nphases++];
	const struct fs_phase *A = ia >= 0 ? &va->phase[ia] : NULL, *B = ib >= 0 ? &vb->phase[ib] : NULL;
	p->a = ia;
	p->b = ib;
	p->primary = A ? A->primary : B->primary;
	p->input_bound_a = A ? A->input_bound_fraction : NAN;
	p->input_bound_b = B ? B->input_bound_fraction : NAN;
	p->length_a = A ? A->end_s - A->start_s : NAN;
	p->length_b = B ? B->end_s - B->start_s : NAN;
}

/* Like phases paired in order: each of A's with the next of B's with the
 * same cause; B's skipped on the way, and A's without one, alone. Only
 * where a run changed its verdict during it. */
static void compare_phases(const struct fs_verdict *va, const struct fs_verdict *vb, struct fs_diff *d)
{
	d->nphases = 0;
	if (va->nphases < 2 && vb->nphases < 2)
		return;
	int jb = 0;
	for (int ia = 0; ia < va->nphases; ia++) {
		int match = -1;
		for (int k = jb; k < vb->nphases && match < 0; k++)
			if (vb->phase[k].primary == va->phase[ia].primary)
				match = k;
		for (; match >= 0 && jb < match; jb++)
			add_phase(d, va, -1, vb, jb);
		add_phase(d, va, ia, vb, match);
		if (match >= 0)
			jb = match + 1;
	}
	for (; jb < vb->nphases; jb++)
		add_phase(d, va, -1, vb, jb);
}

void fs_diff(const struct fs_merged *ga, const struct fs_diff_meta *ma, const struct fs_merged *gb,
	     const struct fs_diff_meta *mb, struct fs_diff *d)
{
	memset(d, 0, sizeof *d);
	side_of(ga, &d->a);
	side_of(gb, &d->b);
	compare_speed(d);
	compare_buckets(d);
	compare_meta(d, ma, mb);
	compare_figures(d, &ga->m, &gb->m);
	compare_phases(&ga->v, &gb->v, d);
	/* unknown on both sides is no difference; unknown on one side is */
	bool same_speed = !d->step_changed && isfinite(d->a.step_s) == isfinite(d->b.step_s);
	d->identical = d->a.verdict == d->b.verdict && same_speed && !d->bucket_moved &&
		       d->a.acct_valid == d->b.acct_valid && d->nknobs == 0 && d->nenv == 0 && d->nchanged == 0;
	headline(d);
}
