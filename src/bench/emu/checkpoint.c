/* checkpoint.c - checkpoint.h: write this rank's share of a checkpoint into
 * DIR/checkpoints/ckpt-r<rank>-<i>.bin through an io engine (engine.h),
 * fsync each file, drop the files from the page cache (they are clean after
 * the fsync, so POSIX_FADV_DONTNEED evicts them) and read them back through
 * the same engine.
 *
 * Every file operation goes through safety.h's *_inside calls below a
 * descriptor of DIR, and DIR must hold the marker. The data is a pseudo-random
 * block (nothing a compressing or deduplicating file system could shrink);
 * the first 8 bytes of every request carry a stamp of (rank, file, offset),
 * checked when read back, so a read of the wrong bytes is an error.
 *
 * O_DIRECT needs lengths that are multiples of the logical block size: a
 * file's tail past the last multiple of 4096 is written and read with
 * O_DIRECT cleared on that descriptor (fcntl F_SETFL). */
#include "bench/emu/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/io/engine.h"
#include "bench/emu/run.h"
#include "bench/host/safety.h"
#include "util/clock.h"

#define CKPT_SUBDIR "checkpoints"
#define CKPT_ALIGN 4096u
#define CKPT_DEFAULT_BLOCK (4u << 20)
#define CKPT_DEFAULT_QD 8u
#define CKPT_MAX_FILES 100000u

struct ckpt {
	const struct fs_ckpt_opts *o;
	const struct fs_io_engine_ops *eng;
	int dirfd;
	size_t block;
	unsigned qd;
	unsigned char **bufs; /* qd buffers of block bytes */
	struct fs_io_req *reqs; /* qd request slots */
	unsigned created;     /* files 0..created-1 may exist and are ours to remove */
	char *why;
	size_t whylen;
};

static int fail(struct ckpt *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, c->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static void file_name(const struct ckpt *c, unsigned i, char *buf, size_t cap)
{
	snprintf(buf, cap, CKPT_SUBDIR "/ckpt-r%d-%u.bin", c->o->rank, i);
}

static uint64_t file_bytes(const struct ckpt *c, unsigned i)
{
	uint64_t n = c->o->files;
	return c->o->bytes / n + (i < c->o->bytes % n ? 1 : 0);
}

static uint64_t stamp(const struct ckpt *c, unsigned file, uint64_t off)
{
	uint64_t x = off ^ ((uint64_t)file << 40) ^ ((uint64_t)(unsigned)c->o->rank << 58);
	return x * 0x9e3779b97f4a7c15ull ^ 0x6a09e667f3bcc908ull;
}

/* Fill b with xorshift64 output from seed. */
static void fill_random(unsigned char *b, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
	for (size_t i = n & ~(size_t)7; i < n; i++)
		b[i] = (unsigned char)(i * 131u);
}

/* Wait for at least min of the requests in flight and check each: a read or
 * a write must move its whole length, a read must carry its stamp. Adds the
 * bytes moved to *moved; *free_slots gets the freed slot indexes. */
static int reap(struct ckpt *c, struct fs_io_ctx *ctx, int min, uint64_t *moved, unsigned *free_slots,
		unsigned *nfree)
{
	struct fs_io_req *done[64];
	int got = c->eng->reap(ctx, done, 64, min);
	if (got < 0)
		return fail(c, "checkpoint: %s engine: %s", c->eng->name, strerror(errno));
	for (int k = 0; k < got; k++) {
		struct fs_io_req *r = done[k];
		unsigned slot = (unsigned)(r - c->reqs);
		unsigned file = (unsigned)(uintptr_t)r->user;
		free_slots[(*nfree)++] = slot;
		const char *what = r->kind == FS_IO_READ ? "read" : r->kind == FS_IO_WRITE ? "write" : "fsync";
		if (r->result < 0)
			return fail(c, "checkpoint: %s of file %u at %llu: %s", what, file,
				    (unsigned long long)r->offset, strerror((int)-r->result));
		if (r->kind == FS_IO_FSYNC)
			continue;
		if ((uint64_t)r->result != r->len)
			return fail(c, "checkpoint: short %s of file %u at %llu: %lld of %zu bytes", what, file,
				    (unsigned long long)r->offset, (long long)r->result, r->len);
		if (r->kind == FS_IO_READ && r->len >= 8) {
			uint64_t want = stamp(c, file, r->offset), got8;
			memcpy(&got8, r->buf, 8);
			if (got8 != want)
				return fail(c, "checkpoint: file %u at %llu read back other bytes than were written",
					    file, (unsigned long long)r->offset);
		}
		*moved += r->len;
	}
	return got;
}

/* Drain every request in flight. */
static int drain(struct ckpt *c, struct fs_io_ctx *ctx, uint64_t *moved, unsigned *free_slots, unsigned *nfree)
{
	while (c->eng->inflight(ctx) > 0)
		if (reap(c, ctx, 1, moved, free_slots, nfree) < 0)
			return -1;
	return 0;
}

/* After a failure: wait for what is still in flight (its results do not
 * matter), so no request outlives its buffer or its fd. */
static void settle(struct ckpt *c, struct fs_io_ctx *ctx)
{
	struct fs_io_req *done[64];
	while (c->eng->inflight(ctx) > 0)
		if (c->eng->reap(ctx, done, 64, 1) < 0)
			break;
}

/* Move file i's bytes with requests of kind k (read or write) on fd, keeping
 * up to qd in flight. A tail that O_DIRECT cannot move goes with O_DIRECT
 * cleared, after the rest. */
static int move_file(struct ckpt *c, struct fs_io_ctx *ctx, enum fs_io_kind k, int fd, unsigned i, uint64_t *moved)
{
	uint64_t size = file_bytes(c, i);
	uint64_t body = c->o->direct ? size & ~(uint64_t)(CKPT_ALIGN - 1) : size;
	unsigned *slots = malloc(c->qd * sizeof *slots);
	if (!slots)
		return fail(c, "checkpoint: out of memory");
	unsigned nfree = 0;
	for (unsigned s = 0; s < c->qd; s++)
		slots[nfree++] = c->qd - 1 - s;
	int rc = 0;
	for (int part = 0; part < 2 && rc == 0; part++) {
		uint64_t off = part ? body : 0, end = part ? size : body;
		if (part && off < end && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT) < 0) {
			rc = fail(c, "checkpoint: fcntl: %s", strerror(errno));
			break;
		}
		while (off < end) {
			if (fs_bench_interrupt) { /* Ctrl-C: stop within one block; the files are removed */
				rc = fail(c, "checkpoint: interrupted");
				break;
			}
			while (nfree == 0 && (rc = reap(c, ctx, 1, moved, slots, &nfree)) >= 0)
				;
			if (rc < 0)
				break;
			rc = 0;
			unsigned s = slots[--nfree];
			struct fs_io_req *r = &c->reqs[s];
			size_t len = end - off < c->block ? (size_t)(end - off) : c->block;
			memset(r, 0, sizeof *r);
			r->kind = k;
			r->fd = fd;
			r->buf = c->bufs[s];
			r->len = len;
			r->offset = off;
			r->user = (void *)(uintptr_t)i;
			if (k == FS_IO_WRITE && len >= 8) {
				uint64_t st = stamp(c, i, off);
				memcpy(c->bufs[s], &st, 8);
			}
			if (c->eng->submit(ctx, r) < 0) {
				rc = fail(c, "checkpoint: %s engine: submit: %s", c->eng->name, strerror(errno));
				break;
			}
			off += len;
		}
		if (rc == 0)
			rc = drain(c, ctx, moved, slots, &nfree);
	}
	settle(c, ctx);
	free(slots);
	return rc < 0 ? -1 : 0;
}

/* fsync fd through the engine; adds its duration to *fsync_ns. */
static int sync_file(struct ckpt *c, struct fs_io_ctx *ctx, int fd, unsigned i, uint64_t *fsync_ns)
{
	struct fs_io_req *r = &c->reqs[0];
	memset(r, 0, sizeof *r);
	r->kind = FS_IO_FSYNC;
	r->fd = fd;
	r->user = (void *)(uintptr_t)i;
	uint64_t t0 = fs_now_ns(), dummy = 0;
	unsigned slot[1], n = 0;
	if (c->eng->submit(ctx, r) < 0)
		return fail(c, "checkpoint: %s engine: submit: %s", c->eng->name, strerror(errno));
	while (c->eng->inflight(ctx) > 0) {
		n = 0;
		if (reap(c, ctx, 1, &dummy, slot, &n) < 0)
			return -1;
	}
	*fsync_ns += fs_now_ns() - t0;
	return 0;
}

static int open_file(struct ckpt *c, unsigned i, int flags)
{
	char rel[64];
	file_name(c, i, rel, sizeof rel);
	int fl = flags | (c->o->direct ? O_DIRECT : 0);
	int fd = -1;
	/* Another rank may remove an empty checkpoints/ between our mkdir and
	 * the create: make it again. */
	for (int tries = 0; tries < 5; tries++) {
		fd = fs_bench_open_inside(c->dirfd, rel, fl, 0644);
		if (fd >= 0 || errno != ENOENT || !(flags & O_CREAT))
			break;
		if (fs_bench_mkdir_inside(c->dirfd, CKPT_SUBDIR, 0755) < 0)
			break;
	}
	if (fd < 0) {
		int e = errno;
		if (c->o->direct && e == EINVAL)
			return fail(c, "checkpoint: %s: the file system does not support O_DIRECT", rel);
		return fail(c, "checkpoint: %s: %s", rel, strerror(e));
	}
	return fd;
}

static int write_all(struct ckpt *c, struct fs_ckpt_result *r)
{
	char why[256];
	struct fs_io_ctx *ctx = c->eng->create(c->qd, why, sizeof why);
	if (!ctx)
		return fail(c, "checkpoint: %s", why);
	uint64_t t0 = fs_now_ns(), fsync_ns = 0;
	int rc = 0;
	for (unsigned i = 0; i < c->o->files && rc == 0; i++) {
		c->created = i + 1;
		int fd = open_file(c, i, O_RDWR | O_CREAT | O_TRUNC);
		if (fd < 0) {
			rc = -1;
			break;
		}
		/* mmap writes into a mapping of the whole file: size it once */
		if (!strcmp(c->eng->name, "mmap") && ftruncate(fd, (off_t)file_bytes(c, i)) < 0)
			rc = fail(c, "checkpoint: ftruncate: %s", strerror(errno));
		if (rc == 0)
			rc = move_file(c, ctx, FS_IO_WRITE, fd, i, &r->bytes_written);
		if (rc == 0)
			rc = sync_file(c, ctx, fd, i, &fsync_ns);
		close(fd);
	}
	c->eng->destroy(ctx); /* unmaps the mmap engine's mappings before the drop */
	r->write_s = (double)(fs_now_ns() - t0) / 1e9;
	r->fsync_s = (double)fsync_ns / 1e9;
	return rc;
}

/* Evict the (clean, fsynced) files from the page cache. */
static int drop_all(struct ckpt *c)
{
	for (unsigned i = 0; i < c->o->files; i++) {
		char rel[64];
		file_name(c, i, rel, sizeof rel);
		int fd = fs_bench_open_inside(c->dirfd, rel, O_RDONLY, 0);
		if (fd < 0)
			return fail(c, "checkpoint: %s: %s", rel, strerror(errno));
		int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (e != 0)
			return fail(c, "checkpoint: %s: posix_fadvise: %s", rel, strerror(e));
	}
	return 0;
}

static int read_all(struct ckpt *c, struct fs_ckpt_result *r)
{
	char why[256];
	struct fs_io_ctx *ctx = c->eng->create(c->qd, why, sizeof why);
	if (!ctx)
		return fail(c, "checkpoint: %s", why);
	uint64_t t0 = fs_now_ns();
	int rc = 0;
	for (unsigned i = 0; i < c->o->files && rc == 0; i++) {
		int fd = open_file(c, i, O_RDONLY);
		if (fd < 0) {
			rc = -1;
			break;
		}
		rc = move_file(c, ctx, FS_IO_READ, fd, i, &r->bytes_read);
		c->eng->destroy(ctx); /* the mmap engine keys mappings by fd: none outlives its file */
		ctx = NULL;
		close(fd);
		if (rc == 0 && i + 1 < c->o->files && !(ctx = c->eng->create(c->qd, why, sizeof why)))
			rc = fail(c, "checkpoint: %s", why);
	}
	if (ctx)
		c->eng->destroy(ctx);
	r->read_s = (double)(fs_now_ns() - t0) / 1e9;
	return rc;
}

/* Remove what this call made: its files, and checkpoints/ when empty (its
 * failure is fine: another rank's files, or kept ones, are still there). */
static void remove_all(struct ckpt *c)
{
	for (unsigned i = 0; i < c->created; i++) {
		char rel[64];
		file_name(c, i, rel, sizeof rel);
		fs_bench_unlink_inside(c->dirfd, rel, false);
	}
	fs_bench_unlink_inside(c->dirfd, CKPT_SUBDIR, true);
}

static int check_opts(const struct fs_ckpt_opts *o, struct ckpt *c)
{
	if (!o->dir)
		return fail(c, "checkpoint: no directory");
	if (o->files == 0 || o->files > CKPT_MAX_FILES)
		return fail(c, "checkpoint: files must be 1..%u, not %u", CKPT_MAX_FILES, o->files);
	if (o->bytes == 0)
		return fail(c, "checkpoint: size is 0");
	if (o->rank < 0)
		return fail(c, "checkpoint: rank %d", o->rank);
	c->eng = fs_io_engine_find(o->engine ? o->engine : "psync");
	if (!c->eng)
		return fail(c, "checkpoint: unknown io engine '%s'", o->engine);
	if (o->direct && !c->eng->supports_direct)
		return fail(c, "checkpoint: the %s engine does not support O_DIRECT", c->eng->name);
	c->block = o->block_bytes ? o->block_bytes : CKPT_DEFAULT_BLOCK;
	if (o->direct && c->block % CKPT_ALIGN)
		return fail(c, "checkpoint: block size %zu is not a multiple of %u (O_DIRECT)", c->block, CKPT_ALIGN);
	c->qd = c->eng->queues ? (o->qd ? o->qd : CKPT_DEFAULT_QD) : 1;
	if (!fs_bench_has_marker(o->dir, NULL))
		return fail(c, "checkpoint: %s is not a feedscope benchmark directory (no %s marker)", o->dir,
			    ".feedscope-bench");
	return 0;
}

int fs_bench_checkpoint(const struct fs_ckpt_opts *o, struct fs_ckpt_result *r, char *why, size_t whylen)
{
	struct ckpt c = {.o = o, .dirfd = -1, .why = why, .whylen = whylen};
	memset(r, 0, sizeof *r);
	if (check_opts(o, &c) < 0)
		return -1;
	if (fs_bench_space_check(o->dir, o->bytes, why, whylen) < 0)
		return -1;
	c.dirfd = fs_bench_dir_open(o->dir);
	if (c.dirfd < 0)
		return fail(&c, "checkpoint: %s: %s", o->dir, strerror(errno));
	int rc = 0;
	if (fs_bench_mkdir_inside(c.dirfd, CKPT_SUBDIR, 0755) < 0)
		rc = fail(&c, "checkpoint: %s/" CKPT_SUBDIR ": %s", o->dir, strerror(errno));
	c.bufs = calloc(c.qd, sizeof *c.bufs);
	c.reqs = calloc(c.qd, sizeof *c.reqs);
	if (rc == 0 && (!c.bufs || !c.reqs))
		rc = fail(&c, "checkpoint: out of memory");
	for (unsigned s = 0; rc == 0 && s < c.qd; s++) {
		c.bufs[s] = fs_io_buf(c.block);
		if (!c.bufs[s])
			rc = fail(&c, "checkpoint: out of memory (%u buffers of %zu bytes)", c.qd, c.block);
		else
			fill_random(c.bufs[s], c.block, 0x243f6a8885a308d3ull + s * 0x13198a2e03707344ull);
	}
	if (rc == 0)
		rc = write_all(&c, r);
	if (rc == 0)
		rc = drop_all(&c);
	if (rc == 0)
		rc = read_all(&c, r);
	if (rc == 0) {
		r->files = o->files;
		r->write_bytes_per_s = r->write_s > 0 ? (double)r->bytes_written / r->write_s : 0;
		r->read_bytes_per_s = r->read_s > 0 ? (double)r->bytes_read / r->read_s : 0;
	}
	if (!o->keep)
		remove_all(&c);
	for (unsigned s = 0; c.bufs && s < c.qd; s++)
		free(c.bufs[s]);
	free(c.bufs);
	free(c.reqs);
	close(c.dirfd);
	return rc;
}
