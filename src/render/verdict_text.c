#include <math.h>
#include <string.h>

#include "render/memory.h"
#include "render/threads.h"
#include "render/saturation.h"
#include "render/verdict.h"
#include "util/fmt.h"
#include "util/text.h"

/* Strings in the verdict carry run-file text (disk, loader and file names,
 * meta values): each is printed through fs_text_escape (util/text.h). The
 * buffers hold the longest escape of the fields (4 bytes out per byte in). */
enum { ESC_CAP = 4 * 512 + 1 };

static const char *degree(const struct fs_verdict *v)
{
	double f = v->input_bound_fraction;
	if (!isfinite(f))
		return "input-bound: unknown";
	if (f >= fs_thresholds.input_bound_high)
		return "highly input-bound";
	if (f >= fs_thresholds.input_bound_min && f >= fs_thresholds.input_wait_floor)
		return "moderately input-bound";
	return "not input-bound";
}

/* "rank 3 on nodeB (pid 4242)", or "pid 4242 on nodeB" without a rank. */
static const char *rank_name(char *out, size_t cap, const struct fs_merged *g, const struct fs_merge_rank *R)
{
	char node[4 * sizeof g->nodes[0].name + 1];
	fs_text_escape(node, sizeof node, g->nodes[R->file].name);
	if (R->rank >= 0)
		snprintf(out, cap, "rank %d on %s (pid %d)", R->rank, node, R->pid);
	else
		snprintf(out, cap, "pid %d on %s", R->pid, node);
	return out;
}

/* A share as a table cell: "12%", "-" when unknown. */
static const char *pct(char *out, size_t cap, double x)
{
	if (isfinite(x))
		snprintf(out, cap, "%.0f%%", 100 * x);
	else
		snprintf(out, cap, "-");
	return out;
}

/* The straggler, its cause, and what the others lost waiting on it
 * (their other_ranks bucket); each of them when each is set (one run
 * file: no rank table above says it). */
static void network_line(FILE *out, const struct fs_merged *g);

static void straggler_line(FILE *out, const struct fs_merged *g, bool each)
{
	char who[ESC_CAP], why[ESC_CAP], a[32];
	if (g->straggler < 0)
		return;
	fprintf(out, "  straggler: %s, the one that %s; its cause: %s", rank_name(who, sizeof who, g, &g->ranks[g->straggler]),
		fs_text_escape(why, sizeof why, g->straggler_why), fs_verdict_name(g->v.primary));
	if (!isfinite(g->lost_by_others_s)) {
		fprintf(out, "; what the others lost waiting on it is unknown (collectives are seen with steps only)\n");
		return;
	}
	fprintf(out, "; the others lost %s waiting on it", fs_fmt_time(a, sizeof a, g->lost_by_others_s));
	for (int r = 0, n = 0; each && r < g->nranks; r++) {
		const struct fs_merge_rank *R = &g->ranks[r];
		if (r == g->straggler)
			continue;
		char share[16];
		if (R->rank >= 0)
			snprintf(who, sizeof who, "rank %d", R->rank);
		else
			snprintf(who, sizeof who, "pid %d", R->pid);
		fprintf(out, "%s%s %s (%s of its loop)", n++ ? ", " : ": ", who, fs_fmt_time(a, sizeof a, R->lost_waiting_s),
			pct(share, sizeof share, R->a.share[FS_BUCKET_RANKS]));
	}
	fputc('\n', out);
}

static void head(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v, const struct fs_merged *g)
{
	char a[32], basis[ESC_CAP];
	fprintf(out, "\nverdict: %s", fs_verdict_name(v->primary));
	if (isfinite(v->input_bound_fraction))
		fprintf(out, " — %s (%.0f%% of the time waiting for data)", degree(v), 100 * v->input_bound_fraction);
	fprintf(out, ", confidence %s (from %s)\n", fs_fmt_fixed(a, 32, v->confidence, 2, ""),
		fs_text_escape(basis, sizeof basis, v->basis));
	if (m->incomplete)
		fprintf(out, "  incomplete: the recording stopped at %s without an end record (the recorder was"
			     " killed, or is still recording); this verdict covers what was recorded\n",
			isfinite(m->recorded_until_s) ? fs_fmt_time(a, 32, m->recorded_until_s) : "t unknown");
	if (g && g->nfiles > 1 && g->straggler >= 0) {
		char who[ESC_CAP], path[ESC_CAP];
		fprintf(out, "  for the straggler, %s, from its node's run file %s\n",
			rank_name(who, sizeof who, g, &g->ranks[g->straggler]),
			fs_text_escape(path, sizeof path, g->nodes[g->verdict_file].path));
	}
}

static const char *const bucket_label[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "busy", [FS_BUCKET_INPUT] = "input wait", [FS_BUCKET_HOST_IO] = "host I/O",
	[FS_BUCKET_RANKS] = "other ranks", [FS_BUCKET_EPOCH] = "epoch starts", [FS_BUCKET_OTHER] = "other",
};

static void bucket_line(FILE *out, const struct fs_accounting *a)
{
	for (int b = 0; b < FS_BUCKET__N; b++)
		fprintf(out, "%s%s %.0f%%", b ? ", " : "", bucket_label[b], 100 * a->share[b]);
}

/* Where the loop's time went: the trainer's buckets, then a line per
 * training process when there are several and the straggler's line (of
 * several run files, the rank table above has them all). */
static void accounting(FILE *out, const struct fs_verdict *v, const struct fs_merged *g)
{
	const struct fs_accounting *A = fs_verdict_trainer(v);
	char why[ESC_CAP];
	if (!A || !A->valid)
		return;
	fprintf(out, "  where the loop's time went (from %s): ", A->basis);
	bucket_line(out, A);
	fputc('\n', out);
	if (v->nacct < 2 || (g && g->nfiles > 1))
		return;
	char who[48];
	if (A->rank >= 0)
		snprintf(who, sizeof who, "rank %d, pid %d", A->rank, A->pid);
	else
		snprintf(who, sizeof who, "pid %d", A->pid);
	fprintf(out, "  per process (* the verdict speaks for %s, the one that %s):\n", who,
		fs_text_escape(why, sizeof why, v->trainer_why));
	for (int i = 0; i < v->nacct; i++) {
		const struct fs_accounting *a = &v->acct[i];
		if (a->rank >= 0)
			fprintf(out, "    %c rank %-3d pid %-7d ", i == v->trainer ? '*' : ' ', a->rank, a->pid);
		else
			fprintf(out, "    %c pid %-7d          ", i == v->trainer ? '*' : ' ', a->pid);
		if (a->valid)
			bucket_line(out, a);
		else
			fprintf(out, "no steps and no accelerator signal");
		fputc('\n', out);
	}
	if (g) {
		straggler_line(out, g, true);
		network_line(out, g);
	}
}

/* The loaders' stages (load/stages.h), the largest own times first: at
 * most five, then what the others hold together. */
static void stages(FILE *out, const struct fs_metrics *m)
{
	const struct fs_stages *st = &m->stages;
	char name[4 * 128 + 1], a[32];
	if (!st->timed || !(st->worker_s > 0))
		return;
	fprintf(out, "  loader stages (%d workers, busy %.0f%% of their time; own time, exclusive, as a share of it):\n",
		st->workers, 100 * st->busy_s / st->worker_s);
	double rest = 0;
	for (int i = 0; i < st->n; i++) {
		const struct fs_loader_stage *s = &st->s[i];
		if (i >= 5) {
			rest += s->self_share;
			continue;
		}
		fprintf(out, "    · %-40s %4.0f%%  %s a call, CPU %.0f%%", fs_text_escape(name, sizeof name, s->name),
			100 * s->self_share, fs_fmt_time(a, sizeof a, s->calls > 0 ? s->self_s / (double)s->calls : NAN),
			s->self_s > 0 ? 100 * fmin(1, s->self_cpu_s / s->self_s) : 0);
		if (!strcmp(s->kind, "getitem") && isfinite(s->io_s) && s->self_s > 0)
			fprintf(out, ", I/O calls %.0f%%", 100 * s->io_s / s->self_s);
		fprintf(out, "%s\n", !strcmp(s->kind, "getitem") ? " (itself, outside its transforms)" : "");
	}
	if (st->n > 5)
		fprintf(out, "    · %d more stages %.0f%%\n", st->n - 5, 100 * rest);
}

static void evidence(FILE *out, const struct fs_verdict *v)
{
	char text[ESC_CAP], src[ESC_CAP];
	if (!v->nev)
		return;
	fprintf(out, "  evidence:\n");
	for (int i = 0; i < v->nev; i++)
		fprintf(out, "    · %s  [%s]\n", fs_text_escape(text, sizeof text, v->ev[i].text),
			fs_text_escape(src, sizeof src, v->ev[i].source));
}

static void recommendations(FILE *out, const struct fs_verdict *v)
{
	char knob[ESC_CAP], cur[ESC_CAP], sug[ESC_CAP], why[ESC_CAP];
	if (!v->nrec)
		return;
	fprintf(out, "  what to change:\n");
	for (int i = 0; i < v->nrec; i++) {
		const struct fs_recommendation *r = &v->rec[i];
		fprintf(out, "    · %s: %s → %s", fs_text_escape(knob, sizeof knob, r->knob),
			fs_text_escape(cur, sizeof cur, r->current), fs_text_escape(sug, sizeof sug, r->suggested));
		if (r->why[0])
			fprintf(out, "\n      (%s)", fs_text_escape(why, sizeof why, r->why));
		if (r->relieves[0])
			fprintf(out, "\n      relieves: %s", fs_text_escape(why, sizeof why, r->relieves));
		if (isfinite(r->speedup)) {
			fprintf(out, "\n      predicted: %.2fx with %s", r->speedup, fs_text_escape(why, sizeof why, r->change));
			fprintf(out, ", then %s", fs_text_escape(why, sizeof why, r->then));
		}
		fputc('\n', out);
	}
}

/* "epoch 2", "epochs 1–3", or the seconds when epochs are not known. */
static const char *phase_when(char *out, size_t cap, const struct fs_phase *p)
{
	char a[32], b[32];
	if (p->first_epoch >= 0 && p->last_epoch > p->first_epoch)
		snprintf(out, cap, "epochs %ld–%ld", p->first_epoch, p->last_epoch);
	else if (p->first_epoch >= 0)
		snprintf(out, cap, "epoch %ld", p->first_epoch);
	else
		snprintf(out, cap, "%s–%s", fs_fmt_fixed(a, 32, p->start_s, 0, " s"), fs_fmt_fixed(b, 32, p->end_s, 0, " s"));
	return out;
}

/* One line per phase where the loop had several, and the steady state. */
static void phases(FILE *out, const struct fs_verdict *v)
{
	char when[96], a[32], b[32], text[ESC_CAP];
	if (v->nphases < 2)
		return;
	fprintf(out, "  phases: %d, the verdict changed during the run (%s)\n", v->nphases,
		fs_text_escape(text, sizeof text, v->phase_method));
	for (int i = 0; i < v->nphases; i++) {
		const struct fs_phase *p = &v->phase[i];
		if (p->first_epoch >= 0)
			fprintf(out, "    · %s (%s–%s)", phase_when(when, sizeof when, p), fs_fmt_fixed(a, 32, p->start_s, 0, " s"),
				fs_fmt_fixed(b, 32, p->end_s, 0, " s"));
		else
			fprintf(out, "    · %s", phase_when(when, sizeof when, p));
		fprintf(out, ": %s, input-bound %s", fs_verdict_name(p->primary),
			fs_fmt_fixed(text, 32, 100 * p->input_bound_fraction, 0, "%"));
		if (p->limit[0])
			fprintf(out, ", limit: %s", fs_text_escape(text, sizeof text, p->limit));
		if (isfinite(p->predicted_speedup))
			fprintf(out, ", %.2fx if fixed", p->predicted_speedup);
		fputc('\n', out);
	}
	const struct fs_phase *S = &v->phase[v->steady];
	if (S->first_epoch >= 0)
		fprintf(out, "  steady state: from epoch %ld on: %s\n", S->first_epoch, fs_verdict_name(S->primary));
	else
		fprintf(out, "  steady state: from %s on: %s\n", fs_fmt_fixed(a, 32, S->start_s, 0, " s"),
			fs_verdict_name(S->primary));
}

static void render(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v, const struct fs_merged *g)
{
	char text[ESC_CAP];
	head(out, m, v, g);
	accounting(out, v, g);
	stages(out, m);
	phases(out, v);
	if (v->runner_up[0])
		fprintf(out, "  runner-up: %s (%.0f%%), close to the verdict's cause\n", v->runner_up,
			100 * v->runner_up_share);
	if (fs_sat_shown(m, v)) {
		char line[1024];
		fprintf(out, "  storage limit: %s\n", fs_text_escape(text, sizeof text, fs_sat_head(m, line, sizeof line)));
		for (int l = 0; l < FS_LIMIT__N; l++)
			fprintf(out, "    · %s\n", fs_text_escape(text, sizeof text, fs_sat_line(m, (enum fs_limit)l, line, sizeof line)));
	}
	evidence(out, v);
	recommendations(out, v);
	if (isfinite(v->predicted_speedup))
		fprintf(out, "  predicted speedup if fixed: %.2fx%s%s\n", v->predicted_speedup,
			v->speedup_cap[0] ? " — " : "", fs_text_escape(text, sizeof text, v->speedup_cap));
	else if (v->speedup_cap[0])
		fprintf(out, "  predicted speedup if fixed: %s\n", fs_text_escape(text, sizeof text, v->speedup_cap));
	for (int i = 0; i < v->nfind; i++) {
		const struct fs_finding *f = &v->find[i];
		if (f->id == v->primary)
			continue;
		if (isfinite(f->fraction_of_time))
			fprintf(out, "  also: %s, %.0f%% of the time\n", fs_verdict_name(f->id), 100 * f->fraction_of_time);
		else
			fprintf(out, "  also: %s\n", fs_verdict_name(f->id));
	}
	fs_memory_render_text(out, m, v);
	fs_threads_render_text(out, m, v);
	if (v->nmissing) {
		fprintf(out, "  signals missing:\n");
		for (int i = 0; i < v->nmissing; i++)
			fprintf(out, "    · %s\n", fs_text_escape(text, sizeof text, v->missing[i]));
	}
}

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	render(out, m, v, NULL);
}

/* A node's clock as a cell: the reference, its correction and spread, or
 * the wall clock alone. */
static const char *clock_cell(char *out, size_t cap, const struct fs_merged *g, int i)
{
	const struct fs_merge_node *N = &g->nodes[i];
	char a[32], b[32];
	if (i == g->clock_reference || (g->clock_reference < 0 && i == g->reference))
		snprintf(out, cap, "reference");
	else if (N->collective_ends > 0)
		snprintf(out, cap, "%s%s ± %s", N->correction_s >= 0 ? "+" : "", fs_fmt_time(a, sizeof a, N->correction_s),
			 fs_fmt_time(b, sizeof b, N->uncertainty_s));
	else
		snprintf(out, cap, "wall clock only");
	return out;
}

static void clock_line(FILE *out, const struct fs_merged *g)
{
	char a[32], b[32], node[ESC_CAP];
	fprintf(out, "  clock      aligned by wall clock (meta start_unix)");
	if (g->collective_ends > 0) {
		fprintf(out, ", corrected by up to %s from %ld collective ends, ", fs_fmt_time(a, sizeof a, fabs(g->max_correction_s)),
			g->collective_ends);
		if (isfinite(g->uncertainty_s))
			fprintf(out, "± %s (median absolute deviation)\n", fs_fmt_time(b, sizeof b, g->uncertainty_s));
		else
			fprintf(out, "uncertainty unknown where a node recorded none (NTP-level: milliseconds or more)\n");
	} else {
		fprintf(out, " only: no collectives to correct it by; uncertainty unknown (NTP-level: milliseconds or more)\n");
	}
	for (int i = 0; i < g->nfiles; i++)
		if (!g->nodes[i].wall_clock)
			fprintf(out, "             %s has no wall-clock start (meta start_unix): its t = 0 is taken as the earliest's\n",
				fs_text_escape(node, sizeof node, g->nodes[i].name));
}

static void nodes_table(FILE *out, const struct fs_merged *g)
{
	char node[ESC_CAP], path[ESC_CAP], w[16], gb[16], clk[96];
	int straggler_node = g->straggler >= 0 ? g->ranks[g->straggler].file : -1;
	fprintf(out, "  nodes (* the straggler's):\n");
	fprintf(out, "      %-20s %5s  %-18s %10s %9s  %-22s %s\n", "node", "ranks", "its verdict", "input wait",
		"GPU busy", "clock", "file");
	for (int i = 0; i < g->nfiles; i++) {
		const struct fs_merge_node *N = &g->nodes[i];
		fprintf(out, "    %c ", i == straggler_node ? '*' : ' ');
		fs_text_cell(out, fs_text_escape(node, sizeof node, N->name), 20);
		fprintf(out, " %5d  %-18s %10s %9s  ", N->ranks, fs_verdict_name(N->verdict),
			pct(w, sizeof w, N->input_wait_share), pct(gb, sizeof gb, N->gpu_busy));
		fs_text_cell(out, clock_cell(clk, sizeof clk, g, i), 22);
		fprintf(out, " %s\n", fs_text_escape(path, sizeof path, N->path));
	}
}

static void ranks_table(FILE *out, const struct fs_merged *g)
{
	static const char *const head_of[FS_BUCKET__N] = {
		[FS_BUCKET_BUSY] = "busy", [FS_BUCKET_INPUT] = "input", [FS_BUCKET_HOST_IO] = "host I/O",
		[FS_BUCKET_RANKS] = "ranks", [FS_BUCKET_EPOCH] = "epoch", [FS_BUCKET_OTHER] = "other",
	};
	char node[ESC_CAP], rank[16], loop[32], lost[32], cell[16];
	fprintf(out, "  ranks (* the straggler; buckets as shares of each one's loop, \"ranks\" = waiting on the others):\n");
	fprintf(out, "      %4s  %-20s %8s %9s", "rank", "node", "pid", "loop");
	for (int b = 0; b < FS_BUCKET__N; b++)
		fprintf(out, " %8s", head_of[b]);
	fprintf(out, "  %s\n", "lost waiting");
	int order[FS_MERGE_MAX_RANKS];
	fs_merge_rank_order(g, order);
	for (int i = 0; i < g->nranks; i++) {
		int r = order[i];
		const struct fs_merge_rank *R = &g->ranks[r];
		if (R->rank >= 0)
			snprintf(rank, sizeof rank, "%d", R->rank);
		else
			snprintf(rank, sizeof rank, "-");
		fprintf(out, "    %c %4s  ", r == g->straggler ? '*' : ' ', rank);
		fs_text_cell(out, fs_text_escape(node, sizeof node, g->nodes[R->file].name), 20);
		fprintf(out, " %8d %9s", R->pid, fs_fmt_time(loop, sizeof loop, R->a.loop_s));
		for (int b = 0; b < FS_BUCKET__N; b++)
			fprintf(out, " %8s", pct(cell, sizeof cell, R->a.valid ? R->a.share[b] : NAN));
		fprintf(out, "  %s\n", fs_fmt_time(lost, sizeof lost, R->lost_waiting_s));
	}
}

/* Each rank's sockets (and its workers'), when the tracer recorded them:
 * the data network (and its busiest peer) apart from the traffic with the
 * job's own processes (docs/verdicts.md, "Data network and collective
 * traffic"). Nothing when no rank has a peers table. */
static void network_line(FILE *out, const struct fs_merged *g)
{
	bool any = false;
	for (int r = 0; r < g->nranks; r++)
		any = any || isfinite(g->ranks[r].net.data_bytes);
	if (!any)
		return;
	int order[FS_MERGE_MAX_RANKS];
	fs_merge_rank_order(g, order);
	fprintf(out, "  network: data network / with the job's own processes (collectives, store)");
	for (int i = 0; i < g->nranks; i++) {
		const struct fs_merge_rank *R = &g->ranks[order[i]];
		char who[32], d[32], c[32], peer[ESC_CAP];
		if (R->rank >= 0)
			snprintf(who, sizeof who, "rank %d", R->rank);
		else
			snprintf(who, sizeof who, "pid %d", R->pid);
		if (!isfinite(R->net.data_bytes)) {
			fprintf(out, "%s%s unknown", i ? ", " : ": ", who);
			continue;
		}
		fprintf(out, "%s%s %s", i ? ", " : ": ", who, fs_fmt_bytes(d, sizeof d, R->net.data_bytes));
		if (R->net.top_peer[0])
			fprintf(out, " (most from %s)", fs_text_escape(peer, sizeof peer, R->net.top_peer));
		fprintf(out, " / %s", fs_fmt_bytes(c, sizeof c, R->net.coll_bytes));
	}
	fputc('\n', out);
}

/* Several run files: what they are together, before the verdict. */
static void merged_head(FILE *out, const struct fs_merged *g)
{
	char a[32], b[32];
	fprintf(out, "\nfeedscope: %d run files, one per node, %d training processes; times are seconds since the"
		     " earliest file's start\n", g->nfiles, g->nranks);
	clock_line(out, g);
	if (g->skew_steps > 0)
		fprintf(out, "  skew       step ends across ranks: median %s, p95 %s (over %ld steps)%s\n",
			fs_fmt_time(a, sizeof a, g->skew_median_s), fs_fmt_time(b, sizeof b, g->skew_p95_s), g->skew_steps,
			g->in_step ? "" : "; the ranks are not in step");
	else
		fprintf(out, "  skew       unknown: fewer than two ranks sent steps\n");
	nodes_table(out, g);
	ranks_table(out, g);
	straggler_line(out, g, false);
	network_line(out, g);
}

void fs_merged_render_text(FILE *out, const struct fs_merged *g)
{
	if (g->nfiles > 1)
		merged_head(out, g);
	render(out, &g->m, &g->v, g->nranks > 1 ? g : NULL);
}
