/* hostio.c - the checkpoint / host-I/O bucket of a training process, and
 * its other threads' writes (hostio.h). */
#include "analysis/load/hostio.h"

#include "store/rollup.h"

#include <math.h>
#include <stdlib.h>

/* The checkpoint / host-I/O bucket (metrics.h) as a union of intervals: each
 * checkpoint phase, and for each tick the trainer's main-thread write + sync
 * time s on files as (t - s, t] (the tracer books a call when it ends, and
 * the main thread's calls follow each other, so a 2 s fsync is the 2 s
 * before its tick). The union, not the sum: a torch.save phase already
 * holds its own writes. The open/close time of the files it wrote (files,
 * run totals) is added in proportion to the write time outside phases. The
 * accelerator's use during the bucket is the mean util of the GPU samples
 * inside it. A run file without io_classes keeps the phases alone. */
struct span {
	double a, b;
};

static int by_start(const void *x, const void *y)
{
	double d = ((const struct span *)x)->a - ((const struct span *)y)->a;
	return d < 0 ? -1 : d > 0;
}

/* Merge sorted spans in place; returns how many remain. */
static size_t merge_spans(struct span *sp, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && sp[i].a <= sp[k - 1].b) {
			if (sp[i].b > sp[k - 1].b)
				sp[k - 1].b = sp[i].b;
		} else {
			sp[k++] = sp[i];
		}
	}
	return k;
}

/* Mean GPU util inside the merged spans (NaN if none): each GPU sample
 * covers its tick, (t - dt, t], and weighs by how much of that the spans
 * cover, so a 1 ms write inside a busy tick (a log line, a small file)
 * counts a thousandth of a 2 s fsync's tick, not as much. */
static double util_inside(struct fs_q *q, const struct span *sp, size_t n)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT g.t, avg(g.util_pct), k.dt_s FROM gpu g JOIN ticks k ON k.t = g.t"
				   " WHERE g.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_GPU("g.") " AND k.dt_s > 0 GROUP BY g.t ORDER BY g.t");
	double sum = 0, weight = 0;
	size_t i = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), u = fs_q_col(st, 1), dt = fs_q_col(st, 2);
		if (isnan(u) || !(dt > 0))
			continue;
		double lo = t - dt;
		while (i < n && sp[i].b <= lo)
			i++;
		double cover = 0;
		for (size_t j = i; j < n && sp[j].a < t; j++)
			cover += fmin(sp[j].b, t) - fmax(sp[j].a, lo);
		if (cover > 0) {
			sum += u * cover;
			weight += cover;
		}
	}
	sqlite3_finalize(st);
	return weight > 0 ? sum / weight : NAN;
}

/* The rows (a, b[, kind]) of st as spans, sorted and merged; the caller
 * frees them and finalizes st. Rows with b <= a (or NaN) are left out;
 * *kind1_s (when not NULL) gets the length, before merging, of the rows
 * whose third column is 1. On running out of memory *oom is set and the
 * spans read so far are returned. *n is the count (0: NULL may come back). */
static struct span *read_spans(struct fs_q *q, sqlite3_stmt *st, size_t *n, double *kind1_s, bool *oom)
{
	struct span *sp = NULL;
	size_t cap = 0;
	*n = 0;
	*oom = false;
	if (kind1_s)
		*kind1_s = 0;
	while (fs_q_step(q, st)) {
		if (*n == cap) {
			struct span *more = realloc(sp, (cap = cap ? 2 * cap : 1024) * sizeof *sp);
			if (!more) {
				*oom = true;
				break;
			}
			sp = more;
		}
		struct span x = {fs_q_col(st, 0), fs_q_col(st, 1)};
		if (!(x.b > x.a))
			continue;
		if (kind1_s && sqlite3_column_int(st, 2))
			*kind1_s += x.b - x.a;
		sp[(*n)++] = x;
	}
	if (*n > 0) {
		qsort(sp, *n, sizeof *sp, by_start);
		*n = merge_spans(sp, *n);
	}
	return sp;
}

static double span_length(const struct span *sp, size_t n)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += sp[i].b - sp[i].a;
	return total;
}

/* The host-I/O bucket of process ?3 (its checkpoint phases' time phase_s
 * is already known): *bucket, *io (its main thread in write + sync, NaN
 * without io_classes) and *util (mean GPU util inside the bucket, NaN). A
 * run file without io_classes keeps the phases alone. */
static void host_io_tier(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util);

void fs_m_host_io_for(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util)
{
	if (fs_q_tier(q)) {
		host_io_tier(q, phase_s, bucket_s, io_s, util);
		return;
	}
	*bucket_s = phase_s;
	*io_s = *util = NAN;
	sqlite3_stmt *st = fs_q_prep(q,
		"SELECT t - s, t, 1 FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes WHERE pid = ?3"
		" AND thread = 'main' AND class = 'file' AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_IO_CLASSES("")
		" GROUP BY t) WHERE s > 0"
		" UNION ALL SELECT max(t_start, ?1), min(t_end, ?2), 0 FROM phases WHERE name = 'checkpoint'"
		" AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2");
	if (!st)
		return; /* no io_classes in this run file: the phases alone */
	size_t n;
	double io;
	bool oom;
	struct span *sp = read_spans(q, st, &n, &io, &oom);
	sqlite3_finalize(st);
	if (!sp && !oom)
		*io_s = 0; /* nothing written, no phases */
	if (oom || !sp) {
		free(sp);
		return; /* the phases alone */
	}
	double bucket = span_length(sp, n);
	double meta, written;
	fs_q_row(q, "SELECT sum(main_meta_time_s), sum(main_write_time_s) FROM files WHERE pid = ?3 AND write_bytes > 0",
		 2, &meta, &written);
	double beyond = bucket - phase_s;
	if (meta > 0 && written > 0 && beyond > 0)
		bucket += meta * fmin(1, beyond / written);
	*io_s = io;
	if (bucket > *bucket_s)
		*bucket_s = bucket;
	*util = n > 0 ? util_inside(q, sp, n) : NAN;
	free(sp);
}

/* fs_m_host_io_for over the per-minute tables (fs_q_tier): a minute's write +
 * sync time s (io_classes_1m) is placed in the minute, outside the
 * checkpoint phases that overlap it (a torch.save phase holds its own
 * writes): the bucket is the phases' time plus, per minute, s less the
 * phases' time in that minute (at least 0, at most the rest of the
 * minute). The accelerator's use in it: the phases' own GPU samples (raw,
 * by rowid), and each minute's mean (gpu_1m) for the writes outside them. */
struct phase_span {
	double a, b;
};

static double overlap(double a, double b, const struct phase_span *ph, size_t n)
{
	double o = 0;
	for (size_t i = 0; i < n; i++)
		o += fmax(0, fmin(b, ph[i].b) - fmax(a, ph[i].a));
	return o;
}

static void host_io_tier(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util)
{
	*bucket_s = phase_s;
	*io_s = *util = NAN;
	struct phase_span ph[256];
	size_t nph = 0;
	double usum = 0, uw = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT max(t_start, ?1), min(t_end, ?2) FROM phases WHERE name = 'checkpoint'"
				   " AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2 ORDER BY t_start");
	while (fs_q_step(q, st))
		if (nph < sizeof ph / sizeof ph[0])
			ph[nph++] = (struct phase_span){fs_q_col(st, 0), fs_q_col(st, 1)};
	sqlite3_finalize(st);
	/* the phases' own GPU samples, each phase's by rowid */
	st = nph ? fs_q_prep(q, "SELECT total(util_pct), count(util_pct) FROM gpu WHERE rowid BETWEEN ?5 AND ?6"
				" AND t > ?4 AND t <= ?7")
		 : NULL;
	for (size_t i = 0; st && i < nph; i++) {
		long long lo, hi;
		if (!(ph[i].b > ph[i].a) ||
		    !fs_q_minute_rows(q, "gpu", ph[i].a, ph[i].b + 2 * FS_ROLLUP_PERIOD_S, &lo, &hi))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_double(st, 4, ph[i].a);
		sqlite3_bind_int64(st, 5, lo);
		sqlite3_bind_int64(st, 6, hi);
		sqlite3_bind_double(st, 7, ph[i].b);
		if (fs_q_step(q, st)) {
			double sum = fs_q_col(st, 0), cnt = fs_q_col(st, 1);
			if (cnt > 0) {
				usum += sum / cnt * (ph[i].b - ph[i].a);
				uw += ph[i].b - ph[i].a;
			}
		}
	}
	sqlite3_finalize(st);
	st = fs_q_prep(q, "SELECT c.t, sum(c.write_s + c.sync_s), (SELECT " FS_Q_TAVG("g.util_pct")
			  " FROM gpu_1m g WHERE g.t = c.t) FROM io_classes_1m c WHERE c.pid = ?3 AND c.thread = 'main'"
			  " AND c.class = 'file' AND " FS_Q_TIER_WINDOW("c.") " GROUP BY c.t ORDER BY c.t");
	if (!st)
		return; /* no io_classes in this run file: the phases alone */
	double io = 0, beyond = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), w = fs_q_col(st, 1), u = fs_q_col(st, 2);
		if (!(w > 0))
			continue;
		io += w;
		double in_phases = overlap(t - FS_ROLLUP_PERIOD_S, t, ph, nph);
		double out = fmin(fmax(0, w - in_phases), FS_ROLLUP_PERIOD_S - in_phases);
		if (out > 0) {
			beyond += out;
			if (!isnan(u)) {
				usum += u * out;
				uw += out;
			}
		}
	}
	sqlite3_finalize(st);
	double bucket = phase_s + beyond;
	double meta, written;
	fs_q_row(q, "SELECT sum(main_meta_time_s), sum(main_write_time_s) FROM files WHERE pid = ?3 AND write_bytes > 0",
		 2, &meta, &written);
	if (meta > 0 && written > 0 && beyond > 0)
		bucket += meta * fmin(1, beyond / written);
	*io_s = io;
	*bucket_s = bucket;
	*util = uw > 0 ? usum / uw : NAN;
}

/* The time process ?3's other threads spent in write + sync on files, as
 * a union of intervals: for each tick t whose calls took s, (t - s, t], as
 * for the main thread (the tracer books a call in the tick it ends: a 2 s
 * fsync is the 2 s before it; several threads' time in one tick is summed,
 * an overestimate only when they wrote at the same time). NaN without
 * io_classes. */
double fs_m_helper_writes(struct fs_q *q)
{
	if (fs_q_tier(q)) { /* per minute: the minute's time, at most the minute */
		double v;
		fs_q_row(q, "SELECT total(min(s, 60.0)) FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes_1m"
			 " WHERE pid = ?3 AND thread = 'other' AND class = 'file' AND " FS_Q_TIER_WINDOW("") " GROUP BY t)",
			 1, &v);
		return v;
	}
	sqlite3_stmt *st = fs_q_prep(q, "SELECT t - s, t FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes"
				   " WHERE pid = ?3 AND thread = 'other' AND class = 'file' AND t BETWEEN ?1 AND ?2 AND "
				   FS_Q_ROWS_IO_CLASSES("") " GROUP BY t)"
				   " WHERE s > 0");
	if (!st)
		return NAN;
	size_t n;
	bool oom; /* what was read still counts */
	struct span *sp = read_spans(q, st, &n, NULL, &oom);
	sqlite3_finalize(st);
	double total = span_length(sp, n);
	free(sp);
	return total;
}
