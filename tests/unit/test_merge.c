/* Several run files as one job (src/analysis/compare/merge.c), on golden run files
 * of two nodes: node-a with ranks 0 and 1, node-b with ranks 2 and 3, rank 3
 * the slow one (its loaders blocked in I/O on a saturated disk), the others
 * waiting on it inside collectives. node-b's recording started 5 s after
 * node-a's by their wall clocks, and node-b's clock is 3 ms ahead: the
 * merge must find the 3 ms from the collective ends, name rank 3 on node-b
 * and its cause, and measure the skew of step ends after the correction.
 * Then files without collectives (wall clock only), two files of one
 * hostname, and one file through the merge, which must change nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/advise/diagnose.h"
#include "analysis/compare/merge.h"
#include "analysis/load/load.h"
#include "check.h"
#include "golden.h"
#include "render/verdict.h"

#define EXACT 1e-9
#define STEPS 40

static char dir[] = "/tmp/fs-merge-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

/* The true time (node-a's clock) node-b's file time t is at: node-b's
 * start_unix reads 5 s after node-a's, on a clock 3 ms ahead. */
#define B_START 5.0
#define B_AHEAD 0.003

/* A small deterministic jitter (±0.1 ms) of rank r's k-th collective end:
 * ranks leave a collective at nearly, not exactly, the same instant. */
static double jitter(int r, int k)
{
	return (double)((k * 7 + r * 3) % 5 - 2) * 0.5e-4;
}

/* One node's run file. Ranks r0 and r0 + 1 (pids 100 + r, their workers
 * 200 + r); step k of every rank ends at true time 6 + k + 1 + r ms, the
 * end of its collective. The slow rank (slow >= 0) waits 0.6 s for its
 * batch and spends 10 ms in the collective; the others wait 50 ms and spend
 * 0.9 s in it. shift: the node's file time is true time - shift. */
static void node_file(const char *path, const char *host, double start_unix, double shift, int r0, int slow,
		      bool collectives)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "50");
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "ncpu", "8");
	fs_sink_meta(s, "hostname", host);
	fs_sink_metaf(s, "start_unix", "%.6f", start_unix);
	fs_sink_meta(s, "end_unix", "1700000100");
	int ticks = (int)(6 + STEPS + 3 - shift);
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int r = r0; r < r0 + 2; r++) {
		golden_row(s, FS_T_RANKS, 0, "pid=%d ppid=50 rank=%d local_rank=%d world_size=4 var=RANK t=0.5", 100 + r, r,
			   r - r0);
		golden_row(s, FS_T_RANKS, 0, "pid=%d ppid=%d rank=%d local_rank=%d world_size=4 var=RANK t=0.6", 200 + r,
			   100 + r, r, r - r0);
	}
	for (int t = 1; t <= ticks; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_PROC, t, "pid=50 ppid=1 role=main running=0 blocked_io=0 sleeping=1 threads=1");
		for (int r = r0; r < r0 + 2; r++) {
			golden_row(s, FS_T_PROC, t, "pid=%d ppid=50 role=worker running=1 blocked_io=0 sleeping=2 threads=3",
				   100 + r);
			golden_row(s, FS_T_PROC, t, "pid=%d ppid=%d role=worker running=0 blocked_io=%d sleeping=%d threads=1",
				   200 + r, 100 + r, r == slow, r != slow);
		}
		golden_row(s, FS_T_DISK, t, "dt_s=1 device=sda reads_per_s=100 read_bytes_per_s=%g util_pct=%g read_await_ms=20"
					 " queue_depth=2", slow >= 0 ? 100e6 : 1e6, slow >= 0 ? 99.0 : 5.0);
	}
	for (int r = r0; r < r0 + 2; r++)
		for (int k = 0; k < STEPS; k++) {
			double start = 6 + k - shift, end = start + 1 + r * 1e-3; /* file time */
			double wait = r == slow ? 0.6 : 0.05;
			golden_row(s, FS_T_STEPS, start + wait, "pid=%d loader=train epoch=0 step=%d wait_s=%.9f compute_s=%.9f",
				   100 + r, k, wait, end - (start + wait));
			double in = r == slow ? 0.01 : 0.9;
			if (collectives)
				golden_row(s, FS_T_PHASES, 0, "t_start=%.9f t_end=%.9f pid=%d name=collective", start + 1 - in,
					   start + 1 + jitter(r, k), 100 + r);
		}
	CHECK(fs_store_close(st) == 0);
}

/* Read and merge the files named; NULL on failure (counted). */
static struct fs_merged *merge(struct fs_merge_file *files, const char *const *paths, int n, const struct fs_window *w)
{
	char err[600];
	for (int i = 0; i < n; i++)
		if (fs_merge_head(paths[i], &files[i], err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			CHECK(!"fs_merge_head");
			return NULL;
		}
	struct fs_window all = {-INFINITY, INFINITY};
	for (int i = 0; i < n; i++) {
		struct fs_window wi = fs_merge_file_window(files, n, i, w ? w : &all);
		if (fs_merge_load(&files[i], &wi, err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			CHECK(!"fs_merge_load");
			return NULL;
		}
	}
	struct fs_merged *g = malloc(sizeof *g);
	CHECK(g != NULL);
	if (g)
		CHECK_INT(fs_merge(files, n, w, g), 0);
	return g;
}

static void free_files(struct fs_merge_file *files, int n)
{
	for (int i = 0; i < n; i++)
		fs_merge_file_free(&files[i]);
}

static const struct fs_merge_rank *rank_of(const struct fs_merged *g, int rank)
{
	for (int r = 0; r < g->nranks; r++)
		if (g->ranks[r].rank == rank)
			return &g->ranks[r];
	return NULL;
}

static void two_nodes(void)
{
	char a[256], b[256];
	path_of(a, sizeof a, "run-node-a.db");
	path_of(b, sizeof b, "run-node-b.db");
	node_file(a, "node-a", 1700000000.0, 0, 0, -1, true);
	node_file(b, "node-b", 1700000000.0 + B_START, B_START - B_AHEAD, 2, 3, true);
	struct fs_merge_file files[2];
	const char *paths[] = {a, b};
	struct fs_merged *g = merge(files, paths, 2, NULL);
	if (!g)
		return;
	CHECK_INT(g->nfiles, 2);
	CHECK_INT(g->nranks, 4);
	CHECK_STR(g->nodes[0].name, "node-a");
	CHECK_STR(g->nodes[1].name, "node-b");
	/* the clocks: node-a is the reference; node-b 5 s later by the wall
	 * clock, its clock 3 ms ahead, found from the 40 collective ends
	 * (median over its two ranks each, paired with node-a's nearest) */
	CHECK_INT(g->reference, 0);
	CHECK_INT(g->clock_reference, 0);
	CHECK_NEAR(g->nodes[1].offset_s, B_START, 1e-6);
	CHECK_NEAR(g->nodes[1].correction_s, B_AHEAD, 1e-3);
	CHECK_NEAR(g->nodes[1].correction_s, B_AHEAD, 1e-4); /* the jitter is ±0.1 ms */
	CHECK_INT(g->nodes[1].collective_ends, STEPS);
	CHECK(g->nodes[1].uncertainty_s >= 0 && g->nodes[1].uncertainty_s <= 1e-4);
	CHECK_INT(g->collective_ends, STEPS);
	CHECK_NEAR(g->max_correction_s, B_AHEAD, 1e-4);
	CHECK(isfinite(g->uncertainty_s));
	/* the straggler: rank 3 on node-b, the least of its loop in collectives */
	CHECK(g->straggler >= 0);
	const struct fs_merge_rank *S = g->straggler >= 0 ? &g->ranks[g->straggler] : NULL;
	CHECK(S && S->rank == 3 && S->pid == 103 && S->file == 1);
	CHECK(strstr(g->straggler_why, "the least time waiting on the other ranks") != NULL);
	CHECK_INT(g->verdict_file, 1);
	CHECK_INT(g->m.trainer_pid, 103);
	CHECK_STR(fs_verdict_name(g->v.primary), "storage_bandwidth");
	/* each of the others lost its 0.9 s a step inside the collective */
	for (int r = 0; r < 3; r++) {
		const struct fs_merge_rank *R = rank_of(g, r);
		CHECK(R != NULL);
		if (R) {
			CHECK_NEAR(R->lost_waiting_s, STEPS * 0.9, 1e-6);
			CHECK_NEAR(R->a.loop_s, STEPS * (1 + r * 1e-3), 1e-6);
			CHECK_INT(R->steps, STEPS);
		}
	}
	CHECK_NEAR(g->lost_by_others_s, 3 * STEPS * 0.9, 1e-5);
	if (S) {
		CHECK_NEAR(S->lost_waiting_s, STEPS * 0.01, 1e-6);
		CHECK_NEAR(S->input_wait_s, STEPS * 0.6, 1e-6);
	}
	/* the nodes: each its own straggler's verdict; node-a's ranks wait on
	 * the others most (undetermined: the bucket no verdict names) */
	CHECK_INT(g->nodes[0].ranks, 2);
	CHECK_INT(g->nodes[1].ranks, 2);
	CHECK_STR(fs_verdict_name(g->nodes[1].verdict), "storage_bandwidth");
	CHECK_STR(fs_verdict_name(g->nodes[0].verdict), "undetermined");
	/* node-b's input wait: (40 × 0.6 + 40 × 0.05) ÷ (40 × 1.002 + 40 × 1.003) */
	CHECK_NEAR(g->nodes[1].input_wait_share, (0.6 + 0.05) / (1.002 + 1.003), 1e-9);
	/* the skew: step k ends at true 7 + k + r ms for rank r: 3 ms between
	 * rank 0 and rank 3, once node-b's 3 ms are taken out (6 ms if not) */
	CHECK_INT(g->skew_steps, STEPS);
	CHECK_NEAR(g->skew_median_s, 0.003, 1e-4);
	CHECK_NEAR(g->skew_p95_s, 0.003, 1e-4);
	/* the text says it */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	if (f) {
		fs_merged_render_text(f, g);
		fclose(f);
		CHECK(strstr(text, "\n  straggler: rank 3 on node-b (pid 103), the one that spent the least time waiting on "));
		CHECK(strstr(text, "; its cause: storage_bandwidth; the others lost 108 s waiting on it\n"));
		CHECK(strstr(text, "  clock      aligned by wall clock (meta start_unix), corrected by up to 3"));
		CHECK(strstr(text, " ms from 40 collective ends, ± "));
		CHECK(strstr(text, "  skew       step ends across ranks: median ")); /* 3 ms ± the jitter, checked above */
		CHECK(strstr(text, " ms (over 40 steps)\n"));
		CHECK(strstr(text, "for the straggler, rank 3 on node-b (pid 103), from its node's run file"));
		CHECK(strstr(text, "per process") == NULL); /* the ranks table has them all */
		free(text);
	}
	/* node-b's first 5 collectives not recorded (its recording began
	 * later): each of the others still pairs with its own */
	char late[256];
	path_of(late, sizeof late, "late-b.db");
	node_file(late, "node-b", 1700000000.0 + B_START, B_START - B_AHEAD, 2, 3, true);
	golden_sql(late, "DELETE FROM phases WHERE name = 'collective' AND t_end < 7"); /* k + 2.003 for step k */
	struct fs_merge_file lf[2];
	const char *lpaths[] = {a, late};
	struct fs_merged *lg = merge(lf, lpaths, 2, NULL);
	if (lg) {
		CHECK_INT(lg->nodes[1].collective_ends, STEPS - 5);
		CHECK_NEAR(lg->nodes[1].correction_s, B_AHEAD, 1e-4);
	}
	free_files(lf, 2);
	free(lg);
	/* a window (seconds since node-a's start): steps 10..19 end in 16..26 */
	struct fs_window w = {16.5, 26.5};
	struct fs_window wb = fs_merge_file_window(files, 2, 1, &w);
	CHECK_NEAR(wb.start_s, 16.5 - B_START, 1e-6);
	free_files(files, 2);
	free(g);
	struct fs_merge_file wf[2];
	g = merge(wf, paths, 2, &w);
	if (g) {
		CHECK_INT(g->skew_steps, 10);
		const struct fs_merge_rank *R = rank_of(g, 0);
		CHECK(R && R->steps == 10);
		CHECK(g->straggler >= 0 && g->ranks[g->straggler].rank == 3);
	}
	free_files(wf, 2);
	free(g);
}

/* node-b's file alone: its ranks, its straggler, what rank 2 lost. */
/* Sockets across nodes: rank 1 (node a) and rank 2 (node b) talk over
 * the nodes' addresses; rank 0's worker fetches data from a server. Each
 * file alone sees its end only (data); merged, both ends are traced: the
 * traffic between ranks is collective, the server's stays data. */
static void cross_node_sockets(void)
{
	char pa[512], pb[512];
	path_of(pa, sizeof pa, "net-a.db");
	path_of(pb, sizeof pb, "net-b.db");
	node_file(pa, "node-a", 1700000000.0, 0, 0, -1, true);
	node_file(pb, "node-b", 1700000000.0, 0, 2, 3, true);
	CHECK_INT(golden_sql(pa, "INSERT INTO peers (pid, thread, kind, family, local_addr, local_port, peer_addr,"
			     " peer_port, read_bytes, write_bytes, read_s, write_s, calls) VALUES"
			     " (101, 'other', 'peer', 'inet', '10.213.1.1', 5001, '10.213.1.2', 6002, 7000, 7000, 0.5, 0.5, 9),"
			     " (200, 'main', 'peer', 'inet', '10.213.1.1', 40000, '10.9.9.9', 80, 4000, 50, 1, 0, 5)"),
		  0);
	CHECK_INT(golden_sql(pb, "INSERT INTO peers (pid, thread, kind, family, local_addr, local_port, peer_addr,"
			     " peer_port, read_bytes, write_bytes, read_s, write_s, calls) VALUES"
			     " (102, 'other', 'peer', 'inet', '10.213.1.2', 6002, '10.213.1.1', 5001, 7000, 7000, 0.5, 0.5, 9)"),
		  0);
	/* alone: node a sees its end of the connection only */
	struct fs_merge_file files[2] = {0};
	const char *one[] = {pa};
	struct fs_merged *g = merge(files, one, 1, NULL);
	const struct fs_merge_rank *r1 = g ? rank_of(g, 1) : NULL;
	CHECK(r1 != NULL);
	if (r1)
		CHECK_NEAR(r1->net.data_bytes, 14000, EXACT);
	free(g);
	free_files(files, 1);
	const char *both[] = {pa, pb};
	g = merge(files, both, 2, NULL);
	if (g) {
		const struct fs_merge_rank *r0 = rank_of(g, 0), *r2 = rank_of(g, 2), *r3 = rank_of(g, 3);
		r1 = rank_of(g, 1);
		CHECK(r0 && r1 && r2 && r3);
		if (r0 && r1 && r2 && r3) {
			CHECK_NEAR(r1->net.data_bytes, 0, EXACT);
			CHECK_NEAR(r1->net.coll_bytes, 14000, EXACT);
			CHECK_NEAR(r2->net.coll_bytes, 14000, EXACT);
			CHECK_NEAR(r2->net.coll_s, 1, EXACT);
			CHECK_NEAR(r0->net.data_bytes, 4050, EXACT); /* its worker's */
			CHECK_STR(r0->net.top_peer, "10.9.9.9:80");
			CHECK_NEAR(r3->net.data_bytes, 0, EXACT); /* known: none */
		}
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			fs_merged_render_text(f, g);
			fclose(f);
			CHECK(strstr(text, "  network: data network / with the job's own processes (collectives, store): "
					   "rank 0 3.96 KiB (most from 10.9.9.9:80) / 0 B, rank 1 0 B / 13.7 KiB, rank 2 0 B / 13.7 KiB, rank 3 0 B / 0 B\n") != NULL);
			if (!strstr(text, "rank 1 0 B / 13.7 KiB"))
				fprintf(stderr, "%s", text);
			free(text);
		}
	}
	free(g);
	free_files(files, 2);
}

static void one_file_of_ranks(void)
{
	char b[256];
	path_of(b, sizeof b, "run-node-b.db");
	struct fs_merge_file files[1];
	const char *paths[] = {b};
	struct fs_merged *g = merge(files, paths, 1, NULL);
	if (!g)
		return;
	CHECK_INT(g->nranks, 2);
	CHECK(g->straggler >= 0 && g->ranks[g->straggler].rank == 3);
	CHECK_NEAR(g->lost_by_others_s, STEPS * 0.9, 1e-6);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	if (f) {
		fs_merged_render_text(f, g);
		fclose(f);
		/* rank 2: 36 s of its 40.08 s loop */
		CHECK(strstr(text, "per process (* the verdict speaks for rank 3, pid 103"));
		CHECK(strstr(text, "  straggler: rank 3 on node-b (pid 103), the one that spent the least time waiting on "));
		CHECK(strstr(text, "; its cause: storage_bandwidth; the others lost 36 s waiting on it: "
				   "rank 2 36 s (90% of its loop)\n"));
		CHECK(strstr(text, "feedscope: ") == NULL); /* no merged header */
		free(text);
	}
	free_files(files, 1);
	free(g);
}

/* Without collectives: the wall clock alone, its uncertainty unknown; the
 * straggler is the longest wait. Two files of one hostname are told apart
 * by their file names. */
static void wall_clock_only(void)
{
	char a[256], b[256];
	path_of(a, sizeof a, "x.db");
	path_of(b, sizeof b, "y.db");
	node_file(a, "twin", 1700000000.0, 0, 0, -1, false);
	node_file(b, "twin", 1700000000.0 + B_START, B_START - B_AHEAD, 2, 3, false);
	struct fs_merge_file files[2];
	const char *paths[] = {b, a}; /* the reference is the earliest start, not the first named */
	struct fs_merged *g = merge(files, paths, 2, NULL);
	if (g) {
		CHECK_STR(g->nodes[0].name, "twin (y.db)");
		CHECK_STR(g->nodes[1].name, "twin (x.db)");
		CHECK_INT(g->reference, 1);
		CHECK_INT(g->clock_reference, -1);
		CHECK_INT(g->collective_ends, 0);
		CHECK(isnan(g->uncertainty_s));
		CHECK_NEAR(g->nodes[0].correction_s, 0, EXACT);
		CHECK_NEAR(g->nodes[0].offset_s, B_START, 1e-6);
		CHECK(g->straggler >= 0 && g->ranks[g->straggler].rank == 3);
		/* in step (below): the least time waiting on the others */
		CHECK(strstr(g->straggler_why, "the least time waiting on the other ranks") != NULL);
		/* uncorrected: node-b's ends are 3 ms late, rank 3's 3 + 3 */
		CHECK_NEAR(g->skew_median_s, 0.006, 1e-6);
		/* in step without collectives (DDP's all_reduce is not seen): each
		 * rank's compute beyond rank 3's, 1.003 - 0.6 = 0.403 s a step, is
		 * its wait on the others (sync.h), across the two files */
		CHECK(g->in_step);
		const struct fs_merge_rank *R0 = rank_of(g, 0), *R3 = rank_of(g, 3);
		CHECK(R0 && R3);
		if (R0 && R3) {
			CHECK_NEAR(R0->sync_wait_s, STEPS * (0.95 - 0.403), 1e-6);
			CHECK_NEAR(R0->lost_waiting_s, STEPS * (0.95 - 0.403), 1e-6);
			CHECK_NEAR(R3->sync_wait_s, 0, 1e-9);
		}
		CHECK_NEAR(g->lost_by_others_s, STEPS * (0.547 + 0.548 + 0.549), 1e-6);
	}
	free_files(files, 2);
	free(g);
}

/* A file through the merge alone renders exactly what the plain renderers
 * do for one training process. */
static void one_file_unchanged(void)
{
	char p[256];
	path_of(p, sizeof p, "solo.db");
	struct fs_store *st = golden_create(p);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "100");
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "hostname", "solo");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= 10; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main running=1 blocked_io=0 sleeping=0 threads=1");
		golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker running=1 blocked_io=0 sleeping=0 threads=1");
		golden_row(s, FS_T_STEPS, t, "pid=100 loader=train epoch=0 step=%d wait_s=0.4 compute_s=0.6", t - 1);
	}
	CHECK(fs_store_close(st) == 0);
	struct fs_merge_file f[1];
	const char *paths[] = {p};
	struct fs_merged *g = merge(f, paths, 1, NULL);
	if (!g)
		return;
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK_INT(g->nranks, 1);
	CHECK_INT(g->v.primary, v.primary);
	for (int json = 0; json < 2; json++) {
		char *plain = NULL, *merged = NULL;
		size_t np = 0, nm = 0;
		FILE *fp = open_memstream(&plain, &np), *fm = open_memstream(&merged, &nm);
		CHECK(fp && fm);
		if (!fp || !fm)
			break;
		if (json) {
			fs_verdict_render_json(fp, &m, &v);
			fs_merged_render_json(fm, g);
		} else {
			fs_verdict_render_text(fp, &m, &v);
			fs_merged_render_text(fm, g);
		}
		fclose(fp);
		fclose(fm);
		CHECK(np > 100 && np == nm && memcmp(plain, merged, np) == 0);
		CHECK(strstr(merged, "straggler") == NULL);
		free(plain);
		free(merged);
	}
	free_files(f, 1);
	free(g);
}

static void quantiles(void)
{
	double x[] = {5, 1, 4, 2, 3};
	CHECK_NEAR(fs_quantile(x, 5, 0.5), 3, EXACT);
	CHECK_NEAR(fs_quantile(x, 5, 0.95), 4.8, EXACT); /* 4 + 0.8 × (5 - 4) */
	CHECK_NEAR(fs_quantile(x, 4, 0.5), 2.5, EXACT);  /* the first four, sorted: 1 2 3 4 */
	CHECK(isnan(fs_quantile(x, 0, 0.5)));
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	quantiles();
	cross_node_sockets();
	two_nodes();
	one_file_of_ranks();
	wall_clock_only();
	one_file_unchanged();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_merge");
}
