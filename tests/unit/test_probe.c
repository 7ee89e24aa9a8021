/* The probe (bench/probe/probe.h): the probes database (path from the
 * environment, save, lookup of the latest figures per device, round trip),
 * and fs_probe_run on a temporary directory with tiny sizes: every figure
 * measured, nothing left behind, the refusals. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/probe/probe.h"
#include "check.h"

static char dir[] = "/tmp/fs-probe-XXXXXX";

static int entries(const char *d)
{
	DIR *dp = opendir(d);
	int n = 0;
	for (struct dirent *e; dp && (e = readdir(dp));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (dp)
		closedir(dp);
	return dp ? n : -1;
}

static void db_path(void)
{
	char p[256];
	setenv("FEEDSCOPE_PROBE_DB", "/x/y/probes.db", 1);
	CHECK_STR(fs_probe_db_path(p, sizeof p), "/x/y/probes.db");
	CHECK(fs_probe_db_path(p, 5) == NULL); /* does not fit */
	unsetenv("FEEDSCOPE_PROBE_DB");
	CHECK(fs_probe_db_path(p, sizeof p) != NULL);
	if (geteuid() == 0)
		CHECK_STR(p, "/var/lib/feedscope/probes.db");
}

static void init(void)
{
	struct fs_probe_result r;
	memset(&r, 0x5a, sizeof r);
	fs_probe_result_init(&r);
	CHECK(r.device[0] == 0 && r.dir[0] == 0 && r.file_bytes == 0);
	CHECK(isnan(r.seq_read_bytes_per_s) && isnan(r.randread_iops_qd32) && isnan(r.fsync_p99_ms));
	CHECK(isnan(r.qd1_lat.p50_us) && isnan(r.randread_iops) && isnan(r.randread_lat.max_us));
}

static struct fs_probe_result row(const char *dev, int64_t t, double seq, double qd32)
{
	struct fs_probe_result r;
	fs_probe_result_init(&r);
	snprintf(r.device, sizeof r.device, "%s", dev ? dev : "");
	snprintf(r.majmin, sizeof r.majmin, "%s", dev ? "254:1" : "0:27");
	snprintf(r.dir, sizeof r.dir, "/data/%s", dev ? dev : "tmp");
	snprintf(r.fs_type, sizeof r.fs_type, "%s", dev ? "ext4" : "tmpfs");
	snprintf(r.engine, sizeof r.engine, "io_uring");
	r.direct = dev != NULL;
	r.time_unix = t;
	r.file_bytes = 1 << 30;
	r.runtime_s = 3;
	r.seq_read_bytes_per_s = seq;
	r.randread_iops_qd32 = qd32;
	r.randread_iops_qd1 = qd32 / 10;
	r.meta_ops_per_s = 5000;
	r.fsync_p50_ms = 0.5;
	r.fsync_p99_ms = 2.5;
	return r;
}

static void database(void)
{
	char db[128], why[256];
	snprintf(db, sizeof db, "%s/state/deeper/probes.db", dir); /* parents are created */
	struct fs_probe_result out;
	CHECK_INT(fs_probe_lookup_in(db, "vda", &out), -1); /* no database yet */

	struct fs_probe_result a = row("vda", 1000, 210e6, 9000);
	CHECK_INT(fs_probe_save(db, &a, why, sizeof why), 0);
	CHECK_INT(fs_probe_lookup_in(db, "vda", &out), 0);
	CHECK_STR(out.device, "vda");
	CHECK_STR(out.majmin, "254:1");
	CHECK_STR(out.dir, "/data/vda");
	CHECK_STR(out.fs_type, "ext4");
	CHECK_STR(out.engine, "io_uring");
	CHECK(out.direct);
	CHECK_INT(out.time_unix, 1000);
	CHECK_INT(out.file_bytes, 1 << 30);
	CHECK_NEAR(out.seq_read_bytes_per_s, 210e6, 1e-3);
	CHECK_NEAR(out.randread_iops_qd32, 9000, 1e-9);
	CHECK_NEAR(out.randread_iops_qd1, 900, 1e-9);
	CHECK_NEAR(out.meta_ops_per_s, 5000, 1e-9);
	CHECK_NEAR(out.fsync_p50_ms, 0.5, 1e-12);
	CHECK_NEAR(out.fsync_p99_ms, 2.5, 1e-12);
	CHECK(isnan(out.fsync_per_s) && isnan(out.seq_lat.p50_us)); /* not kept */

	/* the latest row wins, NULL (a ceiling it could not measure) included;
	 * another device is apart */
	struct fs_probe_result b = row("vda", 2000, 250e6, 12000);
	struct fs_probe_result c = row("nvme0n1", 3000, 3e9, 500000);
	struct fs_probe_result d = row("vda", 4000, 260e6, 15000);
	d.meta_ops_per_s = NAN;
	d.direct = false;
	struct fs_probe_result e = row(NULL, 5000, 8e9, 1e6);
	struct fs_probe_result f = row("vda", 3500, 1, 1); /* older than d, saved later */
	CHECK_INT(fs_probe_save(db, &b, why, sizeof why), 0);
	CHECK_INT(fs_probe_save(db, &c, why, sizeof why), 0);
	CHECK_INT(fs_probe_save(db, &d, why, sizeof why), 0);
	CHECK_INT(fs_probe_save(db, &e, why, sizeof why), 0);
	CHECK_INT(fs_probe_save(db, &f, why, sizeof why), 0);
	CHECK_INT(fs_probe_lookup_in(db, "vda", &out), 0);
	CHECK_INT(out.time_unix, 4000);
	CHECK_NEAR(out.randread_iops_qd32, 15000, 1e-9);
	CHECK_NEAR(out.seq_read_bytes_per_s, 260e6, 1e-3);
	CHECK(isnan(out.meta_ops_per_s));
	CHECK(!out.direct);
	CHECK_NEAR(out.fsync_p99_ms, 2.5, 1e-12);
	CHECK_INT(fs_probe_lookup_in(db, "nvme0n1", &out), 0);
	CHECK_NEAR(out.seq_read_bytes_per_s, 3e9, 1);
	CHECK_INT(fs_probe_lookup_in(db, NULL, &out), 0); /* the probe of no block device */
	CHECK_STR(out.fs_type, "tmpfs");
	CHECK_STR(out.device, "");
	CHECK_INT(fs_probe_lookup_in(db, "sda", &out), -1);
	CHECK(isnan(out.seq_read_bytes_per_s));

	/* fs_probe_lookup reads the database $FEEDSCOPE_PROBE_DB names */
	setenv("FEEDSCOPE_PROBE_DB", db, 1);
	CHECK_INT(fs_probe_lookup("nvme0n1", &out), 0);
	CHECK_INT(out.time_unix, 3000);
	char missing[128];
	snprintf(missing, sizeof missing, "%s/none.db", dir);
	setenv("FEEDSCOPE_PROBE_DB", missing, 1);
	CHECK_INT(fs_probe_lookup("vda", &out), -1);
	CHECK(access(missing, F_OK) < 0); /* a lookup never creates it */

	/* a table of the first version (11 columns): read, and extended on save */
	char old[128], sql[512];
	snprintf(old, sizeof old, "%s/old.db", dir);
	snprintf(sql, sizeof sql,
		 "sqlite3 %s \"CREATE TABLE probes (device TEXT, majmin TEXT, dir TEXT, time_unix INTEGER,"
		 " seq_read_bytes_per_s REAL, randread_iops_qd1 REAL, randread_iops_qd32 REAL, meta_ops_per_s REAL,"
		 " fsync_p50_ms REAL, fsync_p99_ms REAL, fs_type TEXT);"
		 " INSERT INTO probes VALUES ('vdb', '1:2', '/x', 10, 1e8, 900, 20000, 5000, 1.5, 4.25, 'ext4');\"",
		 old);
	if (system(sql) == 0) {
		CHECK_INT(fs_probe_lookup_in(old, "vdb", &out), 0);
		CHECK_NEAR(out.seq_read_bytes_per_s, 1e8, 1e-3);
		CHECK_NEAR(out.fsync_p99_ms, 4.25, 1e-12);
		struct fs_probe_result g = row("vdb", 20, 2e8, 30000);
		CHECK_INT(fs_probe_save(old, &g, why, sizeof why), 0);
		CHECK_INT(fs_probe_lookup_in(old, "vdb", &out), 0);
		CHECK_NEAR(out.seq_read_bytes_per_s, 2e8, 1e-3);
		CHECK_STR(out.engine, "io_uring");
		CHECK_INT(out.file_bytes, 1 << 30);
	} else {
		check_skip("no sqlite3 command: old-table test did not run");
	}

	/* a database that cannot be written */
	char bad[128];
	snprintf(bad, sizeof bad, "%s/state/deeper/probes.db/x.db", dir);
	CHECK_INT(fs_probe_save(bad, &a, why, sizeof why), -1);
	CHECK(why[0] != 0);
	unsetenv("FEEDSCOPE_PROBE_DB");
}

static void run(void)
{
	char work[128], why[512];
	snprintf(work, sizeof work, "%s/work", dir);
	CHECK_INT(mkdir(work, 0755), 0);
	struct fs_probe_opts o = {.dir = work, .size_bytes = 16 << 20, .runtime_s = 0.05, .meta_files = 50};
	struct fs_probe_result r;
	int rc = fs_probe_run(&o, &r, why, sizeof why);
	CHECK_INT(rc, FS_PROBE_OK);
	if (rc != FS_PROBE_OK)
		fprintf(stderr, "probe: %s\n", why);
	CHECK_INT(entries(work), 0); /* everything removed */
	CHECK_INT(r.tests, FS_PROBE_CEILINGS);
	CHECK(r.seq_read_bytes_per_s > 0 && r.randread_iops_qd1 > 0 && r.randread_iops_qd32 > 0);
	CHECK(r.meta_ops_per_s > 0 && r.create_per_s > 0 && r.unlink_per_s > 0);
	CHECK(r.fsync_p50_ms > 0 && r.fsync_p99_ms >= r.fsync_p50_ms);
	CHECK(r.seq_lat.count > 0 && r.qd32_lat.p99_us >= r.qd32_lat.p50_us);
	CHECK_INT(r.meta_lat.count, 4 * 50);
	CHECK_INT(r.file_bytes, 16 << 20);
	CHECK(r.majmin[0] && r.time_unix > 0);
	CHECK(isnan(r.randread_iops));
	printf("  %s on %s (%s): seq %.0f MB/s, qd32 %.0f IOPS, direct %d\n", work,
	       r.device[0] ? r.device : "no disk", r.fs_type, r.seq_read_bytes_per_s / 1e6, r.randread_iops_qd32,
	       r.direct);

	/* only the randread test, psync from the page cache */
	o.tests = FS_PROBE_RANDREAD;
	o.engine = "psync";
	o.buffered = true;
	o.qd = 4;
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_OK);
	CHECK(r.randread_iops > 0 && !r.direct && r.randread_qd == 4);
	CHECK(isnan(r.seq_read_bytes_per_s) && isnan(r.meta_ops_per_s));
	CHECK_STR(r.engine, "psync");
	CHECK_INT(entries(work), 0);

	/* refusals: nothing written */
	o.engine = "mmap";
	o.buffered = false;
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	o.engine = "aio";
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	o.engine = NULL;
	o.size_bytes = 1 << 20; /* under the minimum */
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	o.size_bytes = 16 << 20;
	char f[160];
	snprintf(f, sizeof f, "%s/theirs", work);
	FILE *fp = fopen(f, "w");
	fclose(fp);
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	CHECK(strstr(why, "not empty") != NULL);
	CHECK_INT(entries(work), 1);
	unlink(f);
	o.dir = "/dev/null";
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	snprintf(f, sizeof f, "%s/missing", work);
	o.dir = f;
	CHECK_INT(fs_probe_run(&o, &r, why, sizeof why), FS_PROBE_REFUSED);
	CHECK_INT(entries(work), 0);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	db_path();
	init();
	database();
	run();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_exit("test_probe");
}
