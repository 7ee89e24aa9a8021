/* engine_mmap.c - the mmap engine: each file is mapped once (MAP_SHARED, the
 * whole file), a read is a memcpy out of the mapping (so it touches, and
 * faults in, every page it covers), a write a memcpy into it (the file is
 * extended with ftruncate first when the write ends past its end), and fsync
 * is msync(MS_SYNC) of the mapping. Requests run inside submit().
 *
 * An fd is fstat()ed at every request, so a closed fd whose number is reused
 * for another file gets a mapping of its own; mappings are kept for the last
 * MAP_SLOTS files used. The open flags are read when a file is mapped: an fd
 * opened with O_DIRECT gives -EINVAL (mmap always goes through the page
 * cache, so the engine does not support O_DIRECT). */
#include "bench/io/engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"

#define MAP_SLOTS 16

struct map {
	int fd; /* -1: free */
	dev_t dev;
	ino_t ino;
	char *addr;
	size_t len; /* bytes mapped (0: an empty file, nothing mapped) */
	bool writable;
	uint64_t used;
};

struct mmap_ctx {
	struct fs_io_ctx base;
	struct fs_io_done_ring done;
	struct map maps[MAP_SLOTS];
	uint64_t tick;
};

static void unmap(struct map *m)
{
	if (m->addr && m->len)
		munmap(m->addr, m->len);
	memset(m, 0, sizeof *m);
	m->fd = -1;
}

/* Map the file behind fd (already fstat()ed into st) into slot m, at least
 * need bytes long. Returns 0 or -errno. */
static int map_file(struct map *m, int fd, const struct stat *st, size_t need)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return -errno;
	if (fl & O_DIRECT)
		return -EINVAL;
	int acc = fl & O_ACCMODE;
	if (acc == O_WRONLY)
		return -EACCES; /* a mapping needs read access */
	unmap(m);
	size_t len = (size_t)st->st_size > need ? (size_t)st->st_size : need;
	bool writable = acc == O_RDWR;
	if (len) {
		void *a = mmap(NULL, len, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
		if (a == MAP_FAILED)
			return -errno;
		m->addr = a;
	}
	m->fd = fd;
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->len = len;
	m->writable = writable;
	return 0;
}

/* The slot mapping fd's file, at least need bytes long (and writable if
 * write): the existing one, or a new one in the least recently used slot.
 * NULL with *err = -errno. */
static struct map *find(struct mmap_ctx *c, int fd, const struct stat *st, size_t need, bool write,
			int *err)
{
	struct map *lru = &c->maps[0];
	for (int i = 0; i < MAP_SLOTS; i++) {
		struct map *m = &c->maps[i];
		if (m->fd == fd && m->dev == st->st_dev && m->ino == st->st_ino) {
			if (m->len >= need && (m->writable || !write)) {
				m->used = ++c->tick;
				return m;
			}
			lru = m; /* remap it (dirty pages stay in the page cache) */
			break;
		}
		if (m->fd < 0 || m->used < lru->used)
			lru = m;
	}
	*err = map_file(lru, fd, st, need);
	if (*err)
		return NULL;
	lru->used = ++c->tick;
	return lru;
}

static int64_t mmap_read(struct mmap_ctx *c, struct fs_io_req *r)
{
	struct stat st;
	int err;
	if (fstat(r->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (r->offset >= (uint64_t)st.st_size)
		return 0;
	size_t n = (uint64_t)st.st_size - r->offset < r->len ? (size_t)((uint64_t)st.st_size - r->offset) : r->len;
	struct map *m = find(c, r->fd, &st, (size_t)r->offset + n, false, &err);
	if (!m)
		return err;
	memcpy(r->buf, m->addr + r->offset, n);
	return (int64_t)n;
}

static int64_t mmap_write(struct mmap_ctx *c, struct fs_io_req *r)
{
	struct stat st;
	int err;
	if (fstat(r->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	int fl = fcntl(r->fd, F_GETFL);
	if (fl >= 0 && (fl & O_ACCMODE) == O_RDONLY)
		return -EBADF; /* as pwrite says */
	uint64_t end = r->offset + r->len;
	if (end > (uint64_t)st.st_size) {
		if (ftruncate(r->fd, (off_t)end) < 0)
			return -errno;
		st.st_size = (off_t)end;
	}
	struct map *m = find(c, r->fd, &st, (size_t)end, true, &err);
	if (!m)
		return err;
	memcpy(m->addr + r->offset, r->buf, r->len);
	return (int64_t)r->len;
}

static int64_t mmap_fsync(struct mmap_ctx *c, struct fs_io_req *r)
{
	struct stat st;
	if (fstat(r->fd, &st) < 0)
		return -errno;
	for (int i = 0; i < MAP_SLOTS; i++) {
		struct map *m = &c->maps[i];
		if (m->fd == r->fd && m->dev == st.st_dev && m->ino == st.st_ino && m->len) {
			if (msync(m->addr, m->len, MS_SYNC) < 0)
				return -errno;
			return 0;
		}
	}
	return fsync(r->fd) < 0 ? -errno : 0; /* never written through a mapping */
}

static struct fs_io_ctx *mmap_create(unsigned qd, char *why, size_t whylen)
{
	struct mmap_ctx *c = calloc(1, sizeof *c);
	if (!c || fs_io_ring_init(&c->done, qd) < 0) {
		free(c);
		snprintf(why, whylen, "mmap: out of memory");
		return NULL;
	}
	for (int i = 0; i < MAP_SLOTS; i++)
		c->maps[i].fd = -1;
	c->base.ops = &fs_io_mmap;
	c->base.qd = c->done.cap;
	return &c->base;
}

static int mmap_submit(struct fs_io_ctx *ctx, struct fs_io_req *r)
{
	struct mmap_ctx *c = (struct mmap_ctx *)ctx;
	if (c->done.n == c->done.cap) {
		errno = EBUSY;
		return -1;
	}
	r->start_ns = fs_now_ns();
	switch (r->kind) {
	case FS_IO_READ:
		r->result = mmap_read(c, r);
		break;
	case FS_IO_WRITE:
		r->result = mmap_write(c, r);
		break;
	case FS_IO_FSYNC:
		r->result = mmap_fsync(c, r);
		break;
	default:
		r->result = -EINVAL;
	}
	r->end_ns = fs_now_ns();
	c->done.r[(c->done.head + c->done.n++) % c->done.cap] = r;
	return 0;
}

static int mmap_reap(struct fs_io_ctx *ctx, struct fs_io_req **done, int max, int min)
{
	(void)min; /* everything submitted has finished already */
	return fs_io_ring_take(&((struct mmap_ctx *)ctx)->done, done, max);
}

static unsigned mmap_inflight(const struct fs_io_ctx *ctx)
{
	return ((const struct mmap_ctx *)ctx)->done.n;
}

static void mmap_destroy(struct fs_io_ctx *ctx)
{
	struct mmap_ctx *c = (struct mmap_ctx *)ctx;
	if (!c)
		return;
	for (int i = 0; i < MAP_SLOTS; i++)
		if (c->maps[i].fd >= 0)
			unmap(&c->maps[i]);
	fs_io_ring_free(&c->done);
	free(c);
}

const struct fs_io_engine_ops fs_io_mmap = {
	.abi = FS_IO_ENGINE_ABI,
	.name = "mmap",
	.supports_direct = false,
	.queues = false,
	.create = mmap_create,
	.submit = mmap_submit,
	.reap = mmap_reap,
	.inflight = mmap_inflight,
	.destroy = mmap_destroy,
};
