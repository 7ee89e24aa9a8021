/* Unit tests of src/util: number scanning, counter deltas, CLI values, units. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "util/fmt.h"
#include "util/parse.h"
#include "util/paths.h"
#include "util/pfile.h"

static void test_counter_delta(void)
{
	CHECK_INT(fs_counter_delta(100, 250), 150);
	CHECK_INT(fs_counter_delta(7, 7), 0);
	/* backwards: a reset gives 0, not a huge number */
	CHECK_INT(fs_counter_delta(5000, 100), 0);
	CHECK_INT(fs_counter_delta(UINT64_MAX - 5, 3), 0);
	/* a 32-bit counter that wrapped */
	CHECK_INT(fs_counter_delta(UINT32_MAX - 9, 5), 15);
	CHECK_INT(fs_counter_delta(0xF0000000u, 0x10u), 0x10000010ull);
	/* lower half to lower half going down is a reset, not a wrap */
	CHECK_INT(fs_counter_delta(0x7000, 0x10), 0);
}

static void test_scan(void)
{
	const char *p = "  12 345\t-7 x";
	uint64_t v;
	int64_t s;
	CHECK(fs_scan_u64(&p, &v) && v == 12);
	CHECK(fs_scan_u64(&p, &v) && v == 345);
	CHECK(!fs_scan_u64(&p, &v)); /* "-7" is not unsigned */
	CHECK(fs_scan_i64(&p, &s) && s == -7);
	CHECK(!fs_scan_i64(&p, &s));
	p = "a b\tc";
	fs_skip_word(&p);
	CHECK_STR(p, " b\tc");

	const char *text = "MemTotal: 100 kB\nCached:  7 kB\nSwapCached: 9 kB\npgmajfault_s 4\npgmajfault 3\n";
	CHECK(fs_find_u64(text, "Cached", &v) && v == 7);
	CHECK(fs_find_u64(text, "pgmajfault", &v) && v == 3);
	CHECK(!fs_find_u64(text, "Dirty", &v));
	const char *keys[] = {"SwapCached", "Cached", "pgmajfault", "Absent"};
	uint64_t vals[4];
	bool found[4];
	CHECK_INT(fs_scan_keyed(text, keys, 4, vals, found), 3);
	CHECK(found[0] && vals[0] == 9);
	CHECK(found[1] && vals[1] == 7);
	CHECK(found[2] && vals[2] == 3);
	CHECK(!found[3]);
}

/* Edge values: INT64_MIN is read without negating it as an int64_t, and a
 * number outside the type is rejected (never wrapped), leaving *p. */
static void test_scan_limits(void)
{
	const char *p;
	uint64_t v;
	int64_t s;
	p = "18446744073709551615 x";
	CHECK(fs_scan_u64(&p, &v) && v == UINT64_MAX && *p == ' ');
	p = "18446744073709551616";
	CHECK(!fs_scan_u64(&p, &v));
	CHECK_STR(p, "18446744073709551616");
	p = "99999999999999999999999";
	CHECK(!fs_scan_u64(&p, &v));
	p = "9223372036854775807";
	CHECK(fs_scan_i64(&p, &s) && s == INT64_MAX);
	p = "-9223372036854775808";
	CHECK(fs_scan_i64(&p, &s) && s == INT64_MIN && *p == '\0');
	p = "9223372036854775808";
	CHECK(!fs_scan_i64(&p, &s));
	CHECK_STR(p, "9223372036854775808");
	p = "-9223372036854775809";
	CHECK(!fs_scan_i64(&p, &s));
	p = "-18446744073709551615";
	CHECK(!fs_scan_i64(&p, &s));
	p = "-0";
	CHECK(fs_scan_i64(&p, &s) && s == 0);
	p = "- 5"; /* the sign belongs to the digits */
	CHECK(!fs_scan_i64(&p, &s));
	p = "-";
	CHECK(!fs_scan_i64(&p, &s));
	p = "  -1\n";
	CHECK(fs_scan_i64(&p, &s) && s == -1 && *p == '\n');
	/* the keyed scanners skip a value that does not fit */
	const char *text = "big 99999999999999999999\nok 5\n";
	CHECK(!fs_find_u64(text, "big", &v));
	CHECK(fs_find_u64(text, "ok", &v) && v == 5);
	int n;
	CHECK(!fs_parse_pos_int("2147483648", &n));
	CHECK(fs_parse_pos_int("2147483647", &n) && n == 2147483647);
}

static void test_seconds(void)
{
	double d;
	CHECK(fs_parse_seconds("0.1", &d) && d == 0.1);
	CHECK(fs_parse_seconds("2", &d) && d == 2);
	CHECK(fs_parse_seconds("100ms", &d) && d == 0.1);
	CHECK(fs_parse_seconds("1.5s", &d) && d == 1.5);
	CHECK(fs_parse_seconds("2m", &d) && d == 120);
	CHECK(fs_parse_seconds("1h", &d) && d == 3600);
	const char *bad[] = {"0", "-1", "abc", "", " 1", "1x", "nan", "inf", "1e999", "0ms", "--1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(!fs_parse_seconds(bad[i], &d));
		if (fs_parse_seconds(bad[i], &d))
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
	}
	int n;
	CHECK(fs_parse_pos_int("42", &n) && n == 42);
	CHECK(!fs_parse_pos_int("0", &n));
	CHECK(!fs_parse_pos_int("-3", &n));
	CHECK(!fs_parse_pos_int("+3", &n));
	CHECK(!fs_parse_pos_int("3a", &n));
	CHECK(!fs_parse_pos_int("99999999999", &n));
}

static void test_fmt(void)
{
	char b[32];
	CHECK_STR(fs_fmt_bytes(b, sizeof b, 0), "0 B");
	CHECK_STR(fs_fmt_bytes(b, sizeof b, 1536), "1.5 KiB");
	CHECK_STR(fs_fmt_bytes(b, sizeof b, 3.0 * 1024 * 1024 * 1024), "3 GiB");
	CHECK_STR(fs_fmt_rate(b, sizeof b, 210e6), "210 MB/s");
	CHECK_STR(fs_fmt_rate(b, sizeof b, 999), "999 B/s");
	CHECK_STR(fs_fmt_rate(b, sizeof b, 1234567), "1.23 MB/s");
	CHECK_STR(fs_fmt_time(b, sizeof b, 3.14159), "3.14 s");
	CHECK_STR(fs_fmt_time(b, sizeof b, 0.0123), "12.3 ms");
	CHECK_STR(fs_fmt_time(b, sizeof b, 4.56e-6), "4.56 µs");
	CHECK_STR(fs_fmt_time(b, sizeof b, 0), "0 s");
	CHECK_STR(fs_fmt_sig3(b, sizeof b, 12345.6), "12346");
	CHECK_STR(fs_fmt_sig3(b, sizeof b, NAN), "-");
	/* numbers in sentences: never "nan" or "inf" */
	CHECK_STR(fs_fmt_fixed(b, sizeof b, 12.4, 0, "%"), "12%");
	CHECK_STR(fs_fmt_fixed(b, sizeof b, 2.25, 1, " ms"), "2.2 ms");
	CHECK_STR(fs_fmt_fixed(b, sizeof b, NAN, 0, "%"), "unknown");
	CHECK_STR(fs_fmt_fixed(b, sizeof b, INFINITY, 0, " steps"), "unknown");
	CHECK_STR(fs_fmt_sig(b, sizeof b, 1.234, 2, " cores"), "1.2 cores");
	CHECK_STR(fs_fmt_sig(b, sizeof b, -INFINITY, 2, " cores"), "unknown");
	CHECK_STR(fs_fmt_sig(b, sizeof b, 4100, 2, ""), "4.1e+03");
}

static void test_paths(void)
{
	struct fs_paths p;
	setenv("FEEDSCOPE_PROC_ROOT", "/tmp/fx/proc/", 1);
	setenv("FEEDSCOPE_SYS_ROOT", "/tmp/fx/sys", 1);
	unsetenv("FEEDSCOPE_SHM_PATH");
	fs_paths_from_env(&p);
	char b[512];
	CHECK_STR(fs_proc_path(b, sizeof b, &p, "stat"), "/tmp/fx/proc/stat");
	CHECK_STR(fs_sys_path(b, sizeof b, &p, "block"), "/tmp/fx/sys/block");
	CHECK_STR(fs_host_path(b, sizeof b, &p, "/sys/fs/cgroup/cpu"), "/tmp/fx/sys/fs/cgroup/cpu");
	CHECK_STR(fs_host_path(b, sizeof b, &p, "/proc"), "/tmp/fx/proc");
	CHECK_STR(fs_host_path(b, sizeof b, &p, "/system/x"), "/system/x");
	CHECK_STR(p.shm, "/dev/shm");
	unsetenv("FEEDSCOPE_PROC_ROOT");
	unsetenv("FEEDSCOPE_SYS_ROOT");
	fs_paths_from_env(&p);
	CHECK_STR(p.proc, "/proc");
}

static void test_pfile(void)
{
	/* A kept-open descriptor re-reads a file that changed in place, and a
	 * file bigger than the first buffer is read whole. */
	char path[] = "/tmp/fs-pfile-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i < 3000; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	struct fs_pfile pf;
	struct fs_buf b = {0};
	CHECK_INT(fs_pfile_init(&pf, path), 0);
	ssize_t n = fs_pfile_read(&pf, &b);
	CHECK(n > 20000);
	CHECK_INT((long long)strlen(b.data), n);
	f = fopen(path, "r+");
	fputs("LINE", f);
	fclose(f);
	CHECK(fs_pfile_read(&pf, &b) == n && strncmp(b.data, "LINE 0", 6) == 0);
	/* read_one: a read that fills the buffer is not the end (only a short one is) */
	CHECK(fs_pfile_read_one(&pf, &b) == n && strncmp(b.data, "LINE 0", 6) == 0 && b.data[n - 1] == '\n');
	fs_pfile_close(&pf);
	/* a single_open file, whole in one read: every field of /proc/self/stat, to its newline */
	CHECK_INT(fs_pfile_init(&pf, "/proc/self/stat"), 0);
	ssize_t k = fs_pfile_read_one(&pf, &b);
	int fields = 0;
	for (ssize_t i = 0; i < k; i++)
		fields += b.data[i] == ' ';
	CHECK(k > 0 && b.data[k - 1] == '\n' && fields >= 43);
	fs_pfile_close(&pf);
	char line[16];
	CHECK_INT(fs_read_line(path, line, sizeof line), 6);
	CHECK_STR(line, "LINE 0");
	unlink(path);
	CHECK(fs_read_file(path, &b) < 0);
	fs_buf_free(&b);
}

/* A seq_file comes a page at a time: /proc/self/maps with a few hundred
 * separate mappings is many pages, and must be read to its end. */
static void test_pfile_seq(void)
{
	enum { NMAP = 400 };
	void *maps[NMAP];
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < NMAP; i++) /* alternate protections: no merging */
		maps[i] = mmap(NULL, (size_t)page, i % 2 ? PROT_READ : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* the reference: read(2) until it returns 0 */
	int fd = open("/proc/self/maps", O_RDONLY);
	CHECK(fd >= 0);
	size_t ref = 0;
	char chunk[65536];
	ssize_t r;
	while ((r = read(fd, chunk, sizeof chunk)) > 0)
		ref += (size_t)r;
	close(fd);
	struct fs_buf b = {0};
	ssize_t n = fs_read_file("/proc/self/maps", &b);
	CHECK(ref > 3 * (size_t)page);
	/* the maps are the same in both reads: nothing is mapped in between but
	 * what the buffer's growth may add, so allow a few lines */
	CHECK(n > 0 && (size_t)n + 1024 >= ref);
	CHECK_INT((long long)strlen(b.data), n);
	fs_buf_free(&b);
	for (int i = 0; i < NMAP; i++)
		if (maps[i] != MAP_FAILED)
			munmap(maps[i], (size_t)page);
}

int main(void)
{
	test_pfile_seq();
	test_counter_delta();
	test_scan();
	test_scan_limits();
	test_seconds();
	test_fmt();
	test_paths();
	test_pfile();
	return check_exit("test_util");
}
