/* engine_uring.c - the io_uring engine (liburing): up to qd requests in
 * flight from one thread.
 *
 * submit() only fills a submission queue entry; the queued entries go to the
 * kernel together, in one io_uring_enter, at the next reap() (or as soon as
 * the submission ring is full). A caller that queues requests and then does
 * other work should call reap(c, done, max, 0) to start them.
 *
 * Timing: start_ns is taken in submit(), end_ns when reap() sees the
 * completion (one clock reading per batch of completions). So a request's
 * latency includes the wait in its submission batch and the delay until the
 * caller reaps it, as fio's completion latency does. */
#include "bench/io/engine_int.h"

#include <errno.h>
#include <limits.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define REAP_BATCH 64

struct uring_ctx {
	struct fs_io_ctx base;
	struct io_uring ring;
	unsigned inflight; /* submitted by the caller, not reaped yet */
	unsigned queued;   /* of those, not handed to the kernel yet */
};

/* A request the kernel cannot take (a length over 4 GiB) travels as a NOP
 * whose user_data has this bit set; its result (-EINVAL) is set in submit. */
#define TAG_PRESET 1ull

static struct fs_io_ctx *uring_create(unsigned qd, char *why, size_t whylen)
{
	struct uring_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(why, whylen, "io_uring: out of memory");
		return NULL;
	}
	if (qd == 0)
		qd = 1;
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	int ret = io_uring_queue_init_params(qd, &c->ring, &p);
	if (ret == -EINVAL) { /* a kernel before 5.19 */
		memset(&p, 0, sizeof p);
		ret = io_uring_queue_init_params(qd, &c->ring, &p);
	}
	if (ret < 0) {
		snprintf(why, whylen, "io_uring: %s%s", strerror(-ret),
			 ret == -EPERM || ret == -ENOSYS ? " (io_uring disabled on this kernel?)" : "");
		free(c);
		return NULL;
	}
	c->base.ops = &fs_io_uring;
	c->base.qd = qd;
	return &c->base;
}

/* Hand the queued entries to the kernel, waiting for wait_nr completions.
 * Returns 0 or -errno. EAGAIN/EBUSY (kernel short of resources) is not an
 * error while something is in flight: its completions will free room. */
static int flush(struct uring_ctx *c, unsigned wait_nr)
{
	int ret;
	do
		ret = wait_nr ? io_uring_submit_and_wait(&c->ring, wait_nr) : io_uring_submit(&c->ring);
	while (ret == -EINTR);
	if (ret >= 0) {
		c->queued = (unsigned)ret >= c->queued ? 0 : c->queued - (unsigned)ret;
		return 0;
	}
	if ((ret == -EAGAIN || ret == -EBUSY) && c->inflight > c->queued)
		return 0;
	return ret;
}

static int uring_submit(struct fs_io_ctx *ctx, struct fs_io_req *r)
{
	struct uring_ctx *c = (struct uring_ctx *)ctx;
	if (c->inflight >= c->base.qd) {
		errno = EBUSY;
		return -1;
	}
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	if (!sqe) {
		int ret = flush(c, 0);
		if (ret < 0 || !(sqe = io_uring_get_sqe(&c->ring))) {
			errno = ret < 0 ? -ret : EBUSY;
			return -1;
		}
	}
	uint64_t tag = (uint64_t)(uintptr_t)r;
	if (r->len > UINT_MAX && r->kind != FS_IO_FSYNC) {
		io_uring_prep_nop(sqe);
		r->result = -EINVAL;
		tag |= TAG_PRESET;
	} else if (r->kind == FS_IO_READ) {
		io_uring_prep_read(sqe, r->fd, r->buf, (unsigned)r->len, r->offset);
	} else if (r->kind == FS_IO_WRITE) {
		io_uring_prep_write(sqe, r->fd, r->buf, (unsigned)r->len, r->offset);
	} else if (r->kind == FS_IO_FSYNC) {
		io_uring_prep_fsync(sqe, r->fd, 0);
	} else {
		io_uring_prep_nop(sqe);
		r->result = -EINVAL;
		tag |= TAG_PRESET;
	}
	io_uring_sqe_set_data64(sqe, tag);
	r->start_ns = fs_now_ns();
	c->inflight++;
	c->queued++;
	return 0;
}

/* Move up to max completions from the completion ring into done. */
static int take(struct uring_ctx *c, struct fs_io_req **done, int max)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned want = max < REAP_BATCH ? (unsigned)max : REAP_BATCH;
	unsigned n = io_uring_peek_batch_cqe(&c->ring, cqes, want);
	if (n == 0)
		return 0;
	uint64_t now = fs_now_ns();
	for (unsigned i = 0; i < n; i++) {
		uint64_t tag = cqes[i]->user_data;
		struct fs_io_req *r = (struct fs_io_req *)(uintptr_t)(tag & ~TAG_PRESET);
		if (!(tag & TAG_PRESET))
			r->result = cqes[i]->res;
		r->end_ns = now;
		done[i] = r;
	}
	io_uring_cq_advance(&c->ring, n);
	c->inflight -= n;
	return (int)n;
}

static int uring_reap(struct fs_io_ctx *ctx, struct fs_io_req **done, int max, int min)
{
	struct uring_ctx *c = (struct uring_ctx *)ctx;
	if (max <= 0)
		return 0;
	if (min < 0)
		min = 0;
	if (min > max)
		min = max;
	if ((unsigned)min > c->inflight)
		min = (int)c->inflight;
	if (c->queued) {
		int ret = flush(c, (unsigned)min);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
	}
	int got = 0;
	while (got < max) {
		int n = take(c, done + got, max - got);
		got += n;
		if (got >= min)
			break;
		if (n == 0) {
			struct io_uring_cqe *cqe;
			int ret = io_uring_wait_cqe_nr(&c->ring, &cqe, (unsigned)(min - got));
			if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -ETIME) {
				if (got)
					return got;
				errno = -ret;
				return -1;
			}
		}
	}
	return got;
}

static unsigned uring_inflight(const struct fs_io_ctx *ctx)
{
	return ((const struct uring_ctx *)ctx)->inflight;
}

static void uring_destroy(struct fs_io_ctx *ctx)
{
	struct uring_ctx *c = (struct uring_ctx *)ctx;
	if (!c)
		return;
	/* let requests still in flight finish: their buffers may be freed next */
	struct fs_io_req *done[REAP_BATCH];
	while (c->inflight && uring_reap(ctx, done, REAP_BATCH, 1) > 0)
		;
	io_uring_queue_exit(&c->ring);
	free(c);
}

const struct fs_io_engine_ops fs_io_uring = {
	.abi = FS_IO_ENGINE_ABI,
	.name = "io_uring",
	.supports_direct = true,
	.queues = true,
	.create = uring_create,
	.submit = uring_submit,
	.reap = uring_reap,
	.inflight = uring_inflight,
	.destroy = uring_destroy,
};
