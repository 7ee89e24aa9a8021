/* Two runs compared (src/analysis/compare/diff.c, src/render/diff_*.c) on golden
 * run files with known buckets and knobs: "before" waits 0.6 s of each 1 s
 * step with num_workers 2, "after" waits 0.04 s of each 0.5 s step with
 * num_workers 8 (2× faster, input wait 60% → 8%, under the input-wait floor:
 * compute_bound, CPU busy 20% → 60%, the
 * disk the same within 5%). Then a run compared with itself (no
 * difference), runs that differ only in their hostname, a run without
 * steps, batch sizes that differ (samples/s), a job's own meta (user.*)
 * never compared or shown, an idle disk's background that is no change,
 * and a main loader named differently in each run. Expected values are worked out beside
 * each check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare/diff.h"
#include "check.h"
#include "golden.h"
#include "render/diff.h"

#define EXACT 1e-9
#define STEPS 10

static char dir[] = "/tmp/fs-diff-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

struct golden_run {
	const char *name;
	double wait_s, compute_s; /* each step's; steps 0: none */
	int steps;
	const char *workers, *batch, *host, *token;
	double cpu_busy_pct, disk_bytes_per_s, disk_util_pct;
	const char *loader; /* NULL: "train" */
};

/* A run file of one process (pid 100) with STEPS steps of one loader
 * "train" from t = 1, its knobs and environment in meta, and the machine's
 * CPU and disk vda on every tick. */
static void write_run(const char *path, const struct golden_run *r)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "100");
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "ncpu", "4");
	fs_sink_meta(s, "hostname", r->host);
	fs_sink_meta(s, "command", "python3 train.py");
	fs_sink_meta(s, "end_unix", "1700000020");
	fs_sink_meta(s, "user.token", r->token); /* the job's own: never compared */
	const char *loader = r->loader ? r->loader : "train";
	char key[96];
	if (r->steps) {
		snprintf(key, sizeof key, "loader.%s.num_workers", loader);
		fs_sink_meta(s, key, r->workers);
		snprintf(key, sizeof key, "loader.%s.batch_size", loader);
		fs_sink_meta(s, key, r->batch);
		snprintf(key, sizeof key, "loader.%s.pin_memory", loader);
		fs_sink_meta(s, key, "false");
	}
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= 14; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_CPU, t, "user_pct=%g system_pct=0 iowait_pct=0 idle_pct=%g steal_pct=0 ncpu=4",
			   r->cpu_busy_pct, 100 - r->cpu_busy_pct);
		golden_row(s, FS_T_DISK, t, "dt_s=1 device=vda reads_per_s=100 read_bytes_per_s=%g util_pct=%g read_await_ms=1",
			   r->disk_bytes_per_s, r->disk_util_pct);
		golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main running=1 blocked_io=0 sleeping=0");
	}
	double t = 1;
	for (int i = 0; i < r->steps; i++) {
		t += r->wait_s; /* a step's t is the end of its wait */
		golden_row(s, FS_T_STEPS, t, "pid=100 loader=%s epoch=0 step=%d wait_s=%g compute_s=%g", loader, i,
			   r->wait_s, r->compute_s);
		t += r->compute_s;
	}
	CHECK(fs_store_close(st) == 0);
}

/* One run read as `feedscope diff` reads it (report's path). */
struct loaded {
	struct fs_merge_file f;
	struct fs_merged g;
	struct fs_diff_meta meta;
};

static bool load(const char *path, struct loaded *l)
{
	char err[600];
	bool ok = fs_merge_head(path, &l->f, err, sizeof err) == 0 && fs_merge_load(&l->f, NULL, err, sizeof err) == 0 &&
		  fs_diff_meta_load(path, &l->meta, err, sizeof err) == 0 && fs_merge(&l->f, 1, NULL, &l->g) == 0;
	if (!ok)
		fprintf(stderr, "load %s: %s\n", path, err);
	CHECK(ok);
	return ok;
}

static struct loaded *la, *lb;
static struct fs_diff d;

/* Diff the run files a and b into d; false when either did not load. */
static bool diff_files(const char *a, const char *b)
{
	fs_merge_file_free(&la->f);
	fs_merge_file_free(&lb->f);
	if (!load(a, la) || !load(b, lb))
		return false;
	fs_diff(&la->g, &la->meta, &lb->g, &lb->meta, &d);
	return true;
}

static const struct fs_diff_figure *figure(const char *name)
{
	for (int i = 0; i < d.nfig; i++)
		if (!strcmp(d.fig[i].name, name))
			return &d.fig[i];
	return NULL;
}

/* The rendering of d into a string (text or JSON). */
static char *render(bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (json)
		fs_diff_render_json(f, &d, "a.db", "b.db");
	else
		fs_diff_render_text(f, &d, "a.db", "b.db");
	fclose(f);
	return buf;
}

static const struct golden_run before = {"before.db", 0.6, 0.4, STEPS, "2", "32", "h1", "secret-A", 20, 100e6, 50, NULL};
static const struct golden_run after = {"after.db", 0.04, 0.46, STEPS, "8", "32", "h1", "secret-B", 60, 105e6, 52, NULL};

static void test_fix(void)
{
	char a[256], b[256];
	path_of(a, sizeof a, before.name);
	path_of(b, sizeof b, after.name);
	write_run(a, &before);
	write_run(b, &after);
	if (!diff_files(a, b))
		return;
	/* step time: loop 10 × 1 s over 10 steps; 10 × 0.5 s over 10 */
	CHECK_NEAR(d.a.step_s, 1.0, EXACT);
	CHECK_NEAR(d.b.step_s, 0.5, EXACT);
	CHECK_NEAR(d.step_ratio, 0.5, EXACT);
	CHECK(d.step_changed);
	CHECK(!d.by_samples);
	/* samples/s: 10 steps × 32 / 10 s, / 5 s */
	CHECK_NEAR(d.a.samples_per_s, 32, EXACT);
	CHECK_NEAR(d.b.samples_per_s, 64, EXACT);
	/* buckets (no GPU: compute is busy): input wait 0.6 → 0.08, busy 0.4 → 0.92 */
	CHECK(d.a.acct_valid && d.b.acct_valid);
	CHECK_NEAR(d.a.share[FS_BUCKET_INPUT], 0.6, 1e-9);
	CHECK_NEAR(d.b.share[FS_BUCKET_INPUT], 0.08, 1e-9);
	CHECK_NEAR(d.bucket_change[FS_BUCKET_BUSY], 0.52, 1e-9);
	CHECK_INT(d.largest_bucket, FS_BUCKET_INPUT);
	CHECK(d.bucket_moved);
	/* one knob of the main loader differs; pin_memory, batch_size the same */
	CHECK_INT(d.nknobs, 1);
	CHECK_STR(d.knobs[0].key, "num_workers");
	CHECK_STR(d.knobs[0].a, "2");
	CHECK_STR(d.knobs[0].b, "8");
	CHECK(d.knobs[0].main_knob);
	CHECK_INT(d.nenv, 0); /* user.token differs, but is not compared */
	/* CPU busy 20% → 60%: 40 points; the disk 100 → 105 MB/s (5%), 50 → 52% util */
	const struct fs_diff_figure *cpu = figure("cpu_busy_pct"), *rd = figure("disk_read_bytes_per_s"),
				    *ut = figure("disk_util_pct");
	CHECK(cpu && rd && ut);
	if (cpu && rd && ut) {
		CHECK_NEAR(cpu->a, 20, 1e-9);
		CHECK_NEAR(cpu->b, 60, 1e-9);
		CHECK(cpu->changed);
		CHECK(!rd->changed);
		CHECK_NEAR(rd->ratio, 1.05, 1e-9);
		CHECK_STR(rd->key, "vda");
		CHECK(!ut->changed);
	}
	CHECK(!d.identical);
	CHECK_STR(d.headline, "B is 2× faster per step: input wait 60% → 8% after num_workers 2 → 8; verdict cpu_preprocess → compute_bound");
	char *text = render(false), *json = render(true);
	CHECK(text && strstr(text, "num_workers: 2 → 8"));
	CHECK(text && !strstr(text, "secret"));
	CHECK(json && !strstr(json, "secret"));
	CHECK(json && strstr(json, "\"headline\":\"B is 2× faster per step"));
	/* the headline is the text's last line */
	CHECK(text && strlen(text) > strlen(d.headline) &&
	      !strncmp(text + strlen(text) - strlen(d.headline) - 1, d.headline, strlen(d.headline)) &&
	      text[strlen(text) - 1] == '\n' && text[strlen(text) - strlen(d.headline) - 2] == '\n');
	free(text);
	free(json);
	/* the other way round: B is slower */
	if (!diff_files(b, a))
		return;
	CHECK_STR(d.headline, "B is 2× slower per step: input wait 8% → 60% after num_workers 8 → 2; verdict compute_bound → cpu_preprocess");
}

/* A run against itself: nothing differs, and the headline says so. */
static void test_identical(void)
{
	char a[256];
	path_of(a, sizeof a, before.name);
	if (!diff_files(a, a))
		return;
	CHECK(d.identical);
	CHECK_INT(d.nknobs + d.nenv + d.nchanged, 0);
	CHECK_NEAR(d.step_ratio, 1, EXACT);
	CHECK(strstr(d.headline, "A and B do not differ") == d.headline);
}

/* The same job on another host, a second faster (within 10%): no knob
 * differs, the hostname does. */
static void test_env_only(void)
{
	struct golden_run other = before;
	other.name = "otherhost.db";
	other.host = "h2";
	other.wait_s = 0.55; /* 0.95 s steps: 5% */
	char a[256], b[256];
	path_of(a, sizeof a, before.name);
	path_of(b, sizeof b, other.name);
	write_run(b, &other);
	if (!diff_files(a, b))
		return;
	CHECK(!d.step_changed);
	CHECK(!d.bucket_moved); /* input wait 60% → 57.9% */
	CHECK_INT(d.nknobs, 0);
	CHECK_INT(d.nenv, 1);
	CHECK_STR(d.env[0].key, "hostname");
	CHECK(!d.identical);
	CHECK_STR(d.headline, "B is as fast per step as A (within 10%): no bucket of the loop's time moved by 10 points,"
			      " with the same loader knobs (differs: hostname)");
}

/* B has no steps (and no GPU): no step time, no accounting; its knobs are
 * absent. */
static void test_no_steps(void)
{
	struct golden_run none = before;
	none.name = "nosteps.db";
	none.steps = 0;
	char a[256], b[256];
	path_of(a, sizeof a, before.name);
	path_of(b, sizeof b, none.name);
	write_run(b, &none);
	if (!diff_files(a, b))
		return;
	CHECK(isnan(d.b.step_s));
	CHECK(isnan(d.step_ratio));
	CHECK(!d.b.acct_valid);
	CHECK_INT(d.largest_bucket, -1);
	CHECK(!d.identical);
	CHECK_STR(d.headline, "step time unknown (B without steps): the loop's time is not split in B (no loader in B)");
	/* A's knobs are in A only */
	CHECK_INT(d.nknobs, 3);
	CHECK(d.nknobs > 0 && d.knobs[0].in_a && !d.knobs[0].in_b);
	char *json = render(true);
	CHECK(json && strstr(json, "\"step_s\":null"));
	free(json);
	if (!diff_files(b, b))
		return;
	CHECK(d.identical); /* unknown on both sides is no difference */
}

/* Batch 32 → 64 with the same step time: per step says nothing; in
 * samples/s B is 2× faster. */
static void test_batch(void)
{
	struct golden_run big = before;
	big.name = "batch64.db";
	big.batch = "64";
	char a[256], b[256];
	path_of(a, sizeof a, before.name);
	path_of(b, sizeof b, big.name);
	write_run(b, &big);
	if (!diff_files(a, b))
		return;
	CHECK(d.by_samples);
	CHECK_NEAR(d.samples_ratio, 2, EXACT);
	CHECK(d.step_changed);
	CHECK(strstr(d.headline, "B is 2× faster in samples/s: no bucket of the loop's time moved by 10 points after"
				 " batch_size 32 → 64") == d.headline);
}

/* An idle disk's background (0.3 → 0.45 MB/s: +50%) is no change; the
 * same disk read at 50 MB/s is. */
static void test_idle_disk(void)
{
	struct golden_run quiet = before, louder = before, busy = before;
	quiet.name = "quiet.db";
	quiet.disk_bytes_per_s = 0.3e6;
	louder.name = "louder.db";
	louder.disk_bytes_per_s = 0.45e6;
	busy.name = "busy.db";
	busy.disk_bytes_per_s = 50e6;
	char a[256], b[256], c[256];
	path_of(a, sizeof a, quiet.name);
	path_of(b, sizeof b, louder.name);
	path_of(c, sizeof c, busy.name);
	write_run(a, &quiet);
	write_run(b, &louder);
	write_run(c, &busy);
	if (!diff_files(a, b))
		return;
	const struct fs_diff_figure *rd = figure("disk_read_bytes_per_s");
	CHECK(rd && !rd->changed && fabs(rd->ratio - 1.5) < 1e-9);
	CHECK(d.identical);
	if (!diff_files(a, c))
		return;
	rd = figure("disk_read_bytes_per_s");
	CHECK(rd && rd->changed);
	const struct fs_diff_figure *req = figure("disk_read_req_bytes");
	CHECK(req && req->changed); /* 100 reads/s: 3 kB → 500 kB a request */
	CHECK_INT(d.nchanged, 2);
}

/* The main loader named differently in each run (ImageFolder, then
 * ImageFolder_2): its knobs are still matched by name. */
static void test_renamed_loader(void)
{
	struct golden_run renamed = after;
	renamed.name = "renamed.db";
	renamed.loader = "ImageFolder_2";
	char a[256], b[256];
	path_of(a, sizeof a, before.name);
	path_of(b, sizeof b, renamed.name);
	write_run(b, &renamed);
	if (!diff_files(a, b))
		return;
	CHECK_INT(d.nknobs, 1);
	CHECK_STR(d.knobs[0].key, "num_workers");
	CHECK_STR(d.headline, "B is 2× faster per step: input wait 60% → 8% after loader train → ImageFolder_2,"
			      " num_workers 2 → 8; verdict cpu_preprocess → compute_bound");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	la = calloc(1, sizeof *la);
	lb = calloc(1, sizeof *lb);
	if (!la || !lb)
		return 1;
	test_fix();
	test_identical();
	test_env_only();
	test_no_steps();
	test_batch();
	test_idle_disk();
	test_renamed_loader();
	fs_merge_file_free(&la->f);
	fs_merge_file_free(&lb->f);
	free(la);
	free(lb);
	const char *names[] = {"before.db", "after.db", "otherhost.db", "nosteps.db", "batch64.db", "quiet.db", "louder.db", "busy.db", "renamed.db"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char p[256];
		path_of(p, sizeof p, names[i]);
		unlink(p);
	}
	rmdir(dir);
	return check_exit("test_diff");
}
