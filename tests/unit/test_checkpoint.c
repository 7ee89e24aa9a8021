/* Checkpoints (bench/emu/checkpoint.h) in a temporary benchmark directory: every
 * engine, with and without O_DIRECT, writes and reads back the exact size;
 * the bytes split across files named by rank; kept files have the right
 * sizes and non-trivial contents; nothing is left when keep is false; and
 * the refusals (no marker, bad options, no room, a symlink planted where
 * checkpoints/ goes) write nothing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/emu/checkpoint.h"
#include "bench/format/dataset.h"
#include "bench/host/safety.h"
#include "check.h"

static char top[] = "/tmp/fs-ckpt-XXXXXX";
static char dir[128];

/* Entries in path other than . and ..; -1 when it cannot be opened. */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static long long file_size(const char *rel)
{
	char p[256];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static struct fs_ckpt_opts opts(const char *engine, uint64_t bytes, unsigned files)
{
	struct fs_ckpt_opts o = {.dir = dir, .bytes = bytes, .files = files, .engine = engine};
	return o;
}

/* Nothing but the marker in dir. */
static void check_clean(void)
{
	char p[256];
	snprintf(p, sizeof p, "%s/checkpoints", dir);
	CHECK(access(p, F_OK) != 0);
	CHECK_INT(entries(dir), 1);
	CHECK(fs_bench_has_marker(dir, NULL));
}

static bool direct_unsupported(const char *why)
{
	return strstr(why, "does not support O_DIRECT") != NULL;
}

/* A size that is not a multiple of anything, written and read back by e. */
static void roundtrip(const char *e, bool direct, size_t block, unsigned qd)
{
	char why[256] = "";
	struct fs_ckpt_opts o = opts(e, 3 * 1024 * 1024 + 12345, 1);
	o.direct = direct;
	o.block_bytes = block;
	o.qd = qd;
	struct fs_ckpt_result r;
	int rc = fs_bench_checkpoint(&o, &r, why, sizeof why);
	if (rc < 0 && direct && direct_unsupported(why)) {
		check_skip("%s: %s", e, why);
		check_clean();
		return;
	}
	if (rc < 0)
		fprintf(stderr, "%s direct=%d: %s\n", e, direct, why);
	CHECK_INT(rc, 0);
	CHECK_INT(r.bytes_written, o.bytes);
	CHECK_INT(r.bytes_read, o.bytes);
	CHECK_INT(r.files, 1);
	CHECK(r.write_s > 0 && r.read_s > 0);
	CHECK(r.fsync_s > 0 && r.fsync_s <= r.write_s);
	CHECK(r.write_bytes_per_s > 0 && r.read_bytes_per_s > 0);
	CHECK_NEAR(r.write_bytes_per_s * r.write_s, (double)o.bytes, 1.0);
	check_clean();
}

/* Split across files, kept: names, sizes, contents. */
static void split_kept(void)
{
	char why[256] = "";
	uint64_t bytes = 10u * 1024 * 1024 + 5;
	struct fs_ckpt_opts o = opts("psync", bytes, 3);
	o.rank = 2;
	o.keep = true;
	o.block_bytes = 1024 * 1024;
	struct fs_ckpt_result r;
	CHECK_INT(fs_bench_checkpoint(&o, &r, why, sizeof why), 0);
	CHECK_INT(r.files, 3);
	CHECK_INT(r.bytes_written, bytes);
	CHECK_INT(r.bytes_read, bytes);
	long long a = file_size("checkpoints/ckpt-r2-0.bin"), b = file_size("checkpoints/ckpt-r2-1.bin"),
		  c = file_size("checkpoints/ckpt-r2-2.bin");
	CHECK_INT(a + b + c, (long long)bytes);
	CHECK(a - c <= 1 && a >= b && b >= c);
	CHECK_INT(file_size("checkpoints/ckpt-r2-3.bin"), -1);
	char p[256];
	snprintf(p, sizeof p, "%s/checkpoints", dir);
	CHECK_INT(entries(p), 3);

	/* not zeros, and the files differ */
	unsigned char x[4096], y[4096];
	snprintf(p, sizeof p, "%s/checkpoints/ckpt-r2-0.bin", dir);
	FILE *f = fopen(p, "rb");
	CHECK(f && fread(x, 1, sizeof x, f) == sizeof x);
	if (f)
		fclose(f);
	snprintf(p, sizeof p, "%s/checkpoints/ckpt-r2-1.bin", dir);
	f = fopen(p, "rb");
	CHECK(f && fread(y, 1, sizeof y, f) == sizeof y);
	if (f)
		fclose(f);
	int zeros = 0;
	for (size_t i = 0; i < sizeof x; i++)
		zeros += x[i] == 0;
	CHECK(zeros < 100);
	CHECK(memcmp(x, y, sizeof x) != 0);

	/* another rank alongside, then both removed */
	o.rank = 0;
	o.keep = false;
	CHECK_INT(fs_bench_checkpoint(&o, &r, why, sizeof why), 0);
	snprintf(p, sizeof p, "%s/checkpoints", dir);
	CHECK_INT(entries(p), 3); /* rank 2's kept files; rank 0's are gone */
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/checkpoints/ckpt-r2-%d.bin", dir, i);
		CHECK_INT(unlink(p), 0);
	}
	snprintf(p, sizeof p, "%s/checkpoints", dir);
	CHECK_INT(rmdir(p), 0);
	check_clean();
}

/* More files than bytes: some are empty, all are accounted for. */
static void tiny(void)
{
	char why[256] = "";
	struct fs_ckpt_opts o = opts("io_uring", 3, 5);
	o.keep = true;
	struct fs_ckpt_result r;
	CHECK_INT(fs_bench_checkpoint(&o, &r, why, sizeof why), 0);
	CHECK_INT(r.bytes_written, 3);
	CHECK_INT(r.bytes_read, 3);
	CHECK_INT(file_size("checkpoints/ckpt-r0-0.bin"), 1);
	CHECK_INT(file_size("checkpoints/ckpt-r0-4.bin"), 0);
	o.keep = false;
	CHECK_INT(fs_bench_checkpoint(&o, &r, why, sizeof why), 0);
	check_clean();
}

static void refused(struct fs_ckpt_opts o, const char *want)
{
	char why[256] = "";
	struct fs_ckpt_result r;
	CHECK_INT(fs_bench_checkpoint(&o, &r, why, sizeof why), -1);
	if (!strstr(why, want))
		fprintf(stderr, "reason \"%s\" lacks \"%s\"\n", why, want);
	CHECK(strstr(why, want) != NULL);
	CHECK(strchr(why, '\n') == NULL);
	CHECK_INT(r.bytes_written, 0);
}

static void errors(void)
{
	refused(opts("psync", 1000, 0), "files");
	refused(opts("psync", 0, 1), "size is 0");
	refused(opts("nope", 1000, 1), "unknown io engine 'nope'");
	struct fs_ckpt_opts o = opts("mmap", 1000, 1);
	o.direct = true;
	refused(o, "does not support O_DIRECT");
	o = opts("psync", 1000, 1);
	o.direct = true;
	o.block_bytes = 1000;
	refused(o, "multiple of 4096");
	refused(opts("psync", 1ull << 60, 1), "");
	check_clean();

	/* a symlink where checkpoints/ goes: nothing written through it */
	char p[256], target[256];
	snprintf(target, sizeof target, "%s/elsewhere", top);
	CHECK_INT(mkdir(target, 0755), 0);
	snprintf(p, sizeof p, "%s/checkpoints", dir);
	CHECK_INT(symlink(target, p), 0);
	refused(opts("psync", 4096, 1), "checkpoints");
	CHECK_INT(entries(target), 0);
	CHECK_INT(unlink(p), 0);
	CHECK_INT(rmdir(target), 0);
	/* a regular file there */
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	refused(opts("psync", 4096, 1), "checkpoints");
	CHECK_INT(file_size("checkpoints"), 0);
	CHECK_INT(unlink(p), 0);
	check_clean();

	/* a directory feedscope did not prepare: no marker */
	char bare[256];
	snprintf(bare, sizeof bare, "%s/bare", top);
	CHECK_INT(mkdir(bare, 0755), 0);
	o = opts("psync", 4096, 1);
	o.dir = bare;
	refused(o, "marker");
	CHECK_INT(entries(bare), 0);
	o.dir = "/nonexistent/feedscope-ckpt";
	refused(o, "marker");
	CHECK(access(o.dir, F_OK) != 0);
	CHECK_INT(rmdir(bare), 0);
}

int main(void)
{
	CHECK(mkdtemp(top) != NULL);
	snprintf(dir, sizeof dir, "%s/bench", top);
	char why[256] = "";
	CHECK_INT(fs_bench_dir_prepare(dir, true, why, sizeof why), FS_SAFETY_OK);
	CHECK_INT(entries(dir), 1);

	roundtrip("psync", false, 0, 0);
	roundtrip("psync", true, 0, 0);
	roundtrip("psync", false, 100000, 0); /* requests that are not page multiples */
	roundtrip("io_uring", false, 0, 0);
	roundtrip("io_uring", true, 64 * 1024, 4);
	roundtrip("io_uring", false, 64 * 1024, 32);
	roundtrip("mmap", false, 0, 0);
	roundtrip("mmap", false, 100000, 0);
	split_kept();
	tiny();
	errors();

	char marker[256];
	snprintf(marker, sizeof marker, "%s/" FS_DATASET_MARKER, dir);
	unlink(marker);
	CHECK_INT(rmdir(dir), 0);
	CHECK_INT(rmdir(top), 0);
	return check_exit("test_checkpoint");
}
