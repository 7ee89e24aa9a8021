/* test_cgroup - mountinfo, /proc/PID/cgroup, cpu.stat, quota and limit parsers. */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "source/cgroup.h"

static void test_mountinfo(void)
{
	struct fs_cg_mounts m;
	/* cpuacct and cpuset come before cpu: a substring match would pick them. */
	fs_cg_parse_mountinfo(
		"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
		"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
		"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
		"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
		&m);
	CHECK_STR(m.cpu_v1, "/sys/fs/cgroup/cpu");
	CHECK_STR(m.cpu_v1_root, "/");
	CHECK_STR(m.mem_v1, "/sys/fs/cgroup/memory");
	CHECK_STR(m.v2, "/sys/fs/cgroup/unified");

	fs_cg_parse_mountinfo(
		"30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:14 master:3 - cgroup cgroup "
		"rw,cpu,cpuacct\n"
		"31 25 0:28 /slurm /sys/fs/cgroup/mem\\040ory rw shared:15 - cgroup cgroup rw,memory\n",
		&m);
	CHECK_STR(m.cpu_v1, "/sys/fs/cgroup/cpu,cpuacct");
	CHECK_STR(m.mem_v1, "/sys/fs/cgroup/mem ory"); /* \040 decoded */
	CHECK_STR(m.mem_v1_root, "/slurm");
	CHECK_STR(m.v2, "");

	fs_cg_parse_mountinfo("25 22 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
			      &m);
	CHECK_STR(m.v2, "/sys/fs/cgroup");
	CHECK_STR(m.cpu_v1, "");
	CHECK_STR(m.mem_v1, "");

	fs_cg_parse_mountinfo("40 31 0:40 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n", &m);
	CHECK_STR(m.blkio_v1, "/sys/fs/cgroup/blkio");
	CHECK_STR(m.blkio_v1_root, "/");

	fs_cg_parse_mountinfo("garbage without separator\n\n", &m);
	CHECK_STR(m.v2, "");
}

static void test_member(void)
{
	struct fs_cg_member m;
	CHECK(fs_cg_parse_member("9:name=systemd:/\n4:memory:/a/b\n2:cpuacct:/x\n1:cpu:/c\n0::/\n", &m));
	CHECK_STR(m.cpu_v1, "/c");
	CHECK_STR(m.mem_v1, "/a/b");
	CHECK(m.have_v2);
	CHECK_STR(m.v2, "/");

	CHECK(fs_cg_parse_member("4:cpu,cpuacct:/slurm/job_42\n11:memory:/slurm/job_42", &m));
	CHECK_STR(m.cpu_v1, "/slurm/job_42");
	CHECK_STR(m.mem_v1, "/slurm/job_42");
	CHECK(!m.have_v2);

	CHECK(fs_cg_parse_member("7:blkio:/scen/job\n4:memory:/a\n", &m));
	CHECK_STR(m.blkio_v1, "/scen/job");

	CHECK(fs_cg_parse_member("0::/user.slice/a:b.scope\n", &m)); /* ':' in the path */
	CHECK_STR(m.v2, "/user.slice/a:b.scope");
	CHECK_STR(m.cpu_v1, "");
	CHECK(!fs_cg_parse_member("", &m));
}

static void test_values(void)
{
	struct fs_cg_cpu c;
	fs_cg_parse_cpu_stat("nr_periods 10\nnr_throttled 3\nthrottled_time 500\n", 1, &c);
	CHECK(c.have);
	CHECK_INT(c.nr_periods, 10);
	CHECK_INT(c.nr_throttled, 3);
	CHECK_INT(c.throttled_ns, 500);
	fs_cg_parse_cpu_stat("usage_usec 9\nnr_periods 1\nnr_throttled 2\nthrottled_usec 7\n", 2, &c);
	CHECK(c.have);
	CHECK_INT(c.throttled_ns, 7000);
	fs_cg_parse_cpu_stat("usage_usec 9\nuser_usec 1\nsystem_usec 8\n", 2, &c); /* no cpu controller */
	CHECK(!c.have);
	fs_cg_parse_cpu_stat(NULL, 1, &c);
	CHECK(!c.have);

	CHECK_NEAR(fs_cg_quota_v1("150000\n", "100000\n"), 1.5, 1e-12);
	CHECK(isnan(fs_cg_quota_v1("-1\n", "100000\n")));
	CHECK(isnan(fs_cg_quota_v1(NULL, "100000\n")));
	CHECK_NEAR(fs_cg_quota_v2("50000 100000\n"), 0.5, 1e-12);
	CHECK(isnan(fs_cg_quota_v2("max 100000\n")));
	CHECK(isnan(fs_cg_quota_v2(NULL)));

	CHECK_INT(fs_cg_mem_limit("8589934592\n"), 8589934592LL);
	CHECK_INT(fs_cg_mem_limit("9223372036854771712\n"), -1);
	CHECK_INT(fs_cg_mem_limit("max\n"), -1);
	CHECK_INT(fs_cg_mem_limit(NULL), -1);
}

static void test_rates(void)
{
	struct fs_cg_cpu a = {true, 1000, 100, 5000000000ull}, b = {true, 1010, 108, 5400000000ull};
	struct fs_cg_rates r;
	fs_cg_rates_compute(&a, &b, 0.5, &r);
	CHECK_NEAR(r.nr_periods_per_s, 20, 1e-9);
	CHECK_NEAR(r.nr_throttled_per_s, 16, 1e-9);
	CHECK_NEAR(r.throttled_pct, 80, 1e-9);
	fs_cg_rates_compute(&b, &a, 1, &r); /* backwards: zero, not huge */
	CHECK_NEAR(r.throttled_pct, 0, 0);
	CHECK_NEAR(r.nr_periods_per_s, 0, 0);
	struct fs_cg_cpu none = {0};
	fs_cg_rates_compute(&none, &b, 1, &r);
	CHECK(isnan(r.throttled_pct));
	fs_cg_rates_compute(&a, &b, 0, &r);
	CHECK(isnan(r.nr_periods_per_s));
}

/* Read limits: v1 throttle files, v2 io.max and io.latency; the tightest
 * rule of a device wins across files and cgroups (a parent's binds too). */
static void test_io_limits(void)
{
	struct fs_cg_io_limit lim[4];
	int n = 0;
	fs_cg_parse_io_limits("254:0 400\n8:16 1000\n", FS_CG_IO_V1_IOPS, "/job", lim, &n, 4);
	CHECK_INT(n, 2);
	CHECK_INT(lim[0].maj, 254);
	CHECK_INT(lim[0].min, 0);
	CHECK_NEAR(lim[0].read_iops, 400, 0);
	CHECK(isnan(lim[0].read_bps));
	CHECK_STR(lim[0].iops_from, "/job");
	/* a parent's looser rule does not loosen it; its byte rule is added */
	fs_cg_parse_io_limits("254:0 900\n", FS_CG_IO_V1_IOPS, "/", lim, &n, 4);
	fs_cg_parse_io_limits("254:0 40000000\n", FS_CG_IO_V1_BPS, "/", lim, &n, 4);
	CHECK_INT(n, 2);
	CHECK_NEAR(lim[0].read_iops, 400, 0);
	CHECK_NEAR(lim[0].read_bps, 40e6, 0);
	CHECK_STR(lim[0].iops_from, "/job");
	CHECK_STR(lim[0].bps_from, "/");
	/* v2: "max" is no limit, write rules are not read rules; 0 is none */
	fs_cg_parse_io_limits("8:16 rbps=2097152 wbps=max riops=max wiops=120\n259:0 rbps=max wbps=5 riops=300 wiops=max\n"
			      "7:0 rbps=0\n", FS_CG_IO_V2_MAX, "/a.slice", lim, &n, 4);
	CHECK_INT(n, 3);
	CHECK_NEAR(lim[1].read_bps, 2097152, 0);
	CHECK_NEAR(lim[1].read_iops, 1000, 0); /* the v1 rule above was tighter */
	CHECK_NEAR(lim[2].read_iops, 300, 0);
	CHECK(isnan(lim[2].read_bps));
	fs_cg_parse_io_limits("259:0 target=75000\n", FS_CG_IO_V2_LAT, "/a.slice", lim, &n, 4);
	CHECK_NEAR(lim[2].latency_target_us, 75000, 0);
	CHECK_STR(lim[2].latency_from, "/a.slice");
	/* ugly lines: no device number, no value, a word, garbage; room for 4 only */
	fs_cg_parse_io_limits("\n254:0\nabc 12\n1:2 x\n3: 5\n9:9 77\n10:10 88\n", FS_CG_IO_V1_BPS, NULL, lim, &n, 4);
	CHECK_INT(n, 4);
	CHECK_INT(lim[3].maj, 9);
	CHECK_NEAR(lim[3].read_bps, 77, 0);
	CHECK_STR(lim[3].bps_from, "");
	fs_cg_parse_io_limits(NULL, FS_CG_IO_V1_BPS, NULL, lim, &n, 4);
	CHECK_INT(n, 4);
}

int main(void)
{
	test_io_limits();
	test_mountinfo();
	test_member();
	test_values();
	test_rates();
	return check_exit("test_cgroup");
}
