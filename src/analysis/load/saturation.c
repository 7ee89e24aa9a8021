/* saturation.c - which limit of the storage the loaders' reads met, judged
 * against measured ceilings (docs/verdicts.md, "Which limit of the
 * storage"). Pure reading of the run file into m->sat; the verdict names
 * the limit from it.
 *
 * The window's time is cut in bins (the system interval, or a minute when
 * the analysis reads the per-minute tables). In each bin:
 *   - the wait: the loop's input wait (steps) that falls in it, else the
 *     loaders' thread-seconds blocked in I/O (D) there;
 *   - each resource's level, its use over its ceiling: the data device's
 *     read bytes/s over the byte ceiling, reads/s over the IOPS ceiling,
 *     and for latency util x min(1, QD1 latency / await): by Little's law
 *     a device busy with requests that each take about its bare QD1
 *     latency serves them one after another, so more in flight would
 *     help (a throttled device idles between releases: low util); the
 *     metadata level is the loaders' time in metadata calls over their
 *     storage time (read calls, metadata calls, and D beyond them), or
 *     without the tracer's call times, their thread-seconds in D inside
 *     metadata system calls over all their thread-seconds in D
 *     (proc.blocked_meta);
 *   - the bin's limit: metadata when that level is at least
 *     metadata_time_major, else the data resource with the highest level
 *     at or above ceiling_saturated, else none.
 * A limit's share is the wait in the bins it limited over all the wait.
 * A ceiling comes from the device's probe (meta probe.<disk>.*) and from
 * the job's cgroup read rules on the device or the disks under it (meta
 * cgroup_io.<disk>.*); the tighter wins. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/job.h"
#include "analysis/load/saturation.h"
#include "analysis/load/steps.h"
#include "analysis/thresholds.h"

const char *fs_limit_name(enum fs_limit l)
{
	static const char *const n[FS_LIMIT__N] = {"bytes", "iops", "latency", "metadata", "none"};
	return l < FS_LIMIT__N ? n[l] : "none";
}

/* The tighter of ceiling l and v (v > 0), with its source. */
static void ceiling(struct fs_saturation *s, enum fs_limit l, double v, const char *fmt, ...)
{
	if (!(v > 0) || (isfinite(s->ceiling[l]) && s->ceiling[l] <= v))
		return;
	s->ceiling[l] = v;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->source[l], sizeof s->source[l], fmt, ap);
	va_end(ap);
}

/* The ceilings of m->disk: its probe, and the job's cgroup rules on it and
 * on the disks under it (a loop device's file, a dm volume's disks: a rule
 * there holds its requests back). */
static void load_ceilings(struct fs_q *q, const struct fs_metrics *m, struct fs_saturation *s)
{
	char key[640], when[64];
	snprintf(key, sizeof key, "probe.%s.time_unix", m->disk);
	fs_q_meta(q, key, when, sizeof when);
	snprintf(key, sizeof key, "probe.%s.seq_read_bytes_per_s", m->disk);
	ceiling(s, FS_LIMIT_BYTES, fs_q_meta_num(q, key), "probe of %s (sequential read, time %s)", m->disk, when);
	snprintf(key, sizeof key, "probe.%s.randread_iops_qd32", m->disk);
	ceiling(s, FS_LIMIT_IOPS, fs_q_meta_num(q, key), "probe of %s (4 KiB random reads at QD 32, time %s)",
		m->disk, when);
	snprintf(key, sizeof key, "probe.%s.randread_iops_qd1", m->disk);
	double qd1 = fs_q_meta_num(q, key);
	if (qd1 > 0)
		ceiling(s, FS_LIMIT_LATENCY, 1 / qd1, "probe of %s (4 KiB random reads at QD 1, time %s)", m->disk,
			when);
	snprintf(key, sizeof key, "queue.%s.device_queue_depth", m->disk);
	s->queue_slots = fs_q_meta_num(q, key);
	s->queue_slots_from = "device/queue_depth";
	if (!(s->queue_slots > 0)) {
		snprintf(key, sizeof key, "queue.%s.nr_requests", m->disk);
		s->queue_slots = fs_q_meta_num(q, key);
		s->queue_slots_from = "queue/nr_requests";
	}
	s->queue_depth = m->disk_queue_depth;
	/* the device, then the disks under it as the mounts table says */
	char devs[8][64];
	int nd = 0;
	snprintf(devs[nd++], sizeof devs[0], "%s", m->disk);
	sqlite3_stmt *st = fs_q_prep(q, "SELECT disks, mount FROM mounts WHERE device = ?4 AND coalesce(hidden, 0) = 0"
					" ORDER BY length(mount) LIMIT 1");
	if (!st) /* a run file without mounts.disks or hidden */
		st = fs_q_prep(q, "SELECT NULL, mount FROM mounts WHERE device = ?4 ORDER BY length(mount) LIMIT 1");
	if (st)
		sqlite3_bind_text(st, 4, m->disk, -1, SQLITE_TRANSIENT);
	if (fs_q_step(q, st)) {
		const char *d = fs_q_col_text(st, 0);
		while (*d && nd < 8) {
			size_t n = strcspn(d, ",");
			if (n > 0 && n < sizeof devs[0]) {
				snprintf(devs[nd], sizeof devs[0], "%.*s", (int)n, d);
				if (strcmp(devs[nd], m->disk))
					nd++;
			}
			d += n;
			d += *d == ',';
		}
		snprintf(s->mount, sizeof s->mount, "%s", fs_q_col_text(st, 1));
	}
	sqlite3_finalize(st);
	for (int i = 0; i < nd; i++) {
		static const struct {
			enum fs_limit l;
			const char *key;
		} rules[] = {{FS_LIMIT_BYTES, "read_bps"}, {FS_LIMIT_IOPS, "read_iops"}};
		for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
			char cg[160];
			snprintf(key, sizeof key, "cgroup_io.%s.%s_cgroup", devs[i], rules[r].key);
			fs_q_meta(q, key, cg, sizeof cg);
			snprintf(key, sizeof key, "cgroup_io.%s.%s", devs[i], rules[r].key);
			ceiling(s, rules[r].l, fs_q_meta_num(q, key), "cgroup read limit on %s%s%s%s", devs[i],
				cg[0] ? " (cgroup " : "", cg, cg[0] ? ")" : "");
		}
	}
}

struct bin {
	double wait, blocked;          /* s: the wait weighed; the loaders' thread-seconds in D */
	double blocked_meta;           /* of those, inside metadata system calls (proc.blocked_meta) */
	double dt, rb, r, await_r, ut; /* the disk: seconds covered, bytes, reads, await x reads, util x s */
	double meta, read;             /* the loaders' seconds in metadata and read calls on files */
};

struct bins {
	struct bin *b;
	long n;
	double t0, width;
};

static struct bin *at(struct bins *B, double t)
{
	double k = floor((t - B->t0) / B->width);
	if (!(k >= 0) || k >= (double)B->n)
		return NULL;
	return &B->b[(long)k];
}

/* Spread v (per second of [a, b]) over the bins that interval overlaps. */
static void spread(struct bins *B, double a, double b)
{
	if (!(b > a))
		return;
	double k0 = floor((a - B->t0) / B->width), k1 = floor((b - B->t0) / B->width);
	for (double k = fmax(k0, 0); k <= k1 && k < (double)B->n; k++) {
		double lo = fmax(a, B->t0 + k * B->width), hi = fmin(b, B->t0 + (k + 1) * B->width);
		if (hi > lo)
			B->b[(long)k].wait += hi - lo;
	}
}

static void load_disk(struct fs_q *q, const struct fs_metrics *m, struct bins *B, bool tier)
{
	sqlite3_stmt *st = tier ? fs_q_prep(q, "SELECT t - dt_s / 2, dt_s, read_bytes_per_s, reads_per_s, read_await_reads_ms,"
					       " util_pct FROM disk_1m WHERE device = ?4 AND " FS_Q_TIER_WINDOW(""))
				: fs_q_prep(q, "SELECT t - dt_s / 2, dt_s, read_bytes_per_s, reads_per_s, read_await_ms, util_pct"
					       " FROM disk WHERE device = ?4 AND t BETWEEN ?1 AND ?2 + dt_s AND " FS_Q_ROWS_DISK(""));
	if (!st) /* older files: rows without their own interval, at the ticks' */
		st = fs_q_prep(q, tier ? "SELECT t - 30, 60.0, read_bytes_per_s, reads_per_s, NULL, util_pct FROM disk_1m"
					 " WHERE device = ?4 AND " FS_Q_TIER_WINDOW("")
				       : "SELECT d.t - k.dt_s / 2, k.dt_s, d.read_bytes_per_s, d.reads_per_s, d.read_await_ms,"
					 " d.util_pct FROM disk d JOIN ticks k ON k.t = d.t WHERE d.device = ?4 AND"
					 " d.t BETWEEN ?1 AND ?2");
	if (st)
		sqlite3_bind_text(st, 4, m->disk, -1, SQLITE_TRANSIENT);
	while (fs_q_step(q, st)) {
		double dt = fs_q_col(st, 1);
		struct bin *b = at(B, fs_q_col(st, 0));
		if (!b || !(dt > 0))
			continue;
		double rb = fs_q_col(st, 2), r = fs_q_col(st, 3), aw = fs_q_col(st, 4), ut = fs_q_col(st, 5);
		b->dt += dt;
		b->rb += isfinite(rb) ? rb * dt : 0;
		b->r += isfinite(r) ? r * dt : 0;
		b->await_r += isfinite(aw) && isfinite(r) ? aw * r * dt : 0;
		b->ut += isfinite(ut) ? ut * dt : 0;
	}
	sqlite3_finalize(st);
}

static void load_wait(struct fs_q *q, const struct fs_metrics *m, struct bins *B, bool tier)
{
	if (!m->have_steps)
		return;
	if (tier) {
		sqlite3_stmt *st = fs_q_prep(q, "SELECT t - 30, sum(wait_s) FROM steps_1m WHERE pid = ?3 AND "
						FS_Q_TIER_WINDOW("") " GROUP BY t");
		while (fs_q_step(q, st)) {
			struct bin *b = at(B, fs_q_col(st, 0));
			double w = fs_q_col(st, 1);
			if (b && w > 0)
				b->wait += w;
		}
		sqlite3_finalize(st);
		return;
	}
	struct fs_steps_series s;
	fs_metrics_read_steps(q, q->trainer, true, &s);
	for (size_t i = 0; i < s.n; i++) {
		double got = s.end[i] - s.compute[i]; /* the batch's arrival: its wait ends */
		if (s.wait[i] > 0)
			spread(B, got - s.wait[i], got);
	}
	fs_steps_series_free(&s);
}

static void load_loaders(struct fs_q *q, const struct fs_metrics *m, struct bins *B, bool tier)
{
	char sql[1024];
	const char *pids = fs_m_loaders_sql(q, m);
	/* blocked_meta: NULL where not recorded (older files: no column) */
	for (int with_meta = 1; with_meta >= 0; with_meta--) {
		const char *meta = with_meta ? (tier ? "sum(blocked_meta * dt_s)" : "sum(p.blocked_meta) * k.dt_s") : "NULL";
		if (tier)
			snprintf(sql, sizeof sql, "SELECT t - 30, sum(blocked_io * dt_s), %s FROM proc_1m WHERE pid IN (%s) AND "
				 FS_Q_TIER_WINDOW("") " GROUP BY t", meta, pids);
		else
			snprintf(sql, sizeof sql, "SELECT p.t - k.dt_s / 2, sum(p.blocked_io) * k.dt_s, %s FROM proc p JOIN ticks k"
				 " ON k.t = p.t WHERE p.pid IN (%s) AND p.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC("p.")
				 " GROUP BY p.t", meta, pids);
		if (with_meta && !m->have_meta_calls)
			continue;
		sqlite3_stmt *st = fs_q_prep(q, sql);
		if (!st && with_meta)
			continue;
		while (fs_q_step(q, st)) {
			struct bin *b = at(B, fs_q_col(st, 0));
			double v = fs_q_col(st, 1), me = fs_q_col(st, 2);
			if (b && v > 0)
				b->blocked += v;
			if (b && me > 0)
				b->blocked_meta += me;
		}
		sqlite3_finalize(st);
		break;
	}
	if (!m->have_classes)
		return;
	if (tier)
		snprintf(sql, sizeof sql, "SELECT t - 30, sum(meta_s), sum(read_s) FROM io_classes_1m WHERE class = 'file'"
			 " AND pid IN (%s) AND " FS_Q_TIER_WINDOW("") " GROUP BY t", pids);
	else
		snprintf(sql, sizeof sql, "SELECT c.t - k.dt_s / 2, sum(c.meta_s), sum(c.read_s) FROM io_classes c JOIN ticks k"
			 " ON k.t = c.t WHERE c.class = 'file' AND c.pid IN (%s) AND c.t BETWEEN ?1 AND ?2 AND "
			 FS_Q_ROWS_IO_CLASSES("c.") " GROUP BY c.t", pids);
	sqlite3_stmt *st = fs_q_prep(q, sql);
	while (fs_q_step(q, st)) {
		struct bin *b = at(B, fs_q_col(st, 0));
		double me = fs_q_col(st, 1), rd = fs_q_col(st, 2);
		if (!b)
			continue;
		b->meta += isfinite(me) ? me : 0;
		b->read += isfinite(rd) ? rd : 0;
	}
	sqlite3_finalize(st);
}

/* The limit of one bin (levels out: NaN where not known). meta: where
 * the metadata level comes from (the tracer's call times, else the
 * loaders' D inside metadata calls, else nowhere). */
static enum fs_limit bin_limit(const struct fs_saturation *s, const struct bin *b, enum fs_meta_src meta,
			       const struct fs_thresholds *t, double level[FS_LIMIT__N])
{
	for (int i = 0; i < FS_LIMIT__N; i++)
		level[i] = NAN;
	if (meta == FS_META_CALL_TIMES) {
		double storage = fmax(b->meta + b->read, b->blocked);
		level[FS_LIMIT_METADATA] = storage > 0 ? b->meta / storage : 0;
	} else if (meta == FS_META_BLOCKED) {
		level[FS_LIMIT_METADATA] = b->blocked > 0 ? fmin(1, b->blocked_meta / b->blocked) : 0;
	}
	if (b->dt > 0) {
		double rbps = b->rb / b->dt, rps = b->r / b->dt, util = fmin(1, b->ut / b->dt / 100);
		if (isfinite(s->ceiling[FS_LIMIT_BYTES]))
			level[FS_LIMIT_BYTES] = rbps / s->ceiling[FS_LIMIT_BYTES];
		if (isfinite(s->ceiling[FS_LIMIT_IOPS]))
			level[FS_LIMIT_IOPS] = rps / s->ceiling[FS_LIMIT_IOPS];
		if (isfinite(s->ceiling[FS_LIMIT_LATENCY])) {
			double await_s = b->r > 0 ? b->await_r / b->r / 1e3 : NAN;
			level[FS_LIMIT_LATENCY] = await_s > 0 ? util * fmin(1, s->ceiling[FS_LIMIT_LATENCY] / await_s) : 0;
		}
	}
	if (level[FS_LIMIT_METADATA] >= t->metadata_time_major)
		return FS_LIMIT_METADATA;
	enum fs_limit best = FS_LIMIT_NONE;
	for (int i = FS_LIMIT_BYTES; i <= FS_LIMIT_LATENCY; i++)
		if (level[i] >= t->ceiling_saturated && (best == FS_LIMIT_NONE || level[i] > level[best]))
			best = (enum fs_limit)i;
	return best;
}

void fs_m_load_saturation(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_saturation *s = &m->sat;
	const struct fs_thresholds *t = &fs_thresholds;
	memset(s, 0, sizeof *s);
	s->named = s->runner = FS_LIMIT_NONE;
	s->queue_slots = s->queue_depth = NAN;
	for (int i = 0; i < FS_LIMIT__N; i++)
		s->ceiling[i] = s->share[i] = s->level[i] = NAN;
	if (!m->have_job)
		return;
	if (m->disk[0])
		load_ceilings(q, m, s);
	bool tier = fs_q_tier(q);
	double lo = isfinite(q->w0) ? fmax(q->w0, 0) : 0;
	double hi = isfinite(q->w1) ? q->w1 : m->recorded_until_s;
	if (isfinite(m->recorded_until_s))
		hi = fmin(hi, m->recorded_until_s);
	double sys = fs_q_meta_num(q, "system_interval_s");
	double width = tier ? 60 : fmax(sys > 0 ? sys : 1, 0.1);
	if (!(hi > lo))
		return;
	/* bins on the machine-wide sources' grid (their rows every `width`
	 * seconds from the run's start, as the per-minute tables' minutes are):
	 * a bin then holds one disk row and the ticks of the same interval */
	struct bins B = {.t0 = width * floor(lo / width), .width = width};
	B.n = (long)ceil((hi - B.t0) / width) + 1;
	if (B.n > 4000000)
		return; /* not a window a report reads raw */
	B.b = calloc((size_t)B.n, sizeof *B.b);
	if (!B.b)
		return;
	if (m->disk[0])
		load_disk(q, m, &B, tier);
	load_wait(q, m, &B, tier);
	load_loaders(q, m, &B, tier);
	s->steps = m->have_steps;
	s->meta_src = m->have_classes ? FS_META_CALL_TIMES : m->have_meta_calls ? FS_META_BLOCKED : FS_META_NONE;
	double sat_w[FS_LIMIT__N] = {0}, lvl_w[FS_LIMIT__N] = {0}, known_w[FS_LIMIT__N] = {0};
	for (long k = 0; k < B.n; k++) {
		const struct bin *b = &B.b[k];
		double w = s->steps ? b->wait : b->blocked;
		if (!(w > 0))
			continue;
		double level[FS_LIMIT__N];
		enum fs_limit l = bin_limit(s, b, s->meta_src, t, level);
		s->wait_s += w;
		sat_w[l] += w;
		for (int i = 0; i < FS_LIMIT__N; i++)
			if (isfinite(level[i])) {
				lvl_w[i] += w * level[i];
				known_w[i] += w;
			}
	}
	free(B.b);
	if (!(s->wait_s > 0))
		return;
	s->have = true;
	for (int i = 0; i < FS_LIMIT__N; i++) {
		bool known = i == FS_LIMIT_NONE || (i == FS_LIMIT_METADATA ? s->meta_src != FS_META_NONE : isfinite(s->ceiling[i]));
		s->share[i] = known ? sat_w[i] / s->wait_s : NAN;
		s->level[i] = known_w[i] > 0 ? lvl_w[i] / known_w[i] : NAN;
	}
	/* the largest share names the limit; ties go to the earlier (a hard
	 * ceiling before latency, latency before none) */
	double best = -1;
	for (int i = 0; i < FS_LIMIT__N; i++)
		if (isfinite(s->share[i]) && s->share[i] > best) {
			best = s->share[i];
			s->named = (enum fs_limit)i;
		}
	double second = -1;
	s->runner = FS_LIMIT__N;
	for (int i = 0; i < FS_LIMIT__N; i++)
		if (i != (int)s->named && isfinite(s->share[i]) && s->share[i] > second) {
			second = s->share[i];
			s->runner = (enum fs_limit)i;
		}
}
