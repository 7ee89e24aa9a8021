/* merge.c - several run files (nodes) as one job (merge.h). The loaders
 * read; fs_merge and what it calls are pure. */
#include "analysis/compare/merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/advise/phases.h"
#include "analysis/load/load.h"
#include "analysis/load/loops.h"
#include "analysis/load/query.h"
#include "analysis/load/steps.h"
#include "analysis/load/sync.h"
#include "analysis/load/tree.h"
#include "store/retain.h"

int fs_merge_head(const char *path, struct fs_merge_file *f, char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	snprintf(f->path, sizeof f->path, "%s", path);
	f->start_unix = NAN;
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	fs_q_meta(&q, "mode", f->mode, sizeof f->mode);
	fs_q_meta(&q, "hostname", f->host, sizeof f->host);
	f->start_unix = fs_q_meta_num(&q, "start_unix");
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}

/* The first column of every row of sql (process ?3, the whole run) into s.
 * False when memory ran out; a failed query is left in q. */
static bool read_series(struct fs_q *q, const char *sql, struct fs_series *s)
{
	size_t cap = 0;
	sqlite3_stmt *st = fs_q_prep(q, sql);
	bool ok = true;
	while (fs_q_step(q, st)) {
		if (s->n == cap) {
			double *more = realloc(s->t, (cap = cap ? 2 * cap : 256) * sizeof *s->t);
			if (!more) {
				ok = false;
				break;
			}
			s->t = more;
		}
		s->t[s->n++] = fs_q_col(st, 0);
	}
	sqlite3_finalize(st);
	return ok;
}

/* The candidate phases of f's loop and the metrics of each (want_phases). */
static int load_phases(struct fs_merge_file *f, const struct fs_window *w, char *err, size_t errlen)
{
	if (fs_m_phase_candidates(f->path, &f->m, fs_thresholds.phase_noise_floor, &f->cands, err, errlen) < 0)
		return -1;
	if (f->cands.n < 2)
		return 0;
	f->seg = calloc((size_t)f->cands.n, sizeof *f->seg);
	if (!f->seg) {
		snprintf(err, errlen, "%s: out of memory reading the loop's phases", f->path);
		return -1;
	}
	for (int k = 0; k < f->cands.n; k++) {
		struct fs_window sw = {f->cands.span[k].start_s, f->cands.span[k].end_s};
		if (w) {
			sw.start_s = fmax(sw.start_s, w->start_s);
			sw.end_s = fmin(sw.end_s, w->end_s);
		}
		if (fs_metrics_load(f->path, &sw, &f->seg[k], err, errlen) < 0)
			return -1;
	}
	return 0;
}

int fs_merge_load(struct fs_merge_file *f, const struct fs_window *w, char *err, size_t errlen)
{
	if (fs_metrics_load(f->path, w, &f->m, err, errlen) < 0)
		return -1;
	if (f->want_phases && load_phases(f, w, err, errlen) < 0)
		return -1;
	struct fs_q q;
	if (fs_q_open(&q, f->path, err, errlen) < 0)
		return -1;
	bool ok = true;
	/* the whole run, whatever the window: the k-th collective and the k-th
	 * step are counted from each process's first. Past its first hour a
	 * run file keeps the collectives only in windows (store/retain.h),
	 * the same ones for all its processes but for a collective at a
	 * window's edge, which would pair the k-th of one with the (k+1)-th of
	 * another: then the first FS_RETAIN_HEAD_S alone (kept whole), or what
	 * is kept when that has none (a job whose ranks met later). */
	char keep[64] = "";
	fs_q_meta(&q, "retention", keep, sizeof keep);
	bool head = keep[0] && strcmp(keep, "all") != 0;
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT t_end FROM phases WHERE name = 'collective' AND pid = ?3 AND t_end <= %.17g"
		 " ORDER BY t_start", head ? FS_RETAIN_HEAD_S : 1e308); /* 1e308: every one */
	bool steps = f->want_steps || f->m.nloops > 1;
	for (int i = 0; i < f->m.nloops && ok; i++) {
		q.trainer = f->m.loops[i].pid;
		ok = read_series(&q, sql, &f->coll_end[i]);
		if (ok && head && f->coll_end[i].n == 0)
			ok = read_series(&q, "SELECT t_end FROM phases WHERE name = 'collective' AND pid = ?3 ORDER BY t_start",
					 &f->coll_end[i]);
		ok = ok && (!steps || fs_metrics_read_steps(&q, f->m.loops[i].pid, false, &f->steps[i]));
	}
	ok = ok && fs_peers_load(&q, 0, &f->peers) == 0;
	int rc = ok && !fs_q_failed(&q) ? 0 : -1;
	if (!ok)
		snprintf(err, errlen, "%s: out of memory reading the collectives and steps", f->path);
	else if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", f->path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}

void fs_merge_file_free(struct fs_merge_file *f)
{
	free(f->seg);
	f->seg = NULL;
	for (int i = 0; i < FS_MAX_LOOPS; i++) {
		free(f->coll_end[i].t);
		fs_steps_series_free(&f->steps[i]);
		f->coll_end[i] = (struct fs_series){0};
	}
	fs_peer_rows_free(&f->peers);
	f->peers = (struct fs_peer_rows){0};
}

int fs_merge_reference(const struct fs_merge_file *files, int n)
{
	int ref = 0;
	for (int i = 1; i < n; i++)
		if (isfinite(files[i].start_unix) && !(files[i].start_unix >= files[ref].start_unix))
			ref = i;
	return ref;
}

/* File i's t = 0 after the reference's, by the wall clock (0 when either
 * lacks a start_unix). */
static double wall_offset(const struct fs_merge_file *files, int n, int i)
{
	double d = files[i].start_unix - files[fs_merge_reference(files, n)].start_unix;
	return isfinite(d) ? d : 0;
}

struct fs_window fs_merge_file_window(const struct fs_merge_file *files, int n, int i, const struct fs_window *w)
{
	double off = wall_offset(files, n, i);
	return (struct fs_window){w->start_s - off, w->end_s - off};
}


/* A node's collective ends: for the k-th collective, the median over its
 * processes that recorded collectives of their k-th end (every rank takes
 * part in each and leaves it at nearly the same instant), k below the
 * fewest any of them recorded. NULL (*n = 0) without collectives; *oom
 * when memory ran out. */
static double *node_ends(const struct fs_merge_file *f, size_t *n, bool *oom)
{
	const struct fs_series *with[FS_MAX_LOOPS];
	int k = 0;
	*n = 0;
	for (int i = 0; i < f->m.nloops; i++)
		if (f->coll_end[i].n > 0) {
			with[k++] = &f->coll_end[i];
			*n = k == 1 || f->coll_end[i].n < *n ? f->coll_end[i].n : *n;
		}
	if (k == 0)
		return NULL;
	double *ends = malloc(*n * sizeof *ends), one[FS_MAX_LOOPS];
	if (!ends) {
		*oom = true;
		*n = 0;
		return NULL;
	}
	for (size_t c = 0; c < *n; c++) {
		for (int j = 0; j < k; j++)
			one[j] = with[j]->t[c];
		ends[c] = fs_quantile(one, (size_t)k, 0.5);
	}
	fs_quantile(ends, *n, 0.5); /* sorts them, for the nearest of each */
	return ends;
}

/* The index of the value of x[0..n) (sorted, n > 0) nearest v. */
static size_t nearest(const double *x, size_t n, double v)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && fabs(x[lo - 1] - v) <= fabs(x[lo] - v) ? lo - 1 : lo;
}

/* Refine a node's wall-clock offset against the clocks' reference: every
 * collective end of the node, after the wall-clock offsets, is paired with
 * the reference's nearest, when that is within half the reference's usual
 * gap between collectives (a collective either recorded and not the other,
 * as when one recording started later, pairs with none); the pairs differ
 * by how far the node's clock is ahead (plus the network's latency). Their
 * median is the correction, their median absolute deviation its
 * uncertainty. ref[] is sorted. False when memory ran out. */
static bool refine(struct fs_merge_node *node, const double *ends, size_t n, const double *ref, size_t ref_n,
		   double ref_offset)
{
	double *d = malloc((n > ref_n ? n : ref_n) * sizeof *d);
	if (!d)
		return false;
	for (size_t c = 0; c + 1 < ref_n; c++)
		d[c] = ref[c + 1] - ref[c];
	double gap = ref_n > 1 ? fs_quantile(d, ref_n - 1, 0.5) : INFINITY;
	size_t m = 0;
	for (size_t c = 0; c < n; c++) {
		double t = ends[c] + node->offset_s - ref_offset; /* in the reference's seconds */
		double x = t - ref[nearest(ref, ref_n, t)];
		if (fabs(x) <= gap / 2)
			d[m++] = x;
	}
	if (m > 0) {
		node->correction_s = fs_quantile(d, m, 0.5);
		for (size_t c = 0; c < m; c++)
			d[c] = fabs(d[c] - node->correction_s);
		node->uncertainty_s = fs_quantile(d, m, 0.5);
		node->collective_ends = (long)m;
	}
	free(d);
	return true;
}

/* The clocks (merge.h): the wall clock, then the collectives. */
static bool align_clocks(const struct fs_merge_file *files, int n, struct fs_merged *g)
{
	double *ends[FS_MERGE_MAX_FILES] = {0};
	size_t nends[FS_MERGE_MAX_FILES] = {0};
	bool oom = false;
	g->reference = fs_merge_reference(files, n);
	g->clock_reference = -1;
	for (int i = 0; i < n; i++) {
		struct fs_merge_node *node = &g->nodes[i];
		node->wall_clock = isfinite(files[i].start_unix);
		node->offset_s = wall_offset(files, n, i);
		node->correction_s = 0;
		node->uncertainty_s = NAN;
		ends[i] = node_ends(&files[i], &nends[i], &oom);
		/* the corrections are relative to the earliest node with collectives */
		if (ends[i] && (g->clock_reference < 0 || node->offset_s < g->nodes[g->clock_reference].offset_s))
			g->clock_reference = i;
	}
	int r = g->clock_reference;
	if (r >= 0)
		g->nodes[r].uncertainty_s = 0;
	g->max_correction_s = 0;
	g->uncertainty_s = 0;
	for (int i = 0; i < n && !oom; i++) {
		struct fs_merge_node *node = &g->nodes[i];
		if (i != r && ends[i] && !refine(node, ends[i], nends[i], ends[r], nends[r], g->nodes[r].offset_s))
			oom = true;
		g->collective_ends += node->collective_ends;
		if (fabs(node->correction_s) > fabs(g->max_correction_s))
			g->max_correction_s = node->correction_s;
	}
	/* the largest; unknown when a node has only the wall clock */
	for (int i = 0; i < n && n > 1; i++)
		if (isnan(g->nodes[i].uncertainty_s))
			g->uncertainty_s = NAN;
		else if (g->nodes[i].uncertainty_s > g->uncertainty_s)
			g->uncertainty_s = g->nodes[i].uncertainty_s;
	for (int i = 0; i < n; i++)
		free(ends[i]);
	return !oom;
}

/* Seconds of file i's time t after the merged t = 0. */
static double aligned(const struct fs_merge_node *node, double t)
{
	return t + node->offset_s - node->correction_s;
}

/* The ranks of all files against each other at their step boundaries,
 * on the aligned clock (sync.h, the definition a single file's ranks get
 * in steps.c): the skew of their step ends, and, in step, what each
 * waited on the others inside its steps (DDP's all_reduce, unseen by the
 * hook); a rank without collectives then gets that as its other_ranks
 * bucket. Steps that end inside the window w. */
static bool cross_sync(const struct fs_merge_file *files, const struct fs_window *w, struct fs_merged *g)
{
	struct fs_rank_steps r[FS_MERGE_MAX_RANKS];
	int who[FS_MERGE_MAX_RANKS], k = 0;
	double wait[FS_MERGE_MAX_RANKS] = {0};
	bool ok = true;
	for (int i = 0; i < g->nranks; i++) {
		const struct fs_steps_series *x = &files[g->ranks[i].file].steps[g->ranks[i].loop];
		const struct fs_merge_node *node = &g->nodes[g->ranks[i].file];
		if (x->n == 0)
			continue;
		double *end = malloc(x->n * sizeof *end), *wt = malloc(x->n * sizeof *wt), *c = malloc(x->n * sizeof *c);
		long n = 0;
		for (size_t j = 0; end && wt && c && j < x->n; j++) {
			double e = aligned(node, x->end[j]);
			if (w && !(e >= w->start_s && e <= w->end_s))
				continue;
			end[n] = e;
			wt[n] = x->wait[j];
			c[n++] = x->compute[j];
		}
		ok = ok && end && wt && c;
		r[k] = (struct fs_rank_steps){end, wt, c, end && wt && c ? n : 0};
		who[k++] = i;
	}
	struct fs_sync sy;
	if (ok && k >= 2)
		fs_sync_ranks(r, k, fs_thresholds.step_sync_skew, fs_thresholds.step_sync_match, &sy, wait);
	else
		memset(&sy, 0, sizeof sy);
	g->skew_steps = k >= 2 ? sy.steps : 0;
	g->skew_median_s = k >= 2 ? sy.skew_median_s : NAN;
	g->skew_p95_s = k >= 2 ? sy.skew_p95_s : NAN;
	g->in_step = k >= 2 && sy.synced;
	for (int j = 0; j < k && g->in_step; j++) {
		struct fs_merge_rank *R = &g->ranks[who[j]];
		const struct fs_metrics *m = &files[R->file].m;
		struct fs_loop_proc L = m->loops[R->loop];
		R->sync_wait_s = L.sync_wait_s = wait[j];
		fs_account(m, &L, &R->a);
		if (R->a.valid && L.have_steps)
			R->lost_waiting_s = R->a.share[FS_BUCKET_RANKS] * R->a.loop_s;
	}
	for (int j = 0; j < k; j++) {
		free((void *)r[j].end);
		free((void *)r[j].wait);
		free((void *)r[j].compute);
	}
	return ok;
}

/* Node names: the hostname; the file's name when it has none or when two
 * files have the same one. */
static void name_nodes(const struct fs_merge_file *files, int n, struct fs_merged *g)
{
	for (int i = 0; i < n; i++) {
		const char *base = strrchr(files[i].path, '/');
		base = base ? base + 1 : files[i].path;
		bool twin = false;
		for (int j = 0; j < n; j++)
			twin = twin || (j != i && !strcmp(files[i].host, files[j].host));
		if (!files[i].host[0])
			snprintf(g->nodes[i].name, sizeof g->nodes[i].name, "%s", base);
		else if (twin)
			snprintf(g->nodes[i].name, sizeof g->nodes[i].name, "%.255s (%.60s)", files[i].host, base);
		else
			snprintf(g->nodes[i].name, sizeof g->nodes[i].name, "%s", files[i].host);
		snprintf(g->nodes[i].path, sizeof g->nodes[i].path, "%s", files[i].path);
	}
}

/* Every file's training processes as ranks, and each node's own figures:
 * its verdict for its own straggler (v is scratch space). */
static void collect_ranks(const struct fs_merge_file *files, int n, struct fs_merged *g, struct fs_verdict *v)
{
	for (int i = 0; i < n; i++) {
		const struct fs_metrics *m = &files[i].m;
		struct fs_merge_node *node = &g->nodes[i];
		double wait = 0, loop = 0;
		node->straggler = -1;
		for (int j = 0; j < m->nloops && g->nranks < FS_MERGE_MAX_RANKS; j++) {
			struct fs_merge_rank *R = &g->ranks[g->nranks];
			const struct fs_loop_proc *L = &m->loops[j];
			*R = (struct fs_merge_rank){.file = i, .loop = j, .pid = L->pid, .rank = L->rank,
						    .local_rank = L->local_rank, .steps = L->steps, .sync_wait_s = NAN,
						    .net = L->net};
			fs_account(m, L, &R->a);
			R->input_wait_s = R->a.valid ? R->a.share[FS_BUCKET_INPUT] * R->a.loop_s : NAN;
			/* without steps the collectives are not seen (accounting.c) */
			R->lost_waiting_s = R->a.valid && L->have_steps ? R->a.share[FS_BUCKET_RANKS] * R->a.loop_s : NAN;
			if (R->a.valid) {
				wait += R->input_wait_s;
				loop += R->a.loop_s;
			}
			if (j == m->trainer)
				node->straggler = g->nranks;
			node->ranks++;
			g->nranks++;
		}
		node->input_wait_share = loop > 0 ? wait / loop : NAN;
		node->gpu_busy = m->gpu_busy;
		fs_diagnose(m, &fs_thresholds, v);
		node->verdict = v->primary;
	}
}

/* The straggler across all ranks (loops.c's rule), and the verdict: its
 * file's, spoken for it. */
static void pick_straggler(const struct fs_merge_file *files, struct fs_merged *g)
{
	/* each with its wait on the others across all nodes where the ranks
	 * are in step (cross_sync); its file's alone if memory ran out */
	struct fs_loop_proc *loops = malloc((size_t)(g->nranks ? g->nranks : 1) * sizeof *loops);
	const struct fs_loop_proc *all[FS_MERGE_MAX_RANKS];
	for (int r = 0; r < g->nranks; r++) {
		all[r] = &files[g->ranks[r].file].m.loops[g->ranks[r].loop];
		if (loops && isfinite(g->ranks[r].sync_wait_s)) {
			loops[r] = *all[r];
			loops[r].sync_wait_s = g->ranks[r].sync_wait_s;
			all[r] = &loops[r];
		}
	}
	const char *why;
	g->straggler = fs_straggler(all, g->nranks, &why);
	free(loops);
	g->verdict_file = g->straggler >= 0 ? g->ranks[g->straggler].file : 0;
	g->m = files[g->verdict_file].m;
	if (g->straggler >= 0) {
		const struct fs_merge_rank *S = &g->ranks[g->straggler];
		if (why)
			snprintf(g->m.trainer_why, sizeof g->m.trainer_why, "%s", why);
		/* Its file chose it by the same rule unless the files differ in
		 * what they recorded (collectives in one only): then it is set
		 * here, and the file's job-level figures stay its own trainer's. */
		g->m.trainer = S->loop;
		g->m.trainer_pid = S->pid;
		/* its file's ranks waited on those of every node */
		for (int r = 0; r < g->nranks; r++)
			if (g->ranks[r].file == S->file && isfinite(g->ranks[r].sync_wait_s))
				g->m.loops[g->ranks[r].loop].sync_wait_s = g->ranks[r].sync_wait_s;
		for (int r = 0; r < g->nranks; r++)
			if (r != g->straggler && isfinite(g->ranks[r].lost_waiting_s))
				g->lost_by_others_s = (isfinite(g->lost_by_others_s) ? g->lost_by_others_s : 0) +
						      g->ranks[r].lost_waiting_s;
	}
	snprintf(g->straggler_why, sizeof g->straggler_why, "%s", g->m.trainer_why);
	fs_diagnose(&g->m, &fs_thresholds, &g->v);
	const struct fs_merge_file *V = &files[g->verdict_file];
	fs_phases(&V->cands, &g->m, V->seg, &fs_thresholds, &g->v);
}

/* qsort has no context argument: the ranks being ordered. */
static const struct fs_merged *g_order;

static int by_rank(const void *a, const void *b)
{
	const struct fs_merge_rank *x = &g_order->ranks[*(const int *)a], *y = &g_order->ranks[*(const int *)b];
	unsigned rx = (unsigned)x->rank, ry = (unsigned)y->rank; /* -1: after every rank */
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->file != y->file)
		return x->file - y->file;
	return x->loop - y->loop;
}

void fs_merge_rank_order(const struct fs_merged *g, int *order)
{
	for (int r = 0; r < g->nranks; r++)
		order[r] = r;
	g_order = g;
	qsort(order, (size_t)g->nranks, sizeof *order, by_rank);
	g_order = NULL;
}

/* Several files: every rank's sockets classified against the sockets of
 * every node (a rank's connection to another node's rank is then seen from
 * both ends: collective, not data). One file keeps its own (tree.c).
 * Returns false when memory ran out (the ranks keep their files'). */
static bool cross_peers(const struct fs_merge_file *files, int n, struct fs_merged *g)
{
	struct fs_peer_rows all = {0};
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += files[i].peers.n;
	if (total == 0)
		return true;
	all.v = malloc(total * sizeof *all.v);
	if (!all.v)
		return false;
	all.cap = total;
	for (int i = 0; i < n; i++)
		for (size_t k = 0; k < files[i].peers.n; k++) {
			all.v[all.n] = files[i].peers.v[k];
			all.v[all.n++].run = i;
		}
	struct fs_peers_report rep = {0};
	bool ok = fs_peers_analyse(&all, &rep) == 0;
	for (int r = 0; r < g->nranks && ok; r++)
		if (!isnan(g->ranks[r].net.data_bytes)) { /* its file has a peers table */
			g->ranks[r].net.data_bytes = g->ranks[r].net.data_s = g->ranks[r].net.coll_bytes = 0;
			g->ranks[r].net.coll_s = g->ranks[r].net.top_bytes = 0;
			g->ranks[r].net.top_peer[0] = '\0';
		}
	for (size_t k = 0; k < rep.n && ok; k++) {
		const struct fs_peer_proc *P = &rep.procs[k];
		int loop = fs_metrics_loop_of(&files[P->run].m, P->pid);
		for (int r = 0; r < g->nranks && loop >= 0; r++)
			if (g->ranks[r].file == P->run && g->ranks[r].loop == loop)
				fs_net_add(&g->ranks[r].net, P);
	}
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&all);
	return ok;
}

int fs_merge(const struct fs_merge_file *files, int n, const struct fs_window *w, struct fs_merged *g)
{
	memset(g, 0, sizeof *g);
	g->nfiles = n;
	g->straggler = -1;
	g->lost_by_others_s = NAN;
	g->skew_median_s = g->skew_p95_s = NAN;
	name_nodes(files, n, g);
	collect_ranks(files, n, g, &g->v);
	bool ok = align_clocks(files, n, g);
	/* one file's ranks are its own (fs_metrics_load): changing nothing there */
	if (n > 1) {
		ok = cross_sync(files, w, g) && ok;
		ok = cross_peers(files, n, g) && ok;
	}
	pick_straggler(files, g);
	return ok ? 0 : -1;
}
