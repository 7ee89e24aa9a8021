/* engine.c - the engine list, helpers every engine's user needs (open with
 * or without O_DIRECT, aligned buffers), and the psync engine: pread, pwrite
 * and fsync, one request at a time, run inside submit(). Its start_ns and
 * end_ns are taken around the system call itself. */
#include "bench/io/engine_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/clock.h"

const struct fs_io_engine_ops *const fs_io_engines[] = {&fs_io_psync, &fs_io_uring, &fs_io_mmap, NULL};

const struct fs_io_engine_ops *fs_io_engine_find(const char *name)
{
	for (int i = 0; name && fs_io_engines[i]; i++)
		if (fs_io_engines[i]->abi == FS_IO_ENGINE_ABI && !strcmp(fs_io_engines[i]->name, name))
			return fs_io_engines[i];
	return NULL;
}

int fs_io_open(const char *path, int flags, int mode, bool direct, char *why, size_t whylen)
{
	int fd;
	do
		fd = open(path, flags | O_CLOEXEC | (direct ? O_DIRECT : 0), mode);
	while (fd < 0 && errno == EINTR);
	if (fd >= 0)
		return fd;
	int e = errno;
	if (direct && e == EINVAL)
		snprintf(why, whylen, "%s: the file system does not support O_DIRECT", path);
	else
		snprintf(why, whylen, "%s: %s", path, strerror(e));
	errno = e;
	return -1;
}

/* Buffers of 2 MiB and more sit in transparent huge pages where the kernel
 * allows them (THP "madvise" or "always"): a 1 MiB O_DIRECT request into
 * 4 KiB pages is up to 256 scatter-gather segments (a virtio disk takes 254
 * a request, /sys/block/X/queue/max_segments, and the block layer splits
 * what is over), into a huge page it is one, and each segment is work for
 * the disk: on this machine's virtual disk a 1 MiB read at QD16 took
 * 7.8-11.3 ms from 4 KiB pages, 6.0 ms from a huge page, and sequential
 * 1 MiB reads went from 1.5 to 2.6-3.2 GB/s (docs/probe.md, "Against fio"). The size is rounded up to whole huge
 * pages, so the tail is huge too; where madvise fails (no THP) the buffer
 * has ordinary pages and works as before. */
#define HUGE_BYTES ((size_t)2 << 20)

void *fs_io_buf(size_t len)
{
	void *p = NULL;
	if (len >= HUGE_BYTES && len <= SIZE_MAX - HUGE_BYTES) {
		size_t whole = (len + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
		if (posix_memalign(&p, HUGE_BYTES, whole) != 0)
			return NULL;
		(void)madvise(p, whole, MADV_HUGEPAGE);
		return p;
	}
	if (posix_memalign(&p, 4096, len ? len : 1) != 0)
		return NULL;
	return p;
}

int fs_io_ring_init(struct fs_io_done_ring *q, unsigned cap)
{
	memset(q, 0, sizeof *q);
	q->r = calloc(cap ? cap : 1, sizeof *q->r);
	q->cap = cap ? cap : 1;
	return q->r ? 0 : -1;
}

void fs_io_ring_free(struct fs_io_done_ring *q)
{
	free(q->r);
	q->r = NULL;
}

static int ring_push(struct fs_io_done_ring *q, struct fs_io_req *r)
{
	if (q->n == q->cap) {
		errno = EBUSY;
		return -1;
	}
	q->r[(q->head + q->n++) % q->cap] = r;
	return 0;
}

int fs_io_ring_take(struct fs_io_done_ring *q, struct fs_io_req **done, int max)
{
	int k = 0;
	while (k < max && q->n) {
		done[k++] = q->r[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
	}
	return k;
}

/* ---- psync ---- */

struct psync_ctx {
	struct fs_io_ctx base;
	struct fs_io_done_ring done;
};

static struct fs_io_ctx *psync_create(unsigned qd, char *why, size_t whylen)
{
	struct psync_ctx *c = calloc(1, sizeof *c);
	if (!c || fs_io_ring_init(&c->done, qd) < 0) {
		free(c);
		snprintf(why, whylen, "psync: out of memory");
		return NULL;
	}
	c->base.ops = &fs_io_psync;
	c->base.qd = c->done.cap;
	return &c->base;
}

/* The request's result: bytes moved (short at end of file), 0 for fsync, or -errno. */
static int64_t psync_do(const struct fs_io_req *r)
{
	ssize_t n;
	do {
		switch (r->kind) {
		case FS_IO_READ:
			n = pread(r->fd, r->buf, r->len, (off_t)r->offset);
			break;
		case FS_IO_WRITE:
			n = pwrite(r->fd, r->buf, r->len, (off_t)r->offset);
			break;
		case FS_IO_FSYNC:
			n = fsync(r->fd);
			break;
		default:
			errno = EINVAL;
			n = -1;
		}
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -(int64_t)errno : (int64_t)n;
}

static int psync_submit(struct fs_io_ctx *ctx, struct fs_io_req *r)
{
	struct psync_ctx *c = (struct psync_ctx *)ctx;
	if (c->done.n == c->done.cap) {
		errno = EBUSY;
		return -1;
	}
	r->start_ns = fs_now_ns();
	r->result = psync_do(r);
	r->end_ns = fs_now_ns();
	return ring_push(&c->done, r);
}

static int psync_reap(struct fs_io_ctx *ctx, struct fs_io_req **done, int max, int min)
{
	(void)min; /* everything submitted has finished already */
	return fs_io_ring_take(&((struct psync_ctx *)ctx)->done, done, max);
}

static unsigned psync_inflight(const struct fs_io_ctx *ctx)
{
	return ((const struct psync_ctx *)ctx)->done.n;
}

static void psync_destroy(struct fs_io_ctx *ctx)
{
	struct psync_ctx *c = (struct psync_ctx *)ctx;
	if (!c)
		return;
	fs_io_ring_free(&c->done);
	free(c);
}

const struct fs_io_engine_ops fs_io_psync = {
	.abi = FS_IO_ENGINE_ABI,
	.name = "psync",
	.supports_direct = true,
	.queues = false,
	.create = psync_create,
	.submit = psync_submit,
	.reap = psync_reap,
	.inflight = psync_inflight,
	.destroy = psync_destroy,
};
