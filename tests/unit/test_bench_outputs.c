/* The pieces of bench's and probe's outputs that are pure functions: the
 * page-cache guard's parsers (MemTotal, a cgroup's lowest memory limit in a
 * fixture tree) and its 5x rule, DLIO's mean and population stdev (NaN
 * skipped), the latency moments fio's shape prints from a histogram, and
 * fio's JSON document for a known job (its units: bw KiB/s, runtime ms). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/cache_guard.h"
#include "check.h"
#include "render/dlio_summary.h"
#include "render/fio_json.h"

static char dir[] = "/tmp/fs-outputs-XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512], cmd[700];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
	CHECK_INT(system(cmd), 0);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void memtotal(void)
{
	CHECK_INT(fs_cache_guard_memtotal("MemTotal:       24681304 kB\nMemFree: 1 kB\n"), 24681304ull * 1024);
	CHECK_INT(fs_cache_guard_memtotal("MemFree: 1 kB\nMemTotal: 8 kB\n"), 8192);
	CHECK_INT(fs_cache_guard_memtotal("XMemTotal: 8 kB\n"), 0); /* a key that only ends in MemTotal */
	CHECK_INT(fs_cache_guard_memtotal("MemFree: 1 kB\n"), 0);
	CHECK_INT(fs_cache_guard_memtotal(NULL), 0);
}

static void cgroup_limit(void)
{
	struct fs_paths p;
	memset(&p, 0, sizeof p);
	snprintf(p.proc, sizeof p.proc, "%s/proc", dir);
	snprintf(p.sys, sizeof p.sys, "%s/sys", dir);
	const char *v2 = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	put("sys/fs/cgroup/a/b/memory.max", "max\n");
	put("sys/fs/cgroup/a/memory.max", "1048576\n");
	put("sys/fs/cgroup/memory.max", "524288\n"); /* the top: not a limit the kernel applies, but lower: read */
	CHECK_INT(fs_cache_guard_cg_limit(&p, v2, "0::/a/b\n"), 524288);
	put("sys/fs/cgroup/memory.max", "max\n");
	CHECK_INT(fs_cache_guard_cg_limit(&p, v2, "0::/a/b\n"), 1048576); /* the parent's binds */
	CHECK_INT(fs_cache_guard_cg_limit(&p, v2, "0::/\n"), -1);
	CHECK_INT(fs_cache_guard_cg_limit(&p, v2, "garbage"), -1);
	CHECK_INT(fs_cache_guard_cg_limit(&p, "", "0::/a/b\n"), -1); /* no hierarchy mounted */
	const char *v1 = "31 1 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
	put("sys/fs/cgroup/memory/job/memory.limit_in_bytes", "2097152\n");
	put("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"); /* v1's unlimited */
	CHECK_INT(fs_cache_guard_cg_limit(&p, v1, "5:memory:/job\n0::/\n"), 2097152);

	/* the rule: dataset < 5 x min(MemTotal, limit) */
	put("proc/meminfo", "MemTotal: 1024 kB\n");
	put("proc/self/mountinfo", v2);
	put("proc/self/cgroup", "0::/a/b\n");
	struct fs_cache_guard g;
	fs_cache_guard_check(&g, &p, 5ull << 20); /* limit 1 MiB = MemTotal: 5 MiB is exactly 5x */
	CHECK_INT(g.mem_bytes, 1 << 20);
	CHECK(!g.potential_caching);
	fs_cache_guard_check(&g, &p, (5ull << 20) - 1);
	CHECK(g.potential_caching);
	put("proc/meminfo", "MemTotal: 67108864 kB\n"); /* 64 GiB: the 1 MiB limit is the memory */
	fs_cache_guard_check(&g, &p, 5ull << 20);
	CHECK_INT(g.mem_bytes, 1 << 20);
	CHECK_INT(g.cgroup_limit_bytes, 1 << 20);
	CHECK(!g.potential_caching);
	put("proc/meminfo", "nothing\n");
	put("proc/self/cgroup", "0::/\n");
	fs_cache_guard_check(&g, &p, 1);
	CHECK_INT(g.mem_bytes, 0);
	CHECK(!g.potential_caching); /* nothing to compare with */
}

static void mean_std(void)
{
	double m, s;
	const double x[] = {90, NAN, 100, 95};
	fs_dlio_mean_std(x, 4, &m, &s);
	CHECK_NEAR(m, 95, 1e-12);
	CHECK_NEAR(s, sqrt(50.0 / 3), 1e-12); /* the population's: /3, not /2 */
	const double y[] = {NAN};
	fs_dlio_mean_std(y, 1, &m, &s);
	CHECK(isnan(m) && isnan(s));
}

static void moments(void)
{
	struct fs_hist *h = malloc(sizeof *h);
	CHECK(h != NULL);
	if (!h)
		return;
	fs_hist_init(h);
	double m, s;
	fs_fio_hist_moments(h, &m, &s);
	CHECK(m == 0 && s == 0);
	for (int i = 0; i < 1000; i++) /* exact below 64: the moments are */
		fs_hist_add(h, i % 2 ? 10 : 30);
	fs_fio_hist_moments(h, &m, &s);
	CHECK_NEAR(m, 20, 1e-12);
	CHECK_NEAR(s, 10, 1e-12);
	fs_hist_init(h);
	for (int i = 0; i < 1000; i++)
		fs_hist_add(h, i % 2 ? 1000000 : 3000000);
	fs_fio_hist_moments(h, &m, &s);
	CHECK_NEAR(m, 2000000, 1e-6);     /* the mean is the exact sum's */
	CHECK_NEAR(s, 1000000, 1000000 / 32.0); /* the stdev within the buckets' 1/64 */
	free(h);
}

static void fio_doc(void)
{
	struct fs_hist *h = malloc(sizeof *h);
	CHECK(h != NULL);
	if (!h)
		return;
	fs_hist_init(h);
	for (int i = 1; i <= 100; i++)
		fs_hist_add(h, (uint64_t)i * 10);
	struct fs_fio_opt opt[] = {{"rw", "read"}, {"bs", "1048576"}};
	struct fs_fio_job job = {.name = "j", .opts = opt, .nopts = 2, .job_runtime_s = 2,
				 .read = {.io_bytes = 100 << 20, .total_ios = 100, .runtime_s = 2, .lat = h}};
	struct fs_fio_disk disk = {.name = "vda", .read_ios = 7, .util_pct = 12.5};
	struct fs_fio_doc d = {.version = "feedscope-x", .unix_ns = 1700000000123456789ull, .jobs = &job, .njobs = 1,
			       .disks = &disk, .ndisks = 1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	if (!f) {
		free(h);
		return;
	}
	fs_fio_json_write(f, &d);
	fclose(f);
	CHECK(strstr(buf, "\"fio version\":\"feedscope-x\"") != NULL);
	CHECK(strstr(buf, "\"timestamp_ms\":1700000000123") != NULL);
	CHECK(strstr(buf, "\"bw\":51200") != NULL);          /* 50 MiB/s in KiB/s */
	CHECK(strstr(buf, "\"bw_bytes\":52428800") != NULL);
	CHECK(strstr(buf, "\"runtime\":2000") != NULL);      /* ms */
	CHECK(strstr(buf, "\"io_kbytes\":102400") != NULL);
	CHECK(strstr(buf, "\"1.000000\":") != NULL && strstr(buf, "\"99.990000\":") != NULL);
	char want[64]; /* the median, 500, as the histogram keeps it (within 1/64) */
	uint64_t p50 = fs_hist_percentile(h, 50);
	CHECK(p50 >= 500 - 500 / 64 && p50 <= 500 + 500 / 64);
	snprintf(want, sizeof want, "\"50.000000\":%llu,", (unsigned long long)p50);
	CHECK(strstr(buf, want) != NULL);
	CHECK(strstr(buf, "\"disk_util\":[{\"name\":\"vda\",\"read_ios\":7") != NULL);
	CHECK(strstr(buf, "\"job options\":{\"rw\":\"read\",\"bs\":\"1048576\"}") != NULL);
	free(buf);
	free(h);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	memtotal();
	cgroup_limit();
	mean_std();
	moments();
	fio_doc();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_exit("test_bench_outputs");
}
