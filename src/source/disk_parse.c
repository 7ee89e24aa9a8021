/* disk_parse - the pure half of the disk source: /proc/diskstats lines into
 * structs, and counters into iostat's figures. */
#include "source/disk.h"

#include <math.h>
#include <string.h>

#include "util/parse.h"

/* fs_next_word, as a test: false at the end of the line. */
static bool next_token(const char **p, const char **tok, size_t *len)
{
	*len = fs_next_word(p, tok);
	return *len > 0;
}

static bool scan_uint(const char **p, unsigned *out)
{
	uint64_t v;
	if (!fs_scan_u64(p, &v) || v > UINT32_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

bool fs_disk_parse_line(const char *line, unsigned *maj, unsigned *min, char *name, size_t cap,
			struct fs_disk_counters *c)
{
	uint64_t *f[] = {&c->reads,     &c->reads_merged,    &c->read_sectors,    &c->read_ms,
			 &c->writes,    &c->writes_merged,   &c->write_sectors,   &c->write_ms,
			 &c->in_flight, &c->io_ms,           &c->weighted_ms,     &c->discards,
			 &c->discards_merged, &c->discard_sectors, &c->discard_ms, &c->flushes,
			 &c->flush_ms};
	const char *p = line, *tok;
	size_t len;
	memset(c, 0, sizeof *c);
	if (!scan_uint(&p, maj) || !scan_uint(&p, min) || !next_token(&p, &tok, &len) ||
	    len >= cap)
		return false;
	memcpy(name, tok, len);
	name[len] = '\0';
	unsigned n = 0;
	while (n < sizeof f / sizeof f[0] && fs_scan_u64(&p, f[n]))
		n++;
	c->nfields = n;
	return n >= 11;
}

bool fs_disk_unused(const struct fs_disk_counters *c)
{
	return !(c->reads | c->reads_merged | c->read_sectors | c->read_ms | c->writes |
		 c->writes_merged | c->write_sectors | c->write_ms | c->in_flight | c->io_ms |
		 c->weighted_ms | c->discards | c->discards_merged | c->discard_sectors |
		 c->discard_ms | c->flushes | c->flush_ms);
}

/* Δnum / Δden, or NaN when Δden is 0 (no request of that kind completed). */
static double per_request(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

void fs_disk_compute(const struct fs_disk_counters *a, const struct fs_disk_counters *b,
		     uint64_t dt_ns, struct fs_disk_rates *out)
{
	double dt_s = (double)dt_ns / 1e9, dt_ms = (double)dt_ns / 1e6;
	if (dt_ns == 0)
		dt_s = dt_ms = NAN; /* every rate NaN */
	uint64_t rd = fs_counter_delta(a->reads, b->reads);
	uint64_t wr = fs_counter_delta(a->writes, b->writes);
	uint64_t rd_bytes = fs_counter_delta(a->read_sectors, b->read_sectors) * FS_DISK_SECTOR_BYTES;
	uint64_t wr_bytes =
		fs_counter_delta(a->write_sectors, b->write_sectors) * FS_DISK_SECTOR_BYTES;

	out->reads_per_s = (double)rd / dt_s;
	out->read_bytes_per_s = (double)rd_bytes / dt_s;
	out->writes_per_s = (double)wr / dt_s;
	out->write_bytes_per_s = (double)wr_bytes / dt_s;
	out->read_await_ms = per_request(fs_counter_delta(a->read_ms, b->read_ms), rd);
	out->write_await_ms = per_request(fs_counter_delta(a->write_ms, b->write_ms), wr);
	out->read_req_bytes = per_request(rd_bytes, rd);
	out->write_req_bytes = per_request(wr_bytes, wr);
	out->queue_depth = (double)fs_counter_delta(a->weighted_ms, b->weighted_ms) / dt_ms;
	out->util_pct = 100.0 * (double)fs_counter_delta(a->io_ms, b->io_ms) / dt_ms;
	if (out->util_pct > 100.0)
		out->util_pct = 100.0;

	out->discard_bytes_per_s = NAN;
	if (a->nfields >= 15 && b->nfields >= 15)
		out->discard_bytes_per_s =
			(double)(fs_counter_delta(a->discard_sectors, b->discard_sectors) *
				 FS_DISK_SECTOR_BYTES) / dt_s;
	out->flushes_per_s = NAN;
	if (a->nfields >= 17 && b->nfields >= 17)
		out->flushes_per_s = (double)fs_counter_delta(a->flushes, b->flushes) / dt_s;
}
