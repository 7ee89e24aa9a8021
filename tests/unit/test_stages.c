/* The DataLoader workers' stages (issue 39, item 1): loader_stages rows
 * written through the real store and read back over a window
 * (load/stages.c: inclusive and exclusive times, shares of the workers'
 * time and of their busy time, the getitem's I/O from io_classes, another
 * loader's rows left out); then, on hand-made metrics, cpu_preprocess
 * naming the stage that holds the time and its fix (advise/stages.c),
 * each following from the shares: a random transform moved to the
 * accelerator, the deterministic prefix cached, a decode at a reduced
 * size, a collate vectorised; no stage named when none is large enough;
 * and the missing signal when the stages were not timed. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/advise/diagnose.h"
#include "analysis/advise/stages.h"
#include "analysis/load/query.h"
#include "analysis/load/stages.h"
#include "check.h"
#include "golden.h"

static const char *path = "test_stages.db";

/* Two workers of loader "train", 4 s each in the window [1, 5]: 3.6 s of
 * it producing batches; per worker and second: getitem 0.8 s (of which
 * transform[0] 0.1 s and transform[1]:RandomBlur 0.5 s), collate 0.1 s.
 * A row outside the window and a "val" loader's rows must not count. */
static void write_file(void)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "pid", "100");
	for (int pid = 201; pid <= 202; pid++)
		for (int k = 2; k <= 7; k++) { /* (1, 2] .. (4, 5] in the window [1, 5]; 6, 7 outside */
			double t = k;
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=worker stage=worker calls=1 wall_s=1 cpu_s=0.92", pid);
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=fetch stage=fetch calls=2 wall_s=0.9 cpu_s=0.88", pid);
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=getitem stage=DS.__getitem__ calls=16 wall_s=0.8 cpu_s=0.78", pid);
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=transform stage=transform[0]:Resize calls=16 wall_s=0.1 cpu_s=0.1", pid);
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=transform stage=transform[1]:RandomBlur calls=16 wall_s=0.5 cpu_s=0.5", pid);
			golden_row(s, FS_T_LOADER_STAGES, t, "dt_s=1 pid=%d loader=train kind=collate stage=collate_fn calls=2 wall_s=0.1 cpu_s=0.1", pid);
			golden_row(s, FS_T_IO_CLASSES, t, "pid=%d class=file thread=main read_s=0.04 write_s=0 sync_s=0 meta_s=0.01 calls=20", pid);
			golden_row(s, FS_T_IO_CLASSES, t, "pid=%d class=file thread=other read_s=0.5 write_s=0 sync_s=0 meta_s=0 calls=20", pid);
		}
	golden_row(s, FS_T_LOADER_STAGES, 3, "dt_s=1 pid=301 loader=val kind=getitem stage=V.__getitem__ calls=99 wall_s=9 cpu_s=9");
	golden_row(s, FS_T_LOADER_STAGES, 3, "dt_s=1 pid=301 loader=val kind=fetch stage=fetch calls=9 wall_s=9 cpu_s=9");
	fs_store_close(st);
}

static const struct fs_loader_stage *find(const struct fs_stages *st, const char *name)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->s[i].name, name))
			return &st->s[i];
	return NULL;
}

static void test_load(void)
{
	write_file();
	struct fs_q q;
	char err[256];
	CHECK_INT(fs_q_open(&q, path, err, sizeof err), 0);
	q.w0 = 1;
	q.w1 = 5;
	struct fs_stages st;
	fs_m_load_stages(&q, "train", &st);
	CHECK(st.timed);
	CHECK_STR(st.loader, "train");
	CHECK_INT(st.workers, 2);
	CHECK_INT(st.batches, 16);
	CHECK_NEAR(st.worker_s, 8, 1e-9);
	CHECK_NEAR(st.busy_s, 7.2, 1e-9);
	CHECK_INT(st.n, 4);
	/* largest own time first: the random blur (4 s), then the getitem's
	 * own 0.8 - 0.1 - 0.5 = 0.2 s a second (1.6 s), collate and resize (0.8 s) */
	CHECK_STR(st.s[0].name, "transform[1]:RandomBlur");
	CHECK_INT(st.s[0].index, 1);
	const struct fs_loader_stage *g = find(&st, "DS.__getitem__");
	CHECK(g != NULL);
	if (g) {
		CHECK_STR(g->kind, "getitem");
		CHECK_INT(g->calls, 128);
		CHECK_NEAR(g->seconds, 6.4, 1e-9);
		CHECK_NEAR(g->self_s, 1.6, 1e-9);
		CHECK_NEAR(g->self_cpu_s, 8 * (0.78 - 0.6), 1e-9);
		CHECK_NEAR(g->share, 6.4 / 8, 1e-9);
		CHECK_NEAR(g->self_share, 0.2, 1e-9);
		CHECK_NEAR(g->busy_share, 6.4 / 7.2, 1e-9);
		/* its workers' main threads in file calls: 0.05 s a second */
		CHECK_NEAR(g->io_s, 8 * 0.05, 1e-9);
	}
	const struct fs_loader_stage *b = find(&st, "transform[1]:RandomBlur");
	CHECK(b && fabs(b->self_share - 0.5) < 1e-9 && fabs(b->self_busy_share - 4 / 7.2) < 1e-9);
	CHECK(b && isnan(b->io_s));
	const struct fs_loader_stage *c = find(&st, "collate_fn");
	CHECK(c && c->calls == 16 && c->index == -1);
	/* no loader named: every loader's rows (val's too) */
	fs_m_load_stages(&q, "", &st);
	CHECK(find(&st, "V.__getitem__") != NULL);
	/* a loader without rows: all of them, as for none */
	fs_m_load_stages(&q, "other", &st);
	CHECK(find(&st, "V.__getitem__") != NULL);
	/* half of the first and last rows in the window: the same shares, half a
	 * row of each less (4 rows' worth of 5) */
	q.w0 = 1.5;
	q.w1 = 5.5;
	fs_m_load_stages(&q, "train", &st);
	CHECK_NEAR(st.worker_s, 8, 1e-9);
	CHECK_NEAR(st.s[0].self_share, 0.5, 1e-9);
	q.w0 = 1.5;
	q.w1 = 4.5;
	fs_m_load_stages(&q, "train", &st);
	CHECK_NEAR(st.worker_s, 6, 1e-9);
	CHECK_INT(st.batches, 12);
	CHECK_NEAR(st.s[0].self_share, 0.5, 1e-9);
	/* a window with no rows: not timed */
	q.w0 = 100;
	q.w1 = 200;
	fs_m_load_stages(&q, "train", &st);
	CHECK(!st.timed);
	CHECK(fs_q_failed(&q) == NULL);
	fs_q_close(&q);
	/* a run file of schema 13: no table, not timed, no failure */
	CHECK_INT(golden_sql(path, "DROP TABLE loader_stages"), 0);
	CHECK_INT(fs_q_open(&q, path, err, sizeof err), 0);
	fs_m_load_stages(&q, "train", &st);
	CHECK(!st.timed && !st.have_table);
	CHECK(fs_q_failed(&q) == NULL);
	fs_q_close(&q);
	unlink(path);
}

/* A CPU-bound loader (two workers running 95% of the time, a one-core
 * quota hit), its stages as given. */
static struct fs_metrics cpu_bound(void)
{
	struct fs_metrics m;
	memset(&m, 0, sizeof m);
	strcpy(m.mode, "run");
	m.ncpu = 4;
	m.have_steps = true;
	strcpy(m.loader, "train");
	m.steps = 1000;
	m.wait_s = 50;
	m.compute_s = 50;
	m.loop_s = m.duration_s = 100;
	m.num_workers = 2;
	m.checkpoint_every_steps = m.gpu_busy_in_checkpoints = m.pcie_rx_max_bytes_per_s = NAN;
	m.have_gpu = true;
	m.ngpus = 1;
	m.gpu_busy = 0.5;
	m.have_job = true;
	m.loaders = (struct fs_states){.blocked = 0.02, .running = 0.95, .sleeping = 0.03, .cpu_cores = 1.0,
				       .samples = 1000, .procs = 2};
	m.main = (struct fs_states){.running = 0.1, .sleeping = 0.9, .cpu_cores = 0.1, .samples = 500, .procs = 1};
	m.job_cpu_cores = 1.1;
	m.cg_quota_cores = 1.0;
	m.cg_throttled_pct = 60;
	m.cpu_busy_pct = 30;
	m.main_wait_cores = m.main_compute_cores = NAN;
	m.nic_rx_bytes_per_s = m.nic_speed_bytes_per_s = m.nfs_read_ops_per_s = m.nfs_rtt_ms = NAN;
	m.psi_io = 1;
	return m;
}

static void add(struct fs_stages *st, const char *name, const char *kind, int index, double self_share)
{
	struct fs_loader_stage *s = &st->s[st->n++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->kind, sizeof s->kind, "%s", kind);
	s->index = index;
	s->calls = 100;
	s->self_s = s->seconds = self_share * st->worker_s;
	s->self_cpu_s = s->cpu_s = 0.95 * s->self_s;
	s->self_share = s->share = self_share;
	s->self_busy_share = s->busy_share = self_share * st->worker_s / st->busy_s;
	s->io_s = NAN;
}

static struct fs_stages timed(void)
{
	struct fs_stages st;
	memset(&st, 0, sizeof st);
	st.timed = st.have_table = true;
	st.workers = 2;
	st.worker_s = 200;
	st.busy_s = st.busy_cpu_s = 190;
	return st;
}

static const struct fs_recommendation *rec_relieving(const struct fs_verdict *v, const char *prefix)
{
	for (int i = 0; i < v->nrec; i++)
		if (!strncmp(v->rec[i].relieves, prefix, strlen(prefix)))
			return &v->rec[i];
	return NULL;
}

static bool has_evidence(const struct fs_verdict *v, const char *metric, const char *text)
{
	for (int i = 0; i < v->nev; i++)
		if (!strcmp(v->ev[i].metric, metric) && strstr(v->ev[i].text, text))
			return true;
	return false;
}

static bool missing_stages(const struct fs_verdict *v)
{
	for (int i = 0; i < v->nmissing; i++)
		if (!strncmp(v->missing[i], "stages:", 7))
			return true;
	return false;
}

static void test_advice(void)
{
	struct fs_metrics m = cpu_bound();
	struct fs_verdict v;
	/* a random transform holds 60%: named, moved to the accelerator, its
	 * CPU (60 / 95 of the loaders' CPU... 0.95 x 120 s of 190 s) taken away */
	m.stages = timed();
	add(&m.stages, "transform[2]:RandomBlur", "transform", 2, 0.60);
	add(&m.stages, "DS.__getitem__", "getitem", -1, 0.15);
	add(&m.stages, "transform[0]:Resize", "transform", 0, 0.10);
	add(&m.stages, "collate_fn", "collate", -1, 0.05);
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	CHECK(has_evidence(&v, "loader_stage_share", "transform[2]:RandomBlur holds 60%"));
	CHECK(!missing_stages(&v));
	const struct fs_recommendation *r = rec_relieving(&v, "CPU (transform[2]:RandomBlur");
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(r->knob, "transform[2]:RandomBlur");
		CHECK(strstr(r->suggested, "accelerator") != NULL);
		CHECK(r->speedup > 1);
	}
	CHECK(rec_relieving(&v, "CPU (work per sample)") == NULL); /* the generic advice gives way */

	/* the same shares with the slow transform deterministic and before the
	 * first random one: cache what precedes it */
	snprintf(m.stages.s[0].name, sizeof m.stages.s[0].name, "transform[0]:Normalize");
	m.stages.s[0].index = 0;
	snprintf(m.stages.s[2].name, sizeof m.stages.s[2].name, "transform[1]:RandomCrop");
	m.stages.s[2].index = 1;
	fs_diagnose(&m, &fs_thresholds, &v);
	r = rec_relieving(&v, "CPU (the deterministic stages)");
	CHECK(r != NULL);
	if (r) {
		CHECK(strstr(r->current, "transform[0]:Normalize") != NULL);
		CHECK(strstr(r->current, "DS.__getitem__") != NULL);
		CHECK(strstr(r->current, "RandomCrop") == NULL);
		CHECK(strstr(r->suggested, "CacheDataset") != NULL);
	}

	/* the getitem's own decode holds the time and a resize follows: decode smaller */
	m.stages = timed();
	add(&m.stages, "Images.__getitem__", "getitem", -1, 0.55);
	add(&m.stages, "transform[0]:RandomResizedCrop", "transform", 0, 0.25);
	add(&m.stages, "collate_fn", "collate", -1, 0.05);
	fs_diagnose(&m, &fs_thresholds, &v);
	r = rec_relieving(&v, "CPU (decoding");
	CHECK(r != NULL && !strcmp(r->knob, "decode size"));
	/* without a resize, the decode is cached (nothing random before it) */
	snprintf(m.stages.s[1].name, sizeof m.stages.s[1].name, "transform[0]:RandomHorizontalFlip");
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK(rec_relieving(&v, "CPU (the deterministic stages)") != NULL);

	/* a slow collate */
	m.stages = timed();
	add(&m.stages, "collate_fn", "collate", -1, 0.70);
	add(&m.stages, "DS.__getitem__", "getitem", -1, 0.20);
	fs_diagnose(&m, &fs_thresholds, &v);
	r = rec_relieving(&v, "CPU (collate_fn)");
	CHECK(r != NULL && r->speedup > 1);
	CHECK(has_evidence(&v, "loader_stage_share", "collate_fn holds 70%"));

	/* ten even stages of 9.5%: none named, the generic advice stays */
	m.stages = timed();
	for (int i = 0; i < 10; i++) {
		char name[64];
		snprintf(name, sizeof name, "transform[%d]:Step%d", i, i);
		add(&m.stages, name, "transform", i, 0.095);
	}
	struct fs_stage_fix fx;
	CHECK(!fs_stage_fix(&m, &fs_thresholds, &fx));
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK(rec_relieving(&v, "CPU (work per sample)") != NULL);

	/* not timed: nothing invented, and the report says why */
	memset(&m.stages, 0, sizeof m.stages);
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK_STR(fs_verdict_name(v.primary), "cpu_preprocess");
	CHECK(missing_stages(&v));
	CHECK(!has_evidence(&v, "loader_stage_share", ""));
}

static void test_random_names(void)
{
	CHECK(fs_stage_is_random("transform[1]:RandomResizedCrop"));
	CHECK(fs_stage_is_random("transforms[3]:RandFlipd"));
	CHECK(fs_stage_is_random("transform[0]:ColorJitter"));
	CHECK(!fs_stage_is_random("transform[0]:Resize"));
	CHECK(!fs_stage_is_random("transform[4]:Rand"));
	CHECK(!fs_stage_is_random("transform[4]:Normalize"));
}

int main(void)
{
	test_load();
	test_advice();
	test_random_names();
	return check_exit("test_stages");
}
