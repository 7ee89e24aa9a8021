/* metricdefs.c - the definitions' queries (metricdefs_table.c) built, run
 * and stored (metricdefs.h). */
#include "analysis/load/metricdefs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* bit i of valid[]: word i / 64, bit i % 64 */
static bool bit(const uint64_t *valid, int i)
{
	return valid[i / 64] >> (i % 64) & 1;
}
_Static_assert(FS_MS__N <= 32, "one bit per source in FS_MD_FROM's uint32_t");

static const struct fs_metricdef *defs_of(enum fs_md_source source, int *n)
{
	bool keyed = fs_md_sources[source].key != NULL;
	*n = keyed ? FS_MDK__N : FS_MD__N;
	return keyed ? fs_metricdefs_by : fs_metricdefs;
}

bool fs_metricdefs_valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	return (int)id >= 0 && (int)id < FS_MD__N && bit(mv->valid, (int)id);
}

bool fs_metricdefs_row_valid(const struct fs_metric_row *r, enum fs_mdk_id id)
{
	return (int)id >= 0 && (int)id < FS_MDK__N && bit(r->valid, (int)id);
}

/* Whether definition i of source's table is a column of its query (all
 * of them, or only `only`; over the tiers, not those read raw). */
static bool in_query(const struct fs_metricdef *d, int i, enum fs_md_source source, int only, bool tier)
{
	return d->source == source && (only < 0 || i == only) && !(tier && d->tier && !strcmp(d->tier, FS_MD_RAW));
}

static int build_sql(enum fs_md_source source, int only, bool tier, bool legacy, char *out, size_t cap)
{
	if ((int)source < 0 || source >= FS_MS__N)
		return 0;
	const struct fs_md_sourcedef *src = &fs_md_sources[source];
	if (tier && !src->tier)
		return 0;
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	size_t n = 0;
	int cols = 0;
	int w = snprintf(out, cap, "SELECT %s", src->key ? src->key : "");
	if (w < 0 || (size_t)w >= cap)
		return -1;
	n = (size_t)w;
	for (int i = 0; i < ndefs; i++) {
		if (!in_query(&defs[i], i, source, only, tier))
			continue;
		const char *e = tier && defs[i].tier ? defs[i].tier : defs[i].expr;
		w = snprintf(out + n, cap - n, "%s%s", cols || src->key ? ", " : "", e);
		if (w < 0 || (size_t)w >= cap - n)
			return -1;
		n += (size_t)w;
		cols++;
	}
	if (cols == 0)
		return 0;
	const char *from = tier ? src->tier : legacy ? src->legacy : src->from;
	const char *where = tier ? src->tier_where : src->where;
	if (!from)
		return 0;
	if (src->key)
		w = snprintf(out + n, cap - n, " FROM %s WHERE %s AND %s IS NOT NULL GROUP BY %s ORDER BY %s", from,
			     where, src->key, src->key, src->key);
	else
		w = snprintf(out + n, cap - n, " FROM %s WHERE %s", from, where);
	return w < 0 || (size_t)w >= cap - n ? -1 : cols;
}

int fs_metricdefs_sql(enum fs_md_source source, int only, char *out, size_t cap)
{
	return build_sql(source, only, false, false, out, cap);
}

int fs_metricdefs_tier_sql(enum fs_md_source source, int only, char *out, size_t cap)
{
	return build_sql(source, only, true, false, out, cap);
}

/* Whether source's per-minute table is in the run file: phases_1m came
 * in schema 8, after the others (an older file's phases are read raw). */
static bool tier_recorded(struct fs_q *q, enum fs_md_source source)
{
	return fs_md_sources[source].table != FS_T_PHASES || fs_q_has_table(q, "phases_1m");
}

/* Where one query's values go: a one-row load, or the rows of a keyed one. */
struct dest {
	struct fs_metric_values *one;
	struct fs_metric_row *rows;
	int cap, n;
};

static void reset_row(struct fs_metric_row *r)
{
	r->key[0] = '\0';
	memset(r->valid, 0, sizeof r->valid);
	for (int i = 0; i < FS_MDK__N; i++)
		r->v[i] = NAN;
}

/* The row of key in d->rows (the rows come in key order from every query
 * of the source, so a key is either the last one or new), or NULL when
 * full. */
static struct fs_metric_row *row_for(struct dest *d, const char *key)
{
	for (int i = d->n - 1; i >= 0; i--)
		if (!strncmp(d->rows[i].key, key, sizeof d->rows[i].key - 1))
			return &d->rows[i];
	if (d->n >= d->cap)
		return NULL;
	struct fs_metric_row *r = &d->rows[d->n++];
	reset_row(r);
	snprintf(r->key, sizeof r->key, "%s", key);
	return r;
}

/* Run source's query (all its definitions, or only `only`; legacy: its
 * raw rows as an older file holds them) and store its row(s). Returns 1
 * when it ran, 0 when not recorded, -1 when it failed (in q). */
static int run_one(struct fs_q *q, enum fs_md_source source, int only, bool legacy, struct dest *d)
{
	char sql[4096];
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	/* over the tiers where q's window is and the source has them, but a
	 * definition read raw alone is read raw */
	bool tier = fs_md_sources[source].tier && fs_q_tier(q) &&
		    !(only >= 0 && defs[only].tier && !strcmp(defs[only].tier, FS_MD_RAW)) && tier_recorded(q, source);
	if ((legacy && tier) || build_sql(source, only, tier, legacy, sql, sizeof sql) <= 0)
		return 0; /* no definition (cannot overflow: the table is fixed) */
	long before = q->errors;
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (!st)
		return q->errors > before ? -1 : 0;
	bool keyed = fs_md_sources[source].key != NULL;
	while (fs_q_step(q, st)) {
		double *v;
		uint64_t *valid; /* valid[FS_MD_VALID_WORDS] */
		if (keyed) {
			struct fs_metric_row *r = row_for(d, fs_q_col_text(st, 0));
			if (!r)
				continue;
			v = r->v;
			valid = r->valid;
		} else {
			v = d->one->v;
			valid = d->one->valid;
		}
		int c = keyed ? 1 : 0;
		for (int i = 0; i < ndefs; i++) {
			if (!in_query(&defs[i], i, source, only, tier))
				continue;
			v[i] = fs_q_col(st, c++);
			if (!isnan(v[i]))
				valid[i / 64] |= UINT64_C(1) << (i % 64);
		}
		if (!keyed)
			break;
	}
	sqlite3_finalize(st);
	return q->errors > before ? -1 : 1;
}

/* Source's definitions: one query; when the file lacks a column one of
 * them reads (an older feedscope), each alone, so the others still count. */
static void load_source(struct fs_q *q, enum fs_md_source source, struct dest *d)
{
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	int rc = run_one(q, source, -1, false, d);
	if (rc != 0 && fs_md_sources[source].tier && fs_q_tier(q)) /* those read raw at any resolution */
		for (int i = 0; i < ndefs; i++)
			if (defs[i].source == source && defs[i].tier && !strcmp(defs[i].tier, FS_MD_RAW))
				run_one(q, source, i, false, d);
	if (rc != 0 || !fs_q_has_table(q, fs_tables[fs_md_sources[source].table].name))
		return;
	if (fs_md_sources[source].legacy && run_one(q, source, -1, true, d) != 0)
		return; /* a file from before the rows' own dt_s */
	for (int i = 0; i < ndefs; i++)
		if (defs[i].source == source)
			run_one(q, source, i, false, d);
}

static void reset(struct fs_metric_values *out)
{
	memset(out->valid, 0, sizeof out->valid);
	for (int i = 0; i < FS_MD__N; i++)
		out->v[i] = NAN;
}

int fs_metricdefs_load_from(struct fs_q *q, uint32_t mask, struct fs_metric_values *out)
{
	reset(out);
	long before = q->errors;
	struct dest d = {.one = out};
	for (int s = 0; s < FS_MS__N; s++)
		if ((mask & FS_MD_FROM(s)) && !fs_md_sources[s].key)
			load_source(q, (enum fs_md_source)s, &d);
	if (q->errors == before)
		return 0;
	reset(out); /* nothing of a file that failed a query is kept as valid */
	return -1;
}

int fs_metricdefs_load_ids(struct fs_q *q, const enum fs_md_id *ids, int n, struct fs_metric_values *out)
{
	reset(out);
	long before = q->errors;
	struct dest d = {.one = out};
	for (int i = 0; i < n; i++)
		if ((int)ids[i] >= 0 && ids[i] < FS_MD__N && !fs_md_sources[fs_metricdefs[ids[i]].source].key)
			run_one(q, fs_metricdefs[ids[i]].source, (int)ids[i], false, &d);
	if (q->errors == before)
		return 0;
	reset(out);
	return -1;
}

int fs_metricdefs_load(struct fs_q *q, struct fs_metric_values *out)
{
	uint32_t mask = 0;
	for (int s = 0; s < FS_MS__N; s++)
		mask |= FS_MD_FROM(s);
	return fs_metricdefs_load_from(q, mask, out);
}

int fs_metricdefs_load_keyed(struct fs_q *q, enum fs_md_source source, struct fs_metric_row *out, int cap)
{
	if ((int)source < 0 || source >= FS_MS__N || !fs_md_sources[source].key || cap <= 0)
		return 0;
	long before = q->errors;
	struct dest d = {.rows = out, .cap = cap};
	load_source(q, source, &d);
	return q->errors == before ? d.n : -1;
}

static double or0(const struct fs_metric_row *r, int id)
{
	return bit(r->valid, (int)id) ? r->v[id] : 0;
}

static double moved(const struct fs_metric_row *r)
{
	return or0(r, FS_MDK_DISK_READ_BYTES) + or0(r, FS_MDK_DISK_WRITE_BYTES) + or0(r, FS_MDK_NIC_BYTES);
}

bool fs_metricdefs_active(const struct fs_metric_row *r)
{
	return moved(r) > 0 || or0(r, FS_MDK_DISK_UTIL_MAX_PCT) > 0;
}

int fs_metricdefs_busier(const void *a, const void *b)
{
	const struct fs_metric_row *x = a, *y = b;
	double bx = moved(x), by = moved(y);
	if (bx != by)
		return bx > by ? -1 : 1;
	double ux = or0(x, FS_MDK_DISK_UTIL_MAX_PCT), uy = or0(y, FS_MDK_DISK_UTIL_MAX_PCT);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	return strcmp(x->key, y->key);
}
