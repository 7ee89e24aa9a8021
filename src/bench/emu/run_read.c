/* run_read.c - the reader threads of `feedscope bench`: claim a batch for
 * the most starved accelerator, read its samples' byte ranges with the io
 * engine (requests of at most BLOCK_BYTES, up to qd in flight; O_DIRECT:
 * whole 4 KiB blocks), count bytes and latencies in the thread's own
 * histogram, hand the batch over. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/emu/run_int.h"
#include "bench/host/safety.h"
#include "util/clock.h"


/* The accelerator the next batch is for (e->mu held): of those with room
 * in their queue and batches left, the one with the fewest batches ready or
 * being read, so that readers share a busy CPU evenly among accelerators.
 * NULL when none has room; *all_done when none has batches left. */
static struct accel *claim(struct epoch *e, bool *all_done)
{
	struct accel *best = NULL;
	*all_done = true;
	for (unsigned k = 0; k < e->n; k++) {
		struct accel *a = &e->acc[(e->rr + k) % e->n];
		if (a->next_step >= e->steps)
			continue;
		*all_done = false;
		unsigned held = a->ready + a->reserved;
		if (held < a->cap && (!best || held < best->ready + best->reserved ||
				      (held == best->ready + best->reserved && a->next_step < best->next_step)))
			best = a;
	}
	e->rr = (e->rr + 1) % e->n;
	return best;
}

/* The rank's I/O time (struct epoch's io_ns): a reader starts (begin) or
 * ends reading a batch. Returns the clock's reading (CLOCK_MONOTONIC, ns). */
static uint64_t io_time(struct epoch *e, bool begin)
{
	pthread_mutex_lock(&e->io_mu);
	uint64_t now = fs_now_ns();
	if (begin && e->reading++ == 0)
		e->io_from_ns = now;
	else if (!begin && --e->reading == 0)
		e->io_ns += now - e->io_from_ns;
	pthread_mutex_unlock(&e->io_mu);
	return now;
}

/* Reads of one batch: every sample's byte range in requests of at most
 * BLOCK_BYTES, up to qd in flight. Returns 0 or -1 (e failed). */
struct batch_io {
	struct fs_io_ctx *ctx;
	struct fs_io_req *req;   /* [qd] */
	unsigned *free_slot, nfree, qd;
	char *buf;               /* qd × slot_bytes, 4096-aligned */
	size_t slot_bytes;
};

static int reap(struct reader *r, struct batch_io *b, int min)
{
	struct fs_io_req *done[64];
	int got = 0;
	do {
		int want = min - got > 64 ? 64 : min - got > 0 ? min - got : 0;
		int k = r->e->eng->reap(b->ctx, done, 64, want);
		if (k < 0) {
			fs_run_fail(r->e, "%s: reap: %s", r->e->eng->name, strerror(errno));
			return -1;
		}
		for (int i = 0; i < k; i++) {
			struct fs_io_req *q = done[i];
			if (q->result < 0) {
				fs_run_fail(r->e, "read failed: %s (engine %s)", strerror((int)-q->result), r->e->eng->name);
				return -1;
			}
			fs_hist_add(&r->lat, q->end_ns - q->start_ns);
			r->reads++;
			r->read_bytes += (uint64_t)q->result;
			b->free_slot[b->nfree++] = (unsigned)(uintptr_t)q->user;
		}
		got += k;
	} while (got < min);
	return 0;
}

static int submit(struct reader *r, struct batch_io *b, int fd, uint64_t off, size_t len)
{
	while (b->nfree == 0)
		if (reap(r, b, 1) < 0)
			return -1;
	unsigned s = b->free_slot[--b->nfree];
	struct fs_io_req *q = &b->req[s];
	memset(q, 0, sizeof *q);
	q->kind = FS_IO_READ;
	q->fd = fd;
	q->buf = b->buf + (size_t)s * b->slot_bytes;
	q->len = len;
	q->offset = off;
	q->user = (void *)(uintptr_t)s;
	if (r->e->eng->submit(b->ctx, q) < 0) {
		fs_run_fail(r->e, "%s: submit: %s", r->e->eng->name, strerror(errno));
		return -1;
	}
	return 0;
}

static int read_sample(struct reader *r, struct batch_io *b, uint32_t fi, uint32_t ri)
{
	struct epoch *e = r->e;
	const struct fs_dataset_file *f = &e->o->ds->files[fi];
	const struct fs_dataset_rec *rec = &f->recs[ri];
	int fd = e->fds[fi];
	bool own = fd < 0;
	if (own) {
		char why[300];
		fd = fs_bench_open_read(e->dirfd, e->o->dir, f->path, e->o->direct, &fs_bench_interrupt, why,
					sizeof why);
		if (fd < 0) {
			fs_run_fail(e, "%s%s", why, "");
			return -1;
		}
	}
	uint64_t off = rec->offset, end = rec->offset + rec->length;
	if (e->o->direct) { /* O_DIRECT: whole aligned blocks around the sample */
		off &= ~(uint64_t)(ALIGN - 1);
		end = (end + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
	}
	int rc = 0;
	for (uint64_t p = off; p < end && rc == 0; p += b->slot_bytes)
		rc = submit(r, b, fd, p, (size_t)(end - p < b->slot_bytes ? end - p : b->slot_bytes));
	if (own) { /* finish before closing the fd the requests use */
		if (rc == 0)
			rc = reap(r, b, (int)e->eng->inflight(b->ctx));
		close(fd);
	}
	r->samples++;
	r->sample_bytes += rec->length;
	return rc;
}

void *fs_run_reader_main(void *arg)
{
	struct reader *r = arg;
	struct epoch *e = r->e;
	const struct fs_run_opts *o = e->o;
	struct batch_io b = {0};
	char why[256];
	unsigned qd = e->eng->queues ? (o->qd ? o->qd : 1) : 1;
	b.slot_bytes = e->slot_bytes;
	b.qd = qd;
	b.ctx = e->eng->create(qd, why, sizeof why);
	b.req = calloc(qd, sizeof *b.req);
	b.free_slot = calloc(qd, sizeof *b.free_slot);
	b.buf = fs_io_buf(qd * b.slot_bytes);
	if (!b.ctx || !b.req || !b.free_slot || !b.buf) {
		fs_run_fail(e, "%s%s", b.ctx ? "out of memory for read buffers" : why, "");
		goto out;
	}
	for (unsigned i = 0; i < qd; i++)
		b.free_slot[b.nfree++] = i;
	pthread_mutex_lock(&e->go_mu);
	while (!e->go && !atomic_load(&e->stop))
		pthread_cond_wait(&e->go_cv, &e->go_mu);
	pthread_mutex_unlock(&e->go_mu);
	for (;;) {
		struct accel *a = NULL;
		bool all_done = false;
		pthread_mutex_lock(&e->mu);
		while (!atomic_load(&e->stop) && !(a = claim(e, &all_done)) && !all_done)
			pthread_cond_wait(&e->not_full, &e->mu);
		if (!a) { /* every batch claimed (or a failure): the other waiting readers leave too */
			pthread_cond_broadcast(&e->not_full);
			pthread_mutex_unlock(&e->mu);
			break;
		}
		uint32_t step = a->next_step++;
		a->reserved++;
		pthread_mutex_unlock(&e->mu);

		io_time(e, true);
		for (unsigned k = 0; k < e->batch; k++) {
			uint64_t pos = (((uint64_t)step * e->batch + k) * e->n + a->index) % e->plan.nsamples;
			uint32_t fi, ri;
			fs_run_plan_sample(&e->plan, pos, &fi, &ri);
			if (read_sample(r, &b, fi, ri) < 0)
				goto out;
		}
		if (reap(r, &b, (int)e->eng->inflight(b.ctx)) < 0)
			goto out;
		uint64_t now = io_time(e, false);

		pthread_mutex_lock(&e->mu);
		a->reserved--;
		a->ready_ns[(a->head + a->ready) % a->cap] = now;
		a->ready++;
		pthread_mutex_unlock(&e->mu);
		/* after the unlock: the accelerator woken under the lock would
		 * block on it, and its wake-up cost this thread a second system
		 * call (the contended unlock) */
		pthread_cond_signal(&a->not_empty);
	}
out:
	r->exit_ns = fs_now_ns();
	if (b.ctx)
		e->eng->destroy(b.ctx);
	free(b.req);
	free(b.free_slot);
	free(b.buf);
	return NULL;
}
