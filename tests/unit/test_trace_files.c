/* Unit tests of the tracer's pure parts (src/trace/files.c, compiled in
 * here; count.h): path normalisation, the exclusion patterns, the size histogram,
 * the path hash (FNV-1a 64 test vectors), and the record table on a
 * private region: one record per path, long paths kept by their tail and
 * told apart by their full hash, a full table, threads claiming the same
 * paths at once, and records whose pages cannot be backed (a full
 * /dev/shm) going to record 0 instead of faulting. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "trace/count.h"
#include "trace/files.c"

/* what files.c needs from the rest of the library */
struct fs_state fs;
__thread uint32_t fs_tls_off;
void fs_proc_fd_path(char *buf, int fd)
{
	sprintf(buf, "/proc/self/fd/%d", fd);
}

static struct fs_trace_region *new_region(void)
{
	struct fs_trace_region *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r->files[0].state = FS_TRACE_READY;
	r->nfiles = 1;
	fs_files_reset();
	return r;
}

static const char *join(const char *dir, const char *path)
{
	static char out[FS_PATH_MAX];
	return fs_path_join(dir, dir ? strlen(dir) : 0, path, out) < 0 ? "(too long)" : out;
}

static void test_paths(void)
{
	CHECK_STR(join(NULL, "/a/b/c"), "/a/b/c");
	CHECK_STR(join(NULL, "//a///b/./c/"), "/a/b/c");
	CHECK_STR(join(NULL, "/a/./b/."), "/a/b");
	CHECK_STR(join(NULL, "/"), "/");
	CHECK_STR(join(NULL, "/."), "/");
	CHECK_STR(join(NULL, "/a/../b"), "/a/../b"); /* ".." needs the filesystem: kept */
	CHECK_STR(join("/home/u", "data/x.bin"), "/home/u/data/x.bin");
	CHECK_STR(join("/home/u", "./data//x.bin"), "/home/u/data/x.bin");
	CHECK_STR(join("/", "x"), "/x");
	CHECK_STR(join("/home/u", "/abs"), "/abs");
	char longp[5000];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = '\0';
	CHECK_STR(join(NULL, longp), "(too long)");

	size_t n;
	CHECK(is_clean("/a/b", &n) && n == 4);
	CHECK(is_clean("/", &n) && n == 1);
	CHECK(is_clean("/a/.hidden/..x", &n));
	CHECK(!is_clean("/a//b", &n));
	CHECK(!is_clean("/a/./b", &n));
	CHECK(!is_clean("/a/.", &n));
	CHECK(!is_clean("/a/", &n));
	CHECK(!is_clean("rel/x", &n));
}

static int ex(const char *p)
{
	return excluded(p, strlen(p));
}

static void test_exclude(void)
{
	unsetenv("FEEDSCOPE_TRACE_EXCLUDE");
	fs_files_init();
	CHECK(ex("/usr/lib/python3/dist-packages/torch/__init__.py"));
	CHECK(ex("/usr"));
	CHECK(ex("/etc/passwd"));
	CHECK(ex("/proc/self/maps"));
	CHECK(ex("/dev/shm/torch_123"));
	CHECK(ex("/home/u/venv/lib/python3.11/site-packages/numpy/core/x.so"));
	CHECK(ex("/opt/conda/lib/python3.10/os.py"));
	CHECK(ex("/home/u/proj/__pycache__/m.cpython-311.pyc"));
	CHECK(ex("/home/u/proj/train.py"));
	CHECK(!ex("/usrdata/x"));        /* a prefix is a directory, not a string */
	CHECK(!ex("/data/imagenet/train/n01440764/n01440764_10026.JPEG"));
	CHECK(!ex("/tmp/shards/shard-000.tar"));
	CHECK(!ex("/home/u/proj/weights.pyz"));
	CHECK(!ex("/data/site-packages")); /* "/site-packages/" needs the slash after */

	setenv("FEEDSCOPE_TRACE_EXCLUDE", "/data/cache/:*.tmp:*skip*", 1);
	fs_files_init();
	CHECK(ex("/data/cache/a"));
	CHECK(ex("/data/cache"));
	CHECK(!ex("/data/cached"));
	CHECK(ex("/x/y.tmp"));
	CHECK(ex("/x/noskipping"));
	CHECK(!ex("/usr/lib/x")); /* the default list is replaced */
	setenv("FEEDSCOPE_TRACE_EXCLUDE", "", 1);
	fs_files_init();
	CHECK(!ex("/usr/lib/x"));
	unsetenv("FEEDSCOPE_TRACE_EXCLUDE");
	fs_files_init();
}

static void test_hist(void)
{
	CHECK_INT(fs_hist_bucket(0), 0);
	CHECK_INT(fs_hist_bucket(511), 0);
	CHECK_INT(fs_hist_bucket(512), 1);
	CHECK_INT(fs_hist_bucket(1023), 1);
	CHECK_INT(fs_hist_bucket(1024), 2);
	CHECK_INT(fs_hist_bucket(4096), 4);
	CHECK_INT(fs_hist_bucket(131072), 9);
	CHECK_INT(fs_hist_bucket((1u << 23) - 1), 14);
	CHECK_INT(fs_hist_bucket(1u << 23), 15);
	CHECK_INT(fs_hist_bucket(1ull << 40), 15);
}

/* FNV-1a 64 (region.h's path hash) against the published test vectors
 * (the FNV reference test suite; recomputed here with Python from the
 * published offset basis 14695981039346656037 and prime 1099511628211). */
static void test_hash(void)
{
	CHECK(fs_trace_hash("", 0) == 0xcbf29ce484222325ull); /* the offset basis itself */
	CHECK(fs_trace_hash("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(fs_trace_hash("foobar", 6) == 0x85944171f73967e8ull);
	CHECK(fs_trace_hash("/data/a", 7) == 0xd6895d7926ce7246ull);
	CHECK(fs_trace_hash("foobar", 3) == fs_trace_hash("foo", 3)); /* only len bytes */
}

static int rec(const char *p)
{
	return fs_file_abs(p, strlen(p));
}

static void test_table(void)
{
	fs.region = new_region();
	int a = rec("/data/a"), b = rec("/data/b");
	CHECK(a > 0 && b > 0 && a != b);
	CHECK_INT(rec("/data/a"), a);
	CHECK_INT(fs.region->nfiles, 3);
	CHECK_STR(fs.region->files[a].path, "/data/a");
	CHECK(fs.region->used[a / 64] & (1ull << (a % 64))); /* the reader preads only these */
	CHECK(fs.region->used[b / 64] & (1ull << (b % 64)));
	CHECK_INT(fs.region->files[a].path_hash, fs_trace_hash("/data/a", 7));
	CHECK_INT(rec("/usr/lib/x"), 0); /* excluded */

	/* two long paths with the same last FS_TRACE_PATH - 1 bytes */
	char p1[600], p2[600];
	memset(p1, 'x', sizeof p1 - 1);
	p1[sizeof p1 - 1] = '\0';
	p1[0] = '/';
	memcpy(p2, p1, sizeof p1);
	p2[1] = 'y';
	int l1 = rec(p1), l2 = rec(p2);
	CHECK(l1 > 0 && l2 > 0 && l1 != l2);
	CHECK_INT(rec(p1), l1);
	CHECK_INT(rec(p2), l2);
	CHECK_INT(fs.region->files[l1].path_len, 599);
	CHECK_INT(strlen(fs.region->files[l1].path), FS_TRACE_PATH - 1);
	CHECK_INT(fs.region->files[l1].path_hash, fs_trace_hash(p1, 599));

	/* more paths than records: the rest in record 0, FILES_FULL set, and
	 * every path that got a record still finds it */
	fs.region = new_region();
	static int got[3000];
	int placed = 0;
	char p[64];
	for (int i = 0; i < 3000; i++) {
		snprintf(p, sizeof p, "/data/f%d", i);
		got[i] = rec(p);
		placed += got[i] > 0;
	}
	CHECK(placed >= FS_TRACE_FILES - 1 - 8 && placed <= FS_TRACE_FILES - 1);
	CHECK_INT(fs.region->nfiles, placed + 1);
	CHECK(fs.region->blind & FS_TRACE_BLIND_FILES_FULL);
	int same = 1;
	for (int i = 0; i < 3000; i++) {
		snprintf(p, sizeof p, "/data/f%d", i);
		same &= rec(p) == got[i];
	}
	CHECK(same);
}

/* threads claiming the same 500 paths in different orders */
static int claimed[8][500];
static void *claimer(void *arg)
{
	int t = (int)(intptr_t)arg;
	char p[64];
	for (int k = 0; k < 500; k++) {
		int i = (k * 7 + t * 131) % 500;
		snprintf(p, sizeof p, "/shared/file-%d", i);
		claimed[t][i] = rec(p);
	}
	return NULL;
}

static void test_concurrent_claims(void)
{
	fs.region = new_region();
	pthread_t th[8];
	for (int t = 0; t < 8; t++)
		pthread_create(&th[t], NULL, claimer, (void *)(intptr_t)t);
	for (int t = 0; t < 8; t++)
		pthread_join(th[t], NULL);
	int agree = 1, nonzero = 1;
	for (int i = 0; i < 500; i++) {
		nonzero &= claimed[0][i] > 0;
		for (int t = 1; t < 8; t++)
			agree &= claimed[t][i] == claimed[0][i];
	}
	CHECK(agree);
	CHECK(nonzero);
	CHECK_INT(fs.region->nfiles, 501);
}

/* A region in a memfd that holds only the header and record 0, as a
 * region file on a full tmpfs does: backing a record's page fails (EFAULT
 * from MADV_POPULATE_WRITE past the end, where a store would be SIGBUS),
 * so the path goes to record 0 with FS_TRACE_BLIND_NO_SPACE; once there is
 * room, records are claimed again. */
static void test_unbacked(void)
{
	int fd = memfd_create("region", MFD_CLOEXEC);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	size_t size = fs_trace_region_size(0);
	CHECK(ftruncate(fd, (off_t)FS_REGION_PREFIX) == 0);
	struct fs_trace_region *r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(r != MAP_FAILED);
	if (r == MAP_FAILED)
		return;
	r->files[0].state = FS_TRACE_READY;
	r->nfiles = 1;
	fs.region = r;
	fs.populate = 1;
	fs_files_reset();
	errno = 1234;
	CHECK_INT(rec("/data/unbacked"), 0);
	CHECK_INT(errno, 1234);
	CHECK(r->blind & FS_TRACE_BLIND_NO_SPACE);
	CHECK_INT(r->nfiles, 1);
	CHECK(ftruncate(fd, (off_t)size) == 0); /* room again */
	int k = rec("/data/unbacked");
	CHECK(k > 0);
	CHECK_INT(rec("/data/unbacked"), k);
	CHECK_INT(r->nfiles, 2);
	fs.populate = 0;
	munmap(r, size);
	close(fd);
}

int main(void)
{
	test_paths();
	test_exclude();
	test_hist();
	test_hash();
	test_table();
	test_concurrent_claims();
	test_unbacked();
	return check_exit("test_trace_files");
}
