/* test_disk - the disk source: diskstats parsing, iostat's formulas on
 * hand-made counters, MAJ:MIN -> whole disk on a fixture sysfs, devices
 * appearing and vanishing mid-list, and a live run on this machine (which
 * also prints the cost of one sample). mountinfo and a path's devices:
 * test_devpath.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "source/devpath.h"
#include "source/disk.h"
#include "source/source.h"
#include "util/clock.h"

extern const struct fs_source_ops fs_source_disk;

/* ---- a sink that keeps rows (text copied) ---- */

#define MAX_ROWS 2048
struct got_row {
	enum fs_table_id table;
	struct fs_value v[FS_MAX_COLS];
	char text[FS_MAX_COLS][128];
};

struct collect {
	struct fs_sink sink;
	struct got_row *rows;
	int n;
	int meta;
};

static void collect_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct collect *c = (struct collect *)sink;
	if (c->n >= MAX_ROWS)
		return;
	struct got_row *g = &c->rows[c->n++];
	g->table = r->table;
	memcpy(g->v, r->v, sizeof g->v);
	for (int i = 0; i < FS_MAX_COLS; i++) {
		if (r->v[i].kind == FS_V_TEXT) {
			snprintf(g->text[i], sizeof g->text[i], "%s", r->v[i].s);
			g->v[i].s = g->text[i];
		}
	}
}

static void collect_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct collect *c = (struct collect *)sink;
	if (!strcmp(key, "disk.sector_bytes") && !strcmp(value, "512"))
		c->meta++;
}

static void collect_init(struct collect *c)
{
	memset(c, 0, sizeof *c);
	c->sink.row = collect_row;
	c->sink.meta = collect_meta;
	c->rows = calloc(MAX_ROWS, sizeof *c->rows);
}

/* The disk row of device dev, or NULL. */
static const struct got_row *disk_row(const struct collect *c, const char *dev)
{
	for (int i = 0; i < c->n; i++)
		if (c->rows[i].table == FS_T_DISK && c->rows[i].v[FS_DISK_device].kind == FS_V_TEXT &&
		    !strcmp(c->rows[i].v[FS_DISK_device].s, dev))
			return &c->rows[i];
	return NULL;
}

static int count_table(const struct collect *c, enum fs_table_id t)
{
	int n = 0;
	for (int i = 0; i < c->n; i++)
		n += c->rows[i].table == t;
	return n;
}

/* ---- parsing ---- */

static void test_parse_line(void)
{
	unsigned maj, min;
	char name[FS_DISK_NAME_MAX];
	struct fs_disk_counters c;

	CHECK(fs_disk_parse_line(" 254       0 vda 31388 6920 2683898 6671 39304 13678 2824320 "
				 "9393 0 7808 16542 6223 56 191136 302 5568 173\n",
				 &maj, &min, name, sizeof name, &c));
	CHECK_INT(maj, 254);
	CHECK_INT(min, 0);
	CHECK_STR(name, "vda");
	CHECK_INT(c.nfields, 17);
	CHECK_INT(c.reads, 31388);
	CHECK_INT(c.read_sectors, 2683898);
	CHECK_INT(c.write_ms, 9393);
	CHECK_INT(c.io_ms, 7808);
	CHECK_INT(c.weighted_ms, 16542);
	CHECK_INT(c.discard_sectors, 191136);
	CHECK_INT(c.flushes, 5568);
	CHECK_INT(c.flush_ms, 173);

	CHECK(fs_disk_parse_line("   8       0 sda 5 0 40 3 0 0 0 0 0 4 3 1 0 8 2", &maj, &min, name,
				 sizeof name, &c));
	CHECK_INT(c.nfields, 15);
	CHECK_INT(c.discard_ms, 2);
	CHECK_INT(c.flushes, 0);

	CHECK(fs_disk_parse_line(" 104 0 cciss/c0d0 1 2 3 4 5 6 7 8 9 10 11\n", &maj, &min, name,
				 sizeof name, &c));
	CHECK_STR(name, "cciss/c0d0");
	CHECK_INT(c.nfields, 11);
	CHECK_INT(c.weighted_ms, 11);
	CHECK_INT(c.discards, 0);

	/* 2.6.0-2.6.24 partition lines: 4 counters; too few: refused */
	CHECK(!fs_disk_parse_line("   3    1 hda1 35486 38030 38030 38030\n", &maj, &min, name,
				  sizeof name, &c));
	CHECK(!fs_disk_parse_line("", &maj, &min, name, sizeof name, &c));
	CHECK(!fs_disk_parse_line("junk", &maj, &min, name, sizeof name, &c));
	CHECK(!fs_disk_parse_line("8 0\n", &maj, &min, name, sizeof name, &c));
	char small[4];
	CHECK(!fs_disk_parse_line("8 0 sdaa 1 2 3 4 5 6 7 8 9 10 11", &maj, &min, small,
				  sizeof small, &c));

	memset(&c, 0, sizeof c);
	CHECK(fs_disk_unused(&c));
	c.flush_ms = 1;
	CHECK(!fs_disk_unused(&c));
}

/* ---- compute ---- */

static struct fs_disk_counters ctr(uint64_t reads, uint64_t rsect, uint64_t rms, uint64_t writes,
				   uint64_t wsect, uint64_t wms, uint64_t io_ms, uint64_t weighted)
{
	struct fs_disk_counters c = {.nfields = 17,
				     .reads = reads,
				     .read_sectors = rsect,
				     .read_ms = rms,
				     .writes = writes,
				     .write_sectors = wsect,
				     .write_ms = wms,
				     .io_ms = io_ms,
				     .weighted_ms = weighted};
	return c;
}

static void test_compute(void)
{
	struct fs_disk_rates r;
	/* 0.5 s: 100 reads of 64 KiB taking 300 ms in all, 20 writes of 4 KiB
	 * taking 100 ms, busy 250 ms, 1000 request-ms queued. */
	struct fs_disk_counters a = ctr(1000, 8000, 900, 50, 400, 70, 5000, 9000);
	struct fs_disk_counters b = ctr(1100, 8000 + 100 * 128, 1200, 70, 400 + 20 * 8, 170, 5250,
					10000);
	a.flushes = 3;
	b.flushes = 8;
	a.discard_sectors = 0;
	b.discard_sectors = 2048;
	fs_disk_compute(&a, &b, 500000000ull, &r);
	CHECK_NEAR(r.reads_per_s, 200, 1e-9);
	CHECK_NEAR(r.read_bytes_per_s, 100 * 65536 * 2, 1e-6);
	CHECK_NEAR(r.writes_per_s, 40, 1e-9);
	CHECK_NEAR(r.write_bytes_per_s, 20 * 4096 * 2, 1e-6);
	CHECK_NEAR(r.read_await_ms, 3, 1e-9);
	CHECK_NEAR(r.write_await_ms, 5, 1e-9);
	CHECK_NEAR(r.queue_depth, 2, 1e-9); /* 1000 ms queued / 500 ms */
	CHECK_NEAR(r.util_pct, 50, 1e-9);
	CHECK_NEAR(r.read_req_bytes, 65536, 1e-9);
	CHECK_NEAR(r.write_req_bytes, 4096, 1e-9);
	CHECK_NEAR(r.flushes_per_s, 10, 1e-9);
	CHECK_NEAR(r.discard_bytes_per_s, 2048 * 512 * 2, 1e-6);

	/* no reads, no writes: awaits and request sizes NULL, rates 0 */
	fs_disk_compute(&b, &b, 1000000000ull, &r);
	CHECK(isnan(r.read_await_ms) && isnan(r.write_await_ms));
	CHECK(isnan(r.read_req_bytes) && isnan(r.write_req_bytes));
	CHECK_NEAR(r.reads_per_s, 0, 0);
	CHECK_NEAR(r.util_pct, 0, 0);
	CHECK_NEAR(r.queue_depth, 0, 0);

	/* busy longer than the interval (ticks rounded): capped at 100 */
	struct fs_disk_counters c = b;
	c.io_ms += 1100;
	fs_disk_compute(&b, &c, 1000000000ull, &r);
	CHECK_NEAR(r.util_pct, 100, 0);

	/* 14-field kernels: no discard, no flush; one side is enough to be NULL */
	struct fs_disk_counters old = a;
	old.nfields = 11;
	fs_disk_compute(&old, &b, 1000000000ull, &r);
	CHECK(isnan(r.discard_bytes_per_s) && isnan(r.flushes_per_s));
	old.nfields = 15;
	fs_disk_compute(&old, &b, 1000000000ull, &r);
	CHECK(!isnan(r.discard_bytes_per_s) && isnan(r.flushes_per_s));

	/* zero interval: every rate NULL */
	fs_disk_compute(&a, &b, 0, &r);
	CHECK(isnan(r.reads_per_s) && isnan(r.util_pct) && isnan(r.queue_depth));

	/* backwards: 0; a 32-bit wrap: the true increase */
	struct fs_disk_counters w0 = ctr(4294967196ull, 0, 4294967000ull, 0, 0, 0, 4294967196ull, 0);
	struct fs_disk_counters w1 = ctr(100, 0, 104, 0, 0, 0, 300, 0);
	fs_disk_compute(&w0, &w1, 1000000000ull, &r);
	CHECK_NEAR(r.reads_per_s, 200, 1e-9);
	CHECK_NEAR(r.read_await_ms, 2, 1e-9); /* (295 + 104 + 1) / 200 */
	CHECK_NEAR(r.util_pct, 40, 1e-9);
	struct fs_disk_counters back = ctr(5000000000ull, 0, 10, 0, 0, 0, 10, 0);
	struct fs_disk_counters fwd = ctr(4000000000ull, 0, 20, 0, 0, 0, 20, 0);
	fs_disk_compute(&back, &fwd, 1000000000ull, &r);
	CHECK_NEAR(r.reads_per_s, 0, 0);
	CHECK(isnan(r.read_await_ms));
	CHECK_NEAR(r.util_pct, 1, 1e-9);
}

/* ---- MAJ:MIN on a fixture sysfs ---- */

static void test_resolve(void)
{
	struct fs_paths p;
	snprintf(p.proc, sizeof p.proc, "tests/fixtures/disk/mounts/s0/proc");
	snprintf(p.sys, sizeof p.sys, "tests/fixtures/disk/mounts/s0/sys");
	if (access(p.sys, F_OK) < 0) {
		check_skip("test_resolve: run from the repository root");
		return;
	}
	char dev[FS_DISK_NAME_MAX];
	CHECK_INT(fs_disk_resolve(&p, 254, 1, dev, sizeof dev), 0);
	CHECK_STR(dev, "vda");
	CHECK_INT(fs_disk_resolve(&p, 254, 0, dev, sizeof dev), 0);
	CHECK_STR(dev, "vda");
	CHECK_INT(fs_disk_resolve(&p, 259, 2, dev, sizeof dev), 0);
	CHECK_STR(dev, "nvme0n1");
	CHECK_INT(fs_disk_resolve(&p, 253, 0, dev, sizeof dev), 0);
	CHECK_STR(dev, "dm-0");
	CHECK_INT(fs_disk_resolve(&p, 104, 1, dev, sizeof dev), 0);
	CHECK_STR(dev, "cciss/c0d0");
	CHECK_INT(fs_disk_resolve(&p, 0, 23, dev, sizeof dev), -1);
	CHECK_INT(fs_disk_resolve(&p, 8, 33, dev, sizeof dev), -1);
	char tiny[4];
	CHECK_INT(fs_disk_resolve(&p, 259, 0, tiny, sizeof tiny), -1);
}

/* ---- hot-plug in the middle of the list, on a temporary tree ---- */

static void put(const char *dir, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void plug(const char *dir, const char *name, bool on)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/sys/block/%s", dir, name);
	if (on)
		CHECK(mkdir(path, 0755) == 0);
	else
		CHECK(rmdir(path) == 0);
}

static void sample(void *st, struct fs_source_ctx *ctx, struct collect *c, int i)
{
	char why[256] = "";
	c->n = 0;
	ctx->t = i;
	ctx->now_ns = (uint64_t)(i + 1) * FS_NS_PER_S;
	CHECK_INT(fs_source_disk.sample(st, ctx, why, sizeof why), FS_SOURCE_OK);
}

static void test_hotplug(void)
{
	char dir[] = "/tmp/test_disk.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char path[1024];
	const char *sub[] = {"proc", "sys", "sys/block"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
		mkdir(path, 0755);
	}
	plug(dir, "sda", true);
	plug(dir, "sdc", true);
	put(dir, "proc/diskstats", "8 0 sda 10 0 80 0 0 0 0 0 0 0 0\n"
				   "8 32 sdc 10 0 80 0 0 0 0 0 0 0 0\n");

	struct fs_paths p;
	snprintf(p.proc, sizeof p.proc, "%s/proc", dir);
	snprintf(p.sys, sizeof p.sys, "%s/sys", dir);
	snprintf(p.shm, sizeof p.shm, "%s/shm", dir);
	struct collect c;
	collect_init(&c);
	struct fs_source_ctx ctx = {.paths = &p, .sink = &c.sink};
	void *st = NULL;
	char why[256] = "";
	CHECK_INT(fs_source_disk.open(&st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(count_table(&c, FS_T_MOUNTS), 0); /* no mountinfo: no rows, no failure */
	sample(st, &ctx, &c, 0);
	CHECK_INT(c.n, 0);

	/* sdb appears between sda and sdc: a baseline, the others go on */
	plug(dir, "sdb", true);
	put(dir, "proc/diskstats", "8 0 sda 20 0 160 0 0 0 0 0 0 0 0\n"
				   "8 16 sdb 1000 0 8000 0 0 0 0 0 0 0 0\n"
				   "8 32 sdc 30 0 240 0 0 0 0 0 0 0 0\n");
	sample(st, &ctx, &c, 1);
	CHECK_INT(c.n, 2);
	CHECK(disk_row(&c, "sda") && disk_row(&c, "sdc") && !disk_row(&c, "sdb"));
	CHECK_NEAR(disk_row(&c, "sdc") ? disk_row(&c, "sdc")->v[FS_DISK_reads_per_s].d : -1, 20, 0);

	put(dir, "proc/diskstats", "8 0 sda 20 0 160 0 0 0 0 0 0 0 0\n"
				   "8 16 sdb 1005 0 8040 0 0 0 0 0 0 0 0\n"
				   "8 32 sdc 30 0 240 0 0 0 0 0 0 0 0\n");
	sample(st, &ctx, &c, 2);
	CHECK_INT(c.n, 3);
	CHECK_NEAR(disk_row(&c, "sdb") ? disk_row(&c, "sdb")->v[FS_DISK_reads_per_s].d : -1, 5, 0);

	/* sda goes, sdb and sdc stay; sda back: baseline again */
	put(dir, "proc/diskstats", "8 16 sdb 1006 0 8048 0 0 0 0 0 0 0 0\n"
				   "8 32 sdc 31 0 248 0 0 0 0 0 0 0 0\n");
	sample(st, &ctx, &c, 3);
	CHECK_INT(c.n, 2);
	CHECK(!disk_row(&c, "sda"));
	put(dir, "proc/diskstats", "8 0 sda 1 0 8 0 0 0 0 0 0 0 0\n"
				   "8 16 sdb 1007 0 8056 0 0 0 0 0 0 0 0\n"
				   "8 32 sdc 32 0 256 0 0 0 0 0 0 0 0\n");
	sample(st, &ctx, &c, 4);
	CHECK_INT(c.n, 2);
	CHECK(!disk_row(&c, "sda") && disk_row(&c, "sdb") && disk_row(&c, "sdc"));

	fs_source_disk.close(st);

	/* no diskstats, or no <sys>/block: unavailable with a reason */
	snprintf(path, sizeof path, "%s/proc/diskstats", dir);
	unlink(path);
	CHECK_INT(fs_source_disk.open(&st, &ctx, why, sizeof why), FS_SOURCE_UNAVAILABLE);
	CHECK(strstr(why, "proc/diskstats") != NULL);
	put(dir, "proc/diskstats", "8 0 sda 1 0 8 0 0 0 0 0 0 0 0\n");
	snprintf(p.sys, sizeof p.sys, "%s/nosys", dir);
	CHECK_INT(fs_source_disk.open(&st, &ctx, why, sizeof why), FS_SOURCE_UNAVAILABLE);
	CHECK(strstr(why, "nosys/block") != NULL);

	free(c.rows);
	char cmd[1100];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* ---- live, on this machine ---- */

/* lsblk's answer for the device of path: the parent of a partition, else the
 * device itself (kernel names). Empty if lsblk is not there. */
static void lsblk_disk_of(const char *path, char *out, size_t cap)
{
	struct stat st;
	out[0] = '\0';
	if (stat(path, &st) < 0)
		return;
	char want[32], line[512];
	snprintf(want, sizeof want, "%u:%u", major(st.st_dev), minor(st.st_dev));
	FILE *f = popen("lsblk -nro KNAME,MAJ:MIN,TYPE,PKNAME 2>/dev/null", "r");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char kname[128], mm[32], type[32], pk[128] = "";
		if (sscanf(line, "%127s %31s %31s %127s", kname, mm, type, pk) >= 3 &&
		    !strcmp(mm, want)) {
			snprintf(out, cap, "%s", !strcmp(type, "part") && pk[0] ? pk : kname);
			break;
		}
	}
	pclose(f);
}

/* The first whole disk lsblk lists that has done I/O since boot. */
static void first_busy_disk(char *out, size_t cap)
{
	out[0] = '\0';
	FILE *f = popen("lsblk -dno NAME 2>/dev/null", "r");
	char name[128], line[512];
	while (f && !out[0] && fscanf(f, "%127s", name) == 1) {
		FILE *ds = fopen("/proc/diskstats", "r");
		while (ds && fgets(line, sizeof line, ds)) {
			unsigned maj, min;
			char n[FS_DISK_NAME_MAX];
			struct fs_disk_counters c;
			if (fs_disk_parse_line(line, &maj, &min, n, sizeof n, &c) &&
			    !strcmp(n, name) && !fs_disk_unused(&c))
				snprintf(out, cap, "%s", name);
		}
		if (ds)
			fclose(ds);
	}
	if (f)
		pclose(f);
}

static void check_live_row(const struct got_row *g)
{
	for (int col = FS_DISK_reads_per_s; col < FS_DISK__N; col++) {
		const struct fs_value *v = &g->v[col];
		if (v->kind == FS_V_NULL)
			continue;
		CHECK(v->kind == FS_V_REAL);
		CHECK(isfinite(v->d) && v->d >= 0);
	}
	CHECK(g->v[FS_DISK_util_pct].kind == FS_V_REAL && g->v[FS_DISK_util_pct].d <= 100);
	CHECK(g->v[FS_DISK_reads_per_s].kind == FS_V_REAL);
	CHECK(g->v[FS_DISK_queue_depth].kind == FS_V_REAL);
}

static void null_row(struct fs_sink *s, const struct fs_row *r)
{
	(void)s;
	(void)r;
}

static void time_samples(void *st, struct fs_source_ctx *ctx)
{
	struct fs_sink null = {.row = null_row};
	struct fs_sink *keep = ctx->sink;
	char why[256];
	ctx->sink = &null;
	int n = 2000;
	uint64_t t0 = fs_now_ns();
	for (int i = 0; i < n; i++) {
		ctx->now_ns = fs_now_ns();
		fs_source_disk.sample(st, ctx, why, sizeof why);
	}
	double us = (double)(fs_now_ns() - t0) / 1e3 / n;
	printf("disk: %.2f us per sample (live /proc/diskstats, %d samples)\n", us, n);
	ctx->sink = keep;
}

static void test_live(void)
{
	struct fs_paths p;
	fs_paths_from_env(&p);
	struct collect c;
	collect_init(&c);
	struct fs_source_ctx ctx = {.paths = &p, .sink = &c.sink, .now_ns = fs_now_ns()};
	void *st = NULL;
	char why[256] = "";
	if (fs_source_disk.open(&st, &ctx, why, sizeof why) != FS_SOURCE_OK) {
		check_skip("live disk source unavailable here: %s", why);
		free(c.rows);
		return;
	}
	CHECK_INT(c.meta, 1);

	/* mounts: a row for "/" -- from mountinfo, or from stat("/") where / is
	 * not a mount point (a chroot) -- on the device fs_devpath_of names */
	struct fs_devpath root;
	int rc = fs_devpath_of(&p, NULL, "/", &root);
	char want[128];
	lsblk_disk_of("/", want, sizeof want);
	printf("fs_devpath_of(\"/\") = %d \"%s\" (%s, %s), lsblk says \"%s\"\n", rc, root.device,
	       root.majmin, root.fstype, want);
	CHECK_INT(rc, 0);
	if (want[0])
		CHECK_STR(root.device, want);
	bool root_seen = false;
	for (int i = 0; i < c.n; i++) {
		const struct got_row *g = &c.rows[i];
		if (g->table != FS_T_MOUNTS || strcmp(g->v[FS_MOUNTS_mount].s, "/") != 0 ||
		    g->v[FS_MOUNTS_hidden].i)
			continue;
		root_seen = true;
		CHECK_STR(g->v[FS_MOUNTS_majmin].s, root.majmin);
		const char *dev = g->v[FS_MOUNTS_device].kind == FS_V_TEXT ? g->v[FS_MOUNTS_device].s : "";
		if (want[0])
			CHECK_STR(dev, want);
		/* an overlay's row names its first layer on a disk, "/" the layer
		 * where files made in it go: the same only elsewhere */
		if (strcmp(root.fstype, "overlay") != 0)
			CHECK_STR(dev, root.device);
	}
	CHECK(root_seen);
	struct fs_devpath other;
	CHECK_INT(fs_devpath_of(&p, NULL, "/proc", &other), 0);
	CHECK_STR(other.device, "");
	CHECK_STR(other.fstype, "proc");
	CHECK_INT(fs_devpath_of(&p, NULL, "/no/such/path", &other), -1);

	/* two samples 0.2 s apart */
	char busy[128];
	first_busy_disk(busy, sizeof busy);
	c.n = 0;
	ctx.now_ns = fs_now_ns();
	CHECK_INT(fs_source_disk.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(c.n, 0);
	nanosleep(&(struct timespec){.tv_nsec = 200000000}, NULL);
	ctx.now_ns = fs_now_ns();
	ctx.t = 0.2;
	CHECK_INT(fs_source_disk.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	printf("live: %d disk rows; first busy disk per lsblk: \"%s\"\n", c.n, busy);
	for (int i = 0; i < c.n; i++)
		check_live_row(&c.rows[i]);
	if (busy[0])
		CHECK(disk_row(&c, busy) != NULL);

	time_samples(st, &ctx);
	fs_source_disk.close(st);
	free(c.rows);
}

int main(void)
{
	test_parse_line();
	test_compute();
	test_resolve();
	test_hotplug();
	test_live();
	return check_exit("test_disk");
}
