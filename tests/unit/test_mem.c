/* test_mem - the mem source's /dev/shm columns on real file systems: a
 * tmpfs mounted here (root) reports the bytes used on it, exactly; a plain
 * directory reports its free space but no use (it would be the use of the
 * file system that holds it); a path that does not exist, neither. The
 * /proc/meminfo side is pinned by the fixture trees (tests/fixtures/mem). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "source/source.h"

extern const struct fs_source_ops fs_source_mem;

struct shm_row {
	struct fs_sink sink;
	int rows;
	int64_t used, free_bytes; /* -1: NULL */
};

static int64_t int_or_null(const struct fs_value *v)
{
	return v->kind == FS_V_INT ? v->i : -1;
}

static void collect_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct shm_row *c = (struct shm_row *)sink;
	if (r->table != FS_T_MEM)
		return;
	c->rows++;
	c->used = int_or_null(&r->v[FS_MEM_dev_shm_bytes]);
	c->free_bytes = int_or_null(&r->v[FS_MEM_shm_free_bytes]);
}

/* One mem row with the shared-memory path set to shm (the real /proc). */
static struct shm_row sample_shm(const char *shm)
{
	struct shm_row c = {.sink = {.row = collect_row}, .used = -1, .free_bytes = -1};
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	snprintf(paths.shm, sizeof paths.shm, "%s", shm);
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &c.sink, .now_ns = 1000000000ull};
	void *st = NULL;
	char why[300] = "";
	CHECK_INT(fs_source_mem.open(&st, &ctx, why, sizeof why), FS_SOURCE_OK);
	if (!st)
		return c;
	CHECK_INT(fs_source_mem.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	fs_source_mem.close(st);
	CHECK_INT(c.rows, 1);
	return c;
}

static void write_file(const char *path, size_t bytes)
{
	static char block[65536];
	memset(block, 'x', sizeof block);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	for (size_t done = 0; fd >= 0 && done < bytes; done += sizeof block)
		CHECK_INT(write(fd, block, sizeof block), (ssize_t)sizeof block);
	if (fd >= 0)
		close(fd);
}

static void test_tmpfs(const char *dir)
{
	char mnt[300], file[400];
	snprintf(mnt, sizeof mnt, "%s/shm", dir);
	CHECK_INT(mkdir(mnt, 0700), 0);
	if (geteuid() != 0) {
		check_skip("mounting a tmpfs for /dev/shm's use needs root");
		return;
	}
	if (mount("feedscope-test", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0700") != 0) {
		fprintf(stderr, "mount tmpfs on %s: %s\n", mnt, strerror(errno));
		CHECK(!"mount tmpfs");
		return;
	}
	struct shm_row c = sample_shm(mnt);
	CHECK_INT(c.used, 0); /* a new tmpfs uses nothing */
	CHECK_INT(c.free_bytes, 16 << 20);
	snprintf(file, sizeof file, "%s/batch", mnt);
	write_file(file, 3 << 20); /* what a worker's tensor would take */
	c = sample_shm(mnt);
	CHECK_INT(c.used, 3 << 20);
	CHECK_INT(c.free_bytes, 13 << 20);
	fprintf(stderr, "tmpfs: %lld bytes used after a 3 MiB file\n", (long long)c.used);
	unlink(file);
	c = sample_shm(mnt);
	CHECK_INT(c.used, 0);
	CHECK_INT(umount(mnt), 0);
	/* the same path, unmounted: a plain directory now */
	c = sample_shm(mnt);
	CHECK_INT(c.used, -1);
	CHECK(c.free_bytes > 0);
	rmdir(mnt);
}

int main(void)
{
	char dir[] = "/tmp/fs-mem-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* a plain directory: free space, no use */
	struct shm_row c = sample_shm(dir);
	CHECK_INT(c.used, -1);
	CHECK(c.free_bytes > 0);
	/* nothing there */
	char gone[300];
	snprintf(gone, sizeof gone, "%s/absent", dir);
	c = sample_shm(gone);
	CHECK_INT(c.used, -1);
	CHECK_INT(c.free_bytes, -1);
	test_tmpfs(dir);
	rmdir(dir);
	return check_exit("test_mem");
}
