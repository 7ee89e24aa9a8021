/* traceread.c - a tracer region read by pread (traceread.h). */
#include "source/traceread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_BYTES offsetof(struct fs_trace_file, opens) /* state .. path */

void fs_trace_reader_free(struct fs_trace_reader *rd)
{
	free(rd->files);
	free(rd->ops_a);
	free(rd->ops_b);
	free(rd->peers);
	memset(rd, 0, sizeof *rd);
}

/* All of [off, off + n) into buf, or -1 (a short read: the file shrank). */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

int fs_trace_read_head(int fd, struct fs_trace_head *h, bool whole)
{
	if (read_at(fd, h, sizeof *h, 0) < 0)
		return -1;
	if (h->magic != FS_TRACE_MAGIC || h->version != FS_TRACE_VERSION)
		return -1;
	h->exe[sizeof h->exe - 1] = '\0';
	if (!whole)
		return 0;
	/* the file must hold what the header says it has (a region truncated
	 * to more than a header but less than its records) */
	char last;
	if (read_at(fd, &last, 1, fs_trace_region_size(h->ops_enabled != 0) - 1) < 0)
		return -1;
	return 0;
}

int fs_trace_read_files(struct fs_trace_reader *rd, int fd, const struct fs_trace_head *h)
{
	if (!rd->files && !(rd->files = malloc(FS_TRACE_FILES * sizeof *rd->files)))
		return -1;
	fs_trace_names_forget(rd); /* files[] is overwritten */
	int n = 0;
	for (int i = 0; i < FS_TRACE_FILES;) {
		if (!fs_trace_used(h, i)) {
			i++;
			continue;
		}
		int j = i + 1; /* one pread per run of marked records */
		while (j < FS_TRACE_FILES && fs_trace_used(h, j))
			j++;
		uint64_t off = offsetof(struct fs_trace_region, files) + (uint64_t)i * sizeof(struct fs_trace_file);
		if (read_at(fd, &rd->files[i], (size_t)(j - i) * sizeof(struct fs_trace_file), off) < 0)
			return -1;
		for (int k = i; k < j; k++)
			rd->files[k].path[FS_TRACE_PATH - 1] = '\0';
		n += j - i;
		i = j;
	}
	return n;
}

int fs_trace_read_peers(struct fs_trace_reader *rd, int fd)
{
	size_t bytes = FS_TRACE_PEERS * sizeof(struct fs_trace_peer);
	/* aligned as the entries are (64 bytes: a cache line each in the region) */
	if (!rd->peers && !(rd->peers = aligned_alloc(_Alignof(struct fs_trace_peer), bytes)))
		return -1;
	/* a hole of the sparse file reads as zeros: no block is allocated */
	return read_at(fd, rd->peers, bytes, offsetof(struct fs_trace_region, peers));
}

/* count ring entries from position pos, in position order, into buf */
static int read_ring(int fd, struct fs_trace_op *buf, uint64_t pos, uint64_t count)
{
	uint64_t base = offsetof(struct fs_trace_region, ops);
	uint64_t slot = pos % FS_TRACE_OPS;
	uint64_t first = count < FS_TRACE_OPS - slot ? count : FS_TRACE_OPS - slot;
	if (read_at(fd, buf, (size_t)first * sizeof *buf, base + slot * sizeof *buf) < 0)
		return -1;
	if (first < count && read_at(fd, buf + first, (size_t)(count - first) * sizeof *buf, base) < 0)
		return -1;
	return 0;
}

/* An entry is taken when two copies made one after the other agree and
 * carry seq == position + 1 (the writer stores seq last), and no writer has
 * taken the position one lap later (the head read after both copies): the
 * second copy then holds what the writer finished, and the first matches
 * it. */
int fs_trace_read_ops(struct fs_trace_reader *rd, int fd, const struct fs_trace_head *h, uint64_t *pos,
		      bool final, uint64_t *lost, const struct fs_trace_op **out)
{
	size_t bytes = FS_TRACE_OPS * sizeof(struct fs_trace_op);
	if ((!rd->ops_a && !(rd->ops_a = malloc(bytes))) || (!rd->ops_b && !(rd->ops_b = malloc(bytes))))
		return -1;
	uint64_t head = h->ops_head;
	if (head - *pos > FS_TRACE_OPS) {
		*lost += head - *pos - FS_TRACE_OPS;
		*pos = head - FS_TRACE_OPS;
	}
	uint64_t count = head - *pos, head2;
	*out = rd->ops_a;
	if (count == 0)
		return 0;
	if (read_ring(fd, rd->ops_a, *pos, count) < 0 || read_ring(fd, rd->ops_b, *pos, count) < 0 ||
	    read_at(fd, &head2, sizeof head2, offsetof(struct fs_trace_region, ops_head)) < 0)
		return -1;
	int n = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t p = *pos + i;
		const struct fs_trace_op *a = &rd->ops_a[i];
		bool lapped = head2 > p + FS_TRACE_OPS;
		bool whole = a->seq == p + 1 && memcmp(a, &rd->ops_b[i], sizeof *a) == 0;
		if (lapped || (!whole && final)) {
			(*lost)++;
			continue;
		}
		if (!whole) { /* still being written: from here next tick */
			count = i;
			break;
		}
		if ((uint64_t)n != i)
			rd->ops_a[n] = *a;
		n++;
	}
	*pos += count;
	return n;
}

const struct fs_trace_file *fs_trace_read_name(struct fs_trace_reader *rd, int fd, int i)
{
	if (i < 0 || i >= FS_TRACE_FILES)
		return NULL;
	if (!rd->files && !(rd->files = malloc(FS_TRACE_FILES * sizeof *rd->files)))
		return NULL;
	struct fs_trace_file *f = &rd->files[i];
	if (!((rd->named[i / 64] >> (i % 64)) & 1)) {
		uint64_t off = offsetof(struct fs_trace_region, files) + (uint64_t)i * sizeof *f;
		if (read_at(fd, f, NAME_BYTES, off) < 0)
			return NULL;
		f->path[FS_TRACE_PATH - 1] = '\0';
		if (f->state != FS_TRACE_READY)
			return NULL; /* not named yet: ask again next time */
		rd->named[i / 64] |= 1ull << (i % 64);
	}
	return f;
}

void fs_trace_names_forget(struct fs_trace_reader *rd)
{
	memset(rd->named, 0, sizeof rd->named);
}
