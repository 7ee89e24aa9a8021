/* The io engines (psync, io_uring, mmap): reads of a known file with and
 * without O_DIRECT, at offsets, short at end of file; errors as -errno;
 * writes read back; io_uring's queue depth and reap(min, max); the same
 * results from every engine; buffers aligned, and big ones in huge pages. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/io/engine.h"
#include "check.h"

#define FILE_BYTES (1024 * 1024 + 1000) /* not a multiple of 4096: a short last read */

static char dir[] = "/tmp/fs-engine-XXXXXX";
static char known[64];

static unsigned char pattern(uint64_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13 ^ i >> 12);
}

static int matches(const unsigned char *p, uint64_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern(off + i))
			return 0;
	return 1;
}

static void write_known(void)
{
	unsigned char *b = malloc(FILE_BYTES);
	for (uint64_t i = 0; i < FILE_BYTES; i++)
		b[i] = pattern(i);
	snprintf(known, sizeof known, "%s/known", dir);
	FILE *f = fopen(known, "w");
	CHECK(f && fwrite(b, 1, FILE_BYTES, f) == FILE_BYTES);
	fclose(f);
	free(b);
}

/* Run one request through e's context c and return it finished. */
static struct fs_io_req one(struct fs_io_ctx *c, const struct fs_io_engine_ops *e, enum fs_io_kind k,
			    int fd, void *buf, size_t len, uint64_t off)
{
	struct fs_io_req r = {.kind = k, .fd = fd, .buf = buf, .len = len, .offset = off, .result = 12345};
	struct fs_io_req *done[1] = {NULL};
	CHECK_INT(e->submit(c, &r), 0);
	CHECK_INT(e->reap(c, done, 1, 1), 1);
	CHECK(done[0] == &r);
	CHECK(r.start_ns > 0 && r.end_ns >= r.start_ns);
	CHECK_INT(e->inflight(c), 0);
	return r;
}

static void reads(const struct fs_io_engine_ops *e, bool direct)
{
	char why[256];
	int fd = fs_io_open(known, O_RDONLY, 0, direct, why, sizeof why);
	if (fd < 0) {
		check_skip("%s direct=%d: %s", e->name, direct, why);
		return;
	}
	struct fs_io_ctx *c = e->create(4, why, sizeof why);
	if (!c) {
		check_skip("%s: %s", e->name, why);
		close(fd);
		return;
	}
	unsigned char *buf = fs_io_buf(2 * 1024 * 1024);
	CHECK(((uintptr_t)buf & 4095) == 0);
	uint64_t offs[] = {0, 4096, 8192, 409600, 1024 * 1024 - 4096};
	for (int i = 0; i < 5; i++) {
		memset(buf, 0, 4096);
		struct fs_io_req r = one(c, e, FS_IO_READ, fd, buf, 4096, offs[i]);
		CHECK_INT(r.result, 4096);
		CHECK(matches(buf, offs[i], 4096));
	}
	/* short at the end of the file, 0 past it */
	struct fs_io_req r = one(c, e, FS_IO_READ, fd, buf, 4096, 1024 * 1024);
	CHECK_INT(r.result, 1000);
	CHECK(matches(buf, 1024 * 1024, 1000));
	r = one(c, e, FS_IO_READ, fd, buf, 2 * 1024 * 1024, 0);
	CHECK_INT(r.result, FILE_BYTES);
	CHECK(matches(buf, 0, FILE_BYTES));
	r = one(c, e, FS_IO_READ, fd, buf, 4096, 2 * 1024 * 1024);
	CHECK_INT(r.result, 0);
	if (!direct) { /* any offset and length without O_DIRECT */
		r = one(c, e, FS_IO_READ, fd, buf + 1, 777, 12345);
		CHECK_INT(r.result, 777);
		CHECK(matches(buf + 1, 12345, 777));
	} else { /* O_DIRECT wants an aligned buffer */
		r = one(c, e, FS_IO_READ, fd, buf + 1, 4096, 0);
		CHECK_INT(r.result, -EINVAL);
	}
	/* errors are -errno: a closed fd, a write to a read-only fd */
	int closed = open("/dev/null", O_RDONLY);
	close(closed);
	r = one(c, e, FS_IO_READ, closed, buf, 4096, 0);
	CHECK_INT(r.result, -EBADF);
	r = one(c, e, FS_IO_WRITE, fd, buf, 4096, 0);
	CHECK_INT(r.result, -EBADF);
	e->destroy(c);
	free(buf);
	close(fd);
	printf("  %s direct=%d: reads ok\n", e->name, direct);
}

static void writes(const struct fs_io_engine_ops *e)
{
	char why[256], path[128];
	snprintf(path, sizeof path, "%s/w-%s", dir, e->name);
	int fd = fs_io_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644, false, why, sizeof why);
	CHECK(fd >= 0);
	struct fs_io_ctx *c = e->create(2, why, sizeof why);
	if (!c) {
		close(fd);
		return;
	}
	unsigned char *buf = fs_io_buf(65536);
	for (uint64_t off = 0; off < 3 * 65536; off += 65536) {
		for (size_t i = 0; i < 65536; i++)
			buf[i] = pattern(off + i);
		CHECK_INT(one(c, e, FS_IO_WRITE, fd, buf, 65536, off).result, 65536);
	}
	CHECK_INT(one(c, e, FS_IO_FSYNC, fd, NULL, 0, 0).result, 0);
	e->destroy(c);
	close(fd);
	FILE *f = fopen(path, "r");
	unsigned char *back = malloc(3 * 65536 + 1);
	CHECK(f && fread(back, 1, 3 * 65536 + 1, f) == 3 * 65536);
	CHECK(matches(back, 0, 3 * 65536));
	fclose(f);
	free(back);
	free(buf);
}

/* io_uring keeps up to qd requests in flight; reap honours min and max. */
static void queue_depth(void)
{
	const struct fs_io_engine_ops *e = fs_io_engine_find("io_uring");
	char why[256];
	struct fs_io_ctx *c = e->create(32, why, sizeof why);
	if (!c) {
		check_skip("io_uring: queue tests did not run (%s)", why);
		return;
	}
	int fd = fs_io_open(known, O_RDONLY, 0, false, why, sizeof why);
	struct fs_io_req r[33];
	unsigned char *buf = fs_io_buf(33 * 4096);
	for (int i = 0; i < 33; i++)
		r[i] = (struct fs_io_req){.kind = FS_IO_READ, .fd = fd, .buf = buf + i * 4096, .len = 4096,
					  .offset = (uint64_t)(32 - i) * 4096};
	for (int i = 0; i < 32; i++)
		CHECK_INT(e->submit(c, &r[i]), 0);
	CHECK_INT(e->inflight(c), 32);
	errno = 0;
	CHECK_INT(e->submit(c, &r[32]), -1);
	CHECK_INT(errno, EBUSY);
	struct fs_io_req *done[64];
	CHECK_INT(e->reap(c, done, 64, 32), 32);
	CHECK_INT(e->inflight(c), 0);
	int ok = 0;
	for (int i = 0; i < 32; i++)
		ok += r[i].result == 4096 && matches(r[i].buf, r[i].offset, 4096);
	CHECK_INT(ok, 32);

	/* min and max */
	for (int i = 0; i < 8; i++)
		CHECK_INT(e->submit(c, &r[i]), 0);
	int got = e->reap(c, done, 3, 3);
	CHECK_INT(got, 3);
	CHECK_INT(e->inflight(c), 5);
	int more = e->reap(c, done, 8, 0); /* does not wait: 0..5 */
	CHECK(more >= 0 && more <= 5);
	got += more;
	more = e->reap(c, done, 8, 99); /* min above what is in flight: the rest */
	CHECK_INT(got + more, 8);
	CHECK_INT(e->inflight(c), 0);
	CHECK_INT(e->reap(c, done, 8, 0), 0);
	CHECK_INT(e->reap(c, done, 8, 1), 0); /* nothing in flight: no wait */
	e->destroy(c);

	/* engines that do not queue still hold qd finished requests until reaped */
	const struct fs_io_engine_ops *p = fs_io_engine_find("psync");
	c = p->create(4, why, sizeof why);
	for (int i = 0; i < 4; i++)
		CHECK_INT(p->submit(c, &r[i]), 0);
	CHECK_INT(p->submit(c, &r[4]), -1);
	CHECK_INT(p->inflight(c), 4);
	CHECK_INT(p->reap(c, done, 2, 2), 2);
	CHECK_INT(p->reap(c, done, 8, 0), 2);
	p->destroy(c);
	free(buf);
	close(fd);
}

/* io_uring really has several requests in the kernel at once: reads of four
 * empty pipes stay pending together, and each finishes when its pipe gets
 * data, in the order the data comes, not the order of submission. */
static void in_flight(void)
{
	const struct fs_io_engine_ops *e = fs_io_engine_find("io_uring");
	char why[256];
	struct fs_io_ctx *c = e->create(8, why, sizeof why);
	if (!c) {
		check_skip("io_uring: in-flight test did not run (%s)", why);
		return;
	}
	int p[4][2];
	char buf[4][8];
	struct fs_io_req r[4];
	for (int i = 0; i < 4; i++) {
		CHECK_INT(pipe(p[i]), 0);
		r[i] = (struct fs_io_req){.kind = FS_IO_READ, .fd = p[i][0], .buf = buf[i], .len = sizeof buf[i]};
		CHECK_INT(e->submit(c, &r[i]), 0);
	}
	struct fs_io_req *done[4];
	CHECK_INT(e->reap(c, done, 4, 0), 0); /* handed to the kernel, none finished */
	CHECK_INT(e->inflight(c), 4);
	for (int k = 3; k >= 0; k--) { /* feed the pipes last first */
		char msg[2] = {(char)('a' + k), 0};
		CHECK_INT(write(p[k][1], msg, 1), 1);
		CHECK_INT(e->reap(c, done, 4, 1), 1);
		CHECK(done[0] == &r[k]);
		CHECK_INT(r[k].result, 1);
		CHECK(buf[k][0] == 'a' + k);
		CHECK_INT(e->inflight(c), (unsigned)k);
	}
	e->destroy(c);
	for (int i = 0; i < 4; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	printf("  io_uring: 4 requests in flight at once, finished out of order\n");
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 300 reads of random offsets and lengths: the same result and bytes from every engine. */
static void same_results(void)
{
	enum { N = 300, MAXLEN = 65536 };
	int64_t want[N];
	unsigned char *ref = malloc((size_t)N * MAXLEN), *got = malloc((size_t)N * MAXLEN);
	struct fs_io_req *rq = calloc(N, sizeof *rq);
	char why[256];
	for (int ei = 0; fs_io_engines[ei]; ei++) {
		const struct fs_io_engine_ops *e = fs_io_engines[ei];
		struct fs_io_ctx *c = e->create(16, why, sizeof why);
		if (!c)
			continue;
		int fd = fs_io_open(known, O_RDONLY, 0, false, why, sizeof why);
		uint64_t seed = 88172645463325252ull;
		unsigned char *out = ei == 0 ? ref : got;
		memset(out, 0xee, (size_t)N * MAXLEN);
		for (int i = 0; i < N; i++)
			rq[i] = (struct fs_io_req){.kind = FS_IO_READ, .fd = fd, .buf = out + (size_t)i * MAXLEN,
						   .len = 1 + rnd(&seed) % MAXLEN,
						   .offset = rnd(&seed) % (FILE_BYTES + 5000)};
		int next = 0, reaped = 0;
		struct fs_io_req *done[16];
		while (reaped < N) {
			while (next < N && e->submit(c, &rq[next]) == 0)
				next++;
			int n = e->reap(c, done, 16, 1);
			CHECK(n > 0);
			if (n <= 0)
				break;
			reaped += n;
		}
		int same = 0;
		for (int i = 0; i < N; i++) {
			if (ei == 0)
				want[i] = rq[i].result;
			same += rq[i].result == want[i] &&
				!memcmp(out + (size_t)i * MAXLEN, ref + (size_t)i * MAXLEN, MAXLEN);
		}
		CHECK_INT(same, N);
		printf("  %s: %d of %d reads identical to psync\n", e->name, same, N);
		e->destroy(c);
		close(fd);
	}
	free(ref);
	free(got);
	free(rq);
}

/* Whether the mapping that holds p has madvise(MADV_HUGEPAGE) on it ("hg"
 * in its VmFlags, /proc/self/smaps): 1, 0, or -1 when smaps has no say. */
static int marked_huge(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int inside = 0, got = -1;
	uintptr_t a = (uintptr_t)p;
	while (got < 0 && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = a >= lo && a < hi;
		else if (inside && !strncmp(line, "VmFlags:", 8))
			got = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return got;
}

/* fs_io_buf: 4096-aligned; from 2 MiB on aligned to 2 MiB, marked for
 * transparent huge pages where the kernel has them, and usable to its last
 * byte (the size is rounded up inside, not for the caller). */
static void buffers(void)
{
	unsigned char *small = fs_io_buf(4096), *big = fs_io_buf(3 * 1024 * 1024 + 1);
	CHECK(small && big);
	CHECK(((uintptr_t)small & 4095) == 0);
	CHECK(((uintptr_t)big & (2 * 1024 * 1024 - 1)) == 0);
	memset(big, 0xab, 3 * 1024 * 1024 + 1);
	CHECK(big[3 * 1024 * 1024] == 0xab);
	FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char mode[128] = "";
	if (thp && !fgets(mode, sizeof mode, thp))
		mode[0] = 0;
	if (thp)
		fclose(thp);
	int huge = marked_huge(big);
	if (!mode[0] || strstr(mode, "[never]") || huge < 0) {
		check_skip("no transparent huge pages here (%s): buffers not checked for them", mode[0] ? "never" : "no THP");
	} else {
		CHECK_INT(huge, 1);
		printf("  fs_io_buf: 2 MiB-aligned, marked for huge pages\n");
	}
	free(small);
	free(big);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	CHECK(fs_io_engine_find("psync") && fs_io_engine_find("io_uring") && fs_io_engine_find("mmap"));
	CHECK(fs_io_engine_find("aio") == NULL);
	CHECK(!fs_io_engine_find("mmap")->supports_direct && fs_io_engine_find("io_uring")->queues);
	write_known();
	for (int i = 0; fs_io_engines[i]; i++) {
		reads(fs_io_engines[i], false);
		if (fs_io_engines[i]->supports_direct)
			reads(fs_io_engines[i], true);
		writes(fs_io_engines[i]);
	}
	/* mmap refuses an O_DIRECT fd instead of reading the page cache */
	char why[256];
	int dfd = fs_io_open(known, O_RDONLY, 0, true, why, sizeof why);
	if (dfd >= 0) {
		const struct fs_io_engine_ops *m = fs_io_engine_find("mmap");
		struct fs_io_ctx *c = m->create(1, why, sizeof why);
		unsigned char *buf = fs_io_buf(4096);
		CHECK_INT(one(c, m, FS_IO_READ, dfd, buf, 4096, 0).result, -EINVAL);
		m->destroy(c);
		free(buf);
		close(dfd);
	}
	/* fs_io_open says why */
	char path[128];
	snprintf(path, sizeof path, "%s/missing", dir);
	CHECK_INT(fs_io_open(path, O_RDONLY, 0, false, why, sizeof why), -1);
	CHECK(strstr(why, "No such file") != NULL);
	queue_depth();
	in_flight();
	same_results();
	buffers();

	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_exit("test_engine");
}
