/* probe_io.c - the measurements of `feedscope probe` (probe.h): the test
 * file's write, timed reads through an io engine, the metadata test and the
 * fsync test, each with a latency histogram.
 *
 * The read loop is kept lean, as fio's is: per request only the engine's
 * own work (one pread, or one io_uring_enter per request) and its two
 * vDSO clock readings; the deadline and the stop flag are checked against
 * the completion time the engine already took. */
#include "bench/probe/probe_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/host/safety.h"
#include "util/clock.h"
#include "util/fmt.h"

#define SHOW_EVERY_NS (FS_NS_PER_S / 4)
#define WRITE_CHUNK (1u << 20)
#define META_BYTES 4096
#define FSYNC_SLOTS 256 /* the fsync test rewrites 256 blocks of 4 KiB in turn */

void fs_probe_show(struct fs_probe_env *e, uint64_t now_ns, const char *what, char kind, double done,
		   double total, const char *rate)
{
	if (!e->progress || now_ns < e->next_show_ns)
		return;
	static uint64_t started_ns;
	static double started_done;
	e->next_show_ns = now_ns + SHOW_EVERY_NS;
	if (e->shown == 0 || done < started_done) { /* a new step: shown from its first quarter second */
		started_ns = now_ns;
		started_done = done;
		e->shown = 1;
		return;
	}
	e->shown = 2;
	char d[32], t[32], left[32];
	if (kind == 'b') {
		fs_fmt_bytes(d, sizeof d, done);
		fs_fmt_bytes(t, sizeof t, total);
	} else if (kind == 't') {
		fs_fmt_time(d, sizeof d, done);
		fs_fmt_time(t, sizeof t, total);
	} else {
		snprintf(d, sizeof d, "%.0f", done);
		snprintf(t, sizeof t, "%.0f", total);
	}
	double el = (double)(now_ns - started_ns) / 1e9, frac = done - started_done;
	double rest = kind == 't' ? total - done : frac > 0 ? el * (total - done) / frac : NAN;
	fs_fmt_time(left, sizeof left, rest < 0 ? 0 : rest);
	fprintf(stderr, "\r\033[Kfeedscope probe: [%d/%d] %s: %s of %s, %s, %s left", e->step, e->steps, what, d,
		t, rate, left);
	fflush(stderr);
}

void fs_probe_show_end(struct fs_probe_env *e)
{
	if (e->progress && e->shown == 2) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	e->next_show_ns = 0;
	e->shown = 0;
}

void fs_probe_lat_from(struct fs_probe_lat *l, const struct fs_hist *h)
{
	l->count = h->count;
	if (!h->count) {
		l->p50_us = l->p90_us = l->p99_us = l->p999_us = l->max_us = NAN;
		return;
	}
	l->p50_us = (double)fs_hist_percentile(h, 50) / 1e3;
	l->p90_us = (double)fs_hist_percentile(h, 90) / 1e3;
	l->p99_us = (double)fs_hist_percentile(h, 99) / 1e3;
	l->p999_us = (double)fs_hist_percentile(h, 99.9) / 1e3;
	l->max_us = (double)h->max / 1e3;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Data no file system can compress or deduplicate away. */
static void fill_random(unsigned char *buf, size_t len, uint64_t seed)
{
	uint64_t s = seed | 1;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t x = xorshift(&s);
		memcpy(buf + i, &x, 8);
	}
}

static int failed(struct fs_probe_env *e, const char *fmt, const char *what, int err)
{
	if (*e->stop)
		snprintf(e->why, e->whylen, "interrupted");
	else
		snprintf(e->why, e->whylen, fmt, what, strerror(err));
	return -1;
}

int fs_probe_write_file(struct fs_probe_env *e, int fd, uint64_t bytes, double *bytes_per_s)
{
	unsigned char *buf = fs_io_buf(WRITE_CHUNK);
	if (!buf)
		return failed(e, "%s: %s", "test file", ENOMEM);
	fill_random(buf, WRITE_CHUNK, 0x9e3779b97f4a7c15ull);
	uint64_t t0 = fs_now_ns(), off = 0;
	int rc = 0;
	char rate[32];
	while (off < bytes && !*e->stop) {
		for (uint64_t b = 0; b < WRITE_CHUNK; b += 4096) { /* every 4 KiB block differs */
			uint64_t stamp = off + b;
			memcpy(buf + b, &stamp, sizeof stamp);
		}
		ssize_t n = pwrite(fd, buf, WRITE_CHUNK, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != WRITE_CHUNK) {
			rc = failed(e, "writing the %s: %s", "test file", n < 0 ? errno : ENOSPC);
			break;
		}
		off += WRITE_CHUNK;
		uint64_t now = fs_now_ns();
		fs_probe_show(e, now, "writing the test file", 'b', (double)off, (double)bytes,
			      fs_fmt_rate(rate, sizeof rate, (double)off / ((double)(now - t0) / 1e9)));
	}
	if (rc == 0 && !*e->stop && fsync(fd) < 0)
		rc = failed(e, "fsync of the %s: %s", "test file", errno);
	if (rc == 0 && *e->stop)
		rc = failed(e, "%s", "", EINTR);
	*bytes_per_s = (double)bytes / ((double)(fs_now_ns() - t0) / 1e9);
	fs_probe_show_end(e);
	free(buf);
	return rc;
}

/* The next offset of a read test. */
static uint64_t next_offset(uint64_t *seq, uint64_t *seed, bool random, uint64_t nblocks, size_t block)
{
	if (random)
		return (uint64_t)(((unsigned __int128)xorshift(seed) * nblocks) >> 64) * block;
	uint64_t off = *seq;
	*seq = off + block >= nblocks * block ? 0 : off + block;
	return off;
}

static void show_reads(struct fs_probe_env *e, const char *what, uint64_t now, uint64_t t0, double runtime_s,
		       uint64_t ops, size_t block)
{
	char rate[48], num[32];
	double s = (double)(now - t0) / 1e9;
	if (block >= WRITE_CHUNK)
		fs_fmt_rate(rate, sizeof rate, (double)ops * (double)block / s);
	else
		snprintf(rate, sizeof rate, "%s IOPS", fs_fmt_sig3(num, sizeof num, (double)ops / s));
	fs_probe_show(e, now, what, 't', s, runtime_s, rate);
}

int fs_probe_read_test(struct fs_probe_env *e, const char *what, const struct fs_io_engine_ops *eng, int fd,
		       uint64_t file_bytes, size_t block, unsigned qd, bool random, double runtime_s,
		       struct fs_hist *h, struct fs_probe_reads *out)
{
	memset(out, 0, sizeof *out);
	uint64_t nblocks = file_bytes / block;
	if (nblocks == 0 || qd == 0) {
		snprintf(e->why, e->whylen, "%s: the test file is smaller than one request", what);
		return -1;
	}
	struct fs_io_ctx *c = eng->create(qd, e->why, e->whylen);
	struct fs_io_req *reqs = calloc(qd, sizeof *reqs);
	struct fs_io_req *done[1];
	unsigned char *bufs = fs_io_buf((size_t)qd * block);
	if (!c || !reqs || !bufs) {
		if (c)
			snprintf(e->why, e->whylen, "%s: out of memory", what);
		if (c)
			eng->destroy(c);
		free(reqs);
		free(bufs);
		return -1;
	}
	uint64_t seq = 0, seed = 0x2545f4914f6cdd1dull ^ (uint64_t)qd;
	uint64_t t0 = fs_now_ns(), deadline = t0 + (uint64_t)(runtime_s * 1e9), now = t0;
	uint64_t next_show = e->progress ? t0 : UINT64_MAX;
	int rc = 0;
	for (unsigned i = 0; i < qd; i++) {
		reqs[i] = (struct fs_io_req){.kind = FS_IO_READ, .fd = fd, .buf = bufs + (size_t)i * block,
					     .len = block,
					     .offset = next_offset(&seq, &seed, random, nblocks, block)};
		if (eng->submit(c, &reqs[i]) < 0) {
			rc = failed(e, "%s: %s", what, errno);
			break;
		}
	}
	while (rc == 0) {
		/* One completion at a time, its successor submitted alone (in
		 * the same io_uring_enter that waits for the next), as fio does
		 * by default: the device's queue is refilled at once (here ~20%
		 * more IOPS at QD32 than refilling in batches). Sequential reads
		 * too: batched submissions let the block layer merge neighbouring
		 * 1 MiB requests (2.5 MiB on average here), and fewer, larger
		 * requests in flight read slower on this virtio disk (median
		 * 2.64 GB/s batched, 3.20 GB/s one at a time, 8 rounds each;
		 * docs/probe.md, "Against fio"). */
		int n = eng->reap(c, done, 1, 1);
		if (n < 0) {
			rc = failed(e, "%s: %s", what, errno);
			break;
		}
		for (int i = 0; i < n; i++) {
			struct fs_io_req *r = done[i];
			if (r->result != (int64_t)block) {
				int err = r->result < 0 ? (int)-r->result : EIO;
				snprintf(e->why, e->whylen, "%s: read of %zu bytes at %llu gave %s", what, block,
					 (unsigned long long)r->offset,
					 r->result < 0 ? strerror(err) : "a short read");
				rc = -1;
			}
			fs_hist_add(h, r->end_ns - r->start_ns);
			now = r->end_ns;
		}
		out->ops += (uint64_t)n;
		if (rc < 0 || now >= deadline || *e->stop)
			break;
		for (int i = 0; i < n; i++) {
			done[i]->offset = next_offset(&seq, &seed, random, nblocks, block);
			if (eng->submit(c, done[i]) < 0) {
				rc = failed(e, "%s: %s", what, errno);
				break;
			}
		}
		if (now >= next_show) {
			show_reads(e, what, now, t0, runtime_s, out->ops, block);
			next_show = now + SHOW_EVERY_NS;
		}
	}
	if (rc == 0 && *e->stop)
		rc = failed(e, "%s", what, EINTR);
	out->bytes = out->ops * block;
	out->elapsed_s = (double)(now - t0) / 1e9;
	eng->destroy(c); /* waits for what is still in flight */
	fs_probe_show_end(e);
	free(reqs);
	free(bufs);
	return rc;
}

static int meta_failed(struct fs_probe_env *e, const char *op, const char *name, int err)
{
	char what[96];
	snprintf(what, sizeof what, "metadata test: %s %s", op, name);
	return failed(e, "%s: %s", what, err);
}

static void show_meta(struct fs_probe_env *e, const char *phase, uint32_t i, uint32_t files, uint64_t t0)
{
	uint64_t now = fs_now_ns();
	if (!e->progress || now < e->next_show_ns)
		return;
	char what[48], rate[32], num[32];
	snprintf(what, sizeof what, "metadata (%s)", phase);
	snprintf(rate, sizeof rate, "%s /s", fs_fmt_sig3(num, sizeof num, i / ((double)(now - t0) / 1e9)));
	fs_probe_show(e, now, what, 'n', i, files, rate);
}

int fs_probe_meta_test(struct fs_probe_env *e, uint32_t files, struct fs_probe_result *r)
{
	struct fs_hist *h = malloc(sizeof *h);
	unsigned char *data = malloc(META_BYTES);
	if (!h || !data) {
		free(h);
		free(data);
		return failed(e, "%s: %s", "metadata test", ENOMEM);
	}
	fs_hist_init(h);
	fill_random(data, META_BYTES, 42);
	uint64_t t_create = 0, t_stat = 0, t_open = 0, t_close = 0, t_unlink = 0;
	char name[32];
	int rc = 0;
	uint64_t t0 = fs_now_ns();
	/* create: open(O_CREAT|O_EXCL) + write 4 KiB + close, one operation */
	for (uint32_t i = 0; i < files && rc == 0 && !*e->stop; i++) {
		snprintf(name, sizeof name, "m%07u", i);
		uint64_t a = fs_now_ns();
		int fd = fs_bench_open_inside(e->subfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			rc = meta_failed(e, "create", name, errno);
		else if (write(fd, data, META_BYTES) != META_BYTES)
			rc = meta_failed(e, "write", name, errno ? errno : ENOSPC);
		if (fd >= 0)
			close(fd);
		uint64_t b = fs_now_ns();
		fs_hist_add(h, b - a);
		t_create += b - a;
		show_meta(e, "create", i, files, t0);
	}
	struct stat st;
	for (uint32_t i = 0; i < files && rc == 0 && !*e->stop; i++) {
		snprintf(name, sizeof name, "m%07u", i);
		uint64_t a = fs_now_ns();
		if (fstatat(e->subfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = meta_failed(e, "stat", name, errno);
		uint64_t b = fs_now_ns();
		fs_hist_add(h, b - a);
		t_stat += b - a;
		show_meta(e, "stat", i, files, t0);
	}
	for (uint32_t i = 0; i < files && rc == 0 && !*e->stop; i++) {
		snprintf(name, sizeof name, "m%07u", i);
		uint64_t a = fs_now_ns();
		int fd = openat(e->subfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		uint64_t b = fs_now_ns();
		if (fd < 0) {
			rc = meta_failed(e, "open", name, errno);
			break;
		}
		close(fd);
		uint64_t c = fs_now_ns();
		fs_hist_add(h, b - a);
		fs_hist_add(h, c - b);
		t_open += b - a;
		t_close += c - b;
		show_meta(e, "open, close", i, files, t0);
	}
	for (uint32_t i = 0; i < files && rc == 0 && !*e->stop; i++) {
		snprintf(name, sizeof name, "m%07u", i);
		uint64_t a = fs_now_ns();
		if (unlinkat(e->subfd, name, 0) < 0)
			rc = meta_failed(e, "unlink", name, errno);
		t_unlink += fs_now_ns() - a;
		show_meta(e, "unlink", i, files, t0);
	}
	if (rc == 0 && *e->stop)
		rc = failed(e, "%s", "", EINTR);
	if (rc == 0) {
		double n = files;
		r->create_per_s = n / ((double)t_create / 1e9);
		r->stat_per_s = n / ((double)t_stat / 1e9);
		r->open_per_s = n / ((double)t_open / 1e9);
		r->close_per_s = n / ((double)t_close / 1e9);
		r->unlink_per_s = n / ((double)t_unlink / 1e9);
		r->meta_ops_per_s = 4 * n / ((double)(t_create + t_stat + t_open + t_close) / 1e9);
		r->meta_files = files;
		fs_probe_lat_from(&r->meta_lat, h);
	}
	fs_probe_show_end(e);
	free(h);
	free(data);
	return rc;
}

int fs_probe_fsync_test(struct fs_probe_env *e, double runtime_s, struct fs_probe_result *r)
{
	struct fs_hist *h = malloc(sizeof *h);
	unsigned char *data = fs_io_buf(4096);
	int fd = fs_bench_open_inside(e->subfd, "fsync", O_WRONLY | O_CREAT | O_EXCL, 0644);
	int rc = 0;
	if (fd < 0)
		rc = failed(e, "fsync test: create %s: %s", "fsync", errno);
	else if (!h || !data)
		rc = failed(e, "%s: %s", "fsync test", ENOMEM);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		free(h);
		free(data);
		return rc;
	}
	fs_hist_init(h);
	fill_random(data, 4096, 7);
	uint64_t t0 = fs_now_ns(), deadline = t0 + (uint64_t)(runtime_s * 1e9), now = t0;
	uint64_t n = 0;
	char rate[32], num[32];
	while (!*e->stop && (n == 0 || now < deadline)) {
		if (pwrite(fd, data, 4096, (off_t)(n % FSYNC_SLOTS) * 4096) != 4096) {
			rc = failed(e, "fsync test: write: %s%s", "", errno ? errno : ENOSPC);
			break;
		}
		uint64_t a = fs_now_ns();
		int s = fsync(fd);
		now = fs_now_ns();
		if (s < 0 && errno != EINTR) {
			rc = failed(e, "fsync test: fsync: %s%s", "", errno);
			break;
		}
		fs_hist_add(h, now - a);
		n++;
		if (e->progress && now >= e->next_show_ns) {
			double el = (double)(now - t0) / 1e9;
			snprintf(rate, sizeof rate, "%s fsync/s", fs_fmt_sig3(num, sizeof num, (double)n / el));
			fs_probe_show(e, now, "fsync", 't', el, runtime_s, rate);
		}
	}
	if (rc == 0 && *e->stop)
		rc = failed(e, "%s", "", EINTR);
	if (rc == 0) {
		r->fsync_per_s = (double)n / ((double)(now - t0) / 1e9);
		fs_probe_lat_from(&r->fsync_lat, h);
		r->fsync_p50_ms = r->fsync_lat.p50_us / 1e3;
		r->fsync_p99_ms = r->fsync_lat.p99_us / 1e3;
	}
	fs_probe_show_end(e);
	close(fd);
	free(h);
	free(data);
	return rc;
}
