/* cgroup - controller mounts, process membership, and the parsers and rates
 * of cpu.stat, quotas and memory limits. The per-job set of cgroups is in
 * cgset.c. */
#include "source/cgroup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

/* Copy the next space-delimited field of a mountinfo line into out,
 * decoding \ooo escapes. Returns the position after it. */
static const char *mi_field(const char *p, char *out, size_t cap)
{
	size_t n = 0;
	while (*p == ' ')
		p++;
	while (*p && *p != ' ' && *p != '\n') {
		char c = *p++;
		if (c == '\\' && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' && p[1] <= '7' &&
		    p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (n + 1 < cap)
			out[n++] = c;
	}
	out[n] = '\0';
	return p;
}

/* Is `word` one of the comma-separated items of list (length len)? */
static bool has_item(const char *list, size_t len, const char *word)
{
	size_t w = strlen(word);
	const char *end = list + len;
	for (const char *p = list; p < end;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
		if (n == w && strncmp(p, word, w) == 0)
			return true;
		p = c ? c + 1 : end;
	}
	return false;
}

static void mi_line(const char *line, struct fs_cg_mounts *out)
{
	char root[FS_CG_PATH_MAX], mnt[FS_CG_PATH_MAX], tmp[FS_CG_PATH_MAX];
	const char *p = line;
	for (int i = 0; i < 3; i++) /* id, parent id, major:minor */
		p = mi_field(p, tmp, sizeof tmp);
	p = mi_field(p, root, sizeof root);
	p = mi_field(p, mnt, sizeof mnt);
	const char *eol = strchr(p, '\n');
	const char *dash = strstr(p, " - ");
	if (!dash || (eol && dash > eol))
		return;
	char fstype[64], super[256];
	p = mi_field(dash + 3, fstype, sizeof fstype);
	p = mi_field(p, tmp, sizeof tmp); /* source */
	mi_field(p, super, sizeof super);
	if (strcmp(fstype, "cgroup2") == 0 && !out->v2[0]) {
		snprintf(out->v2, sizeof out->v2, "%s", mnt);
		snprintf(out->v2_root, sizeof out->v2_root, "%s", root);
	} else if (strcmp(fstype, "cgroup") == 0) {
		size_t n = strlen(super);
		if (has_item(super, n, "cpu") && !out->cpu_v1[0]) {
			snprintf(out->cpu_v1, sizeof out->cpu_v1, "%s", mnt);
			snprintf(out->cpu_v1_root, sizeof out->cpu_v1_root, "%s", root);
		}
		if (has_item(super, n, "blkio") && !out->blkio_v1[0]) {
			snprintf(out->blkio_v1, sizeof out->blkio_v1, "%s", mnt);
			snprintf(out->blkio_v1_root, sizeof out->blkio_v1_root, "%s", root);
		}
		if (has_item(super, n, "cpuset") && !out->cpuset_v1[0]) {
			snprintf(out->cpuset_v1, sizeof out->cpuset_v1, "%s", mnt);
			snprintf(out->cpuset_v1_root, sizeof out->cpuset_v1_root, "%s", root);
		}
		if (has_item(super, n, "memory") && !out->mem_v1[0]) {
			snprintf(out->mem_v1, sizeof out->mem_v1, "%s", mnt);
			snprintf(out->mem_v1_root, sizeof out->mem_v1_root, "%s", root);
		}
	}
}

void fs_cg_parse_mountinfo(const char *text, struct fs_cg_mounts *out)
{
	memset(out, 0, sizeof *out);
	for (const char *line = text; line && *line;) {
		mi_line(line, out);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

static void copy_path(char *out, const char *p, size_t n)
{
	if (n >= FS_CG_PATH_MAX)
		n = FS_CG_PATH_MAX - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

void fs_cg_dir(char *out, size_t cap, const char *mnt, const char *root, const char *path)
{
	size_t n = strlen(root);
	if (n > 1 && strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		path += n;
	if (strcmp(path, "/") == 0)
		path = "";
	snprintf(out, cap, "%s%s", mnt, path);
}

bool fs_cg_parse_member(const char *text, struct fs_cg_member *out)
{
	memset(out, 0, sizeof *out);
	bool any = false;
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
		if (c2) {
			any = true;
			const char *path = c2 + 1;
			size_t plen = len - (size_t)(path - line);
			size_t clen = (size_t)(c2 - c1 - 1);
			if (strncmp(line, "0:", 2) == 0 && clen == 0) {
				copy_path(out->v2, path, plen);
				out->have_v2 = true;
			} else {
				if (has_item(c1 + 1, clen, "cpu"))
					copy_path(out->cpu_v1, path, plen);
				if (has_item(c1 + 1, clen, "memory"))
					copy_path(out->mem_v1, path, plen);
				if (has_item(c1 + 1, clen, "blkio"))
					copy_path(out->blkio_v1, path, plen);
				if (has_item(c1 + 1, clen, "cpuset"))
					copy_path(out->cpuset_v1, path, plen);
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	return any;
}

void fs_cg_parse_cpu_stat(const char *text, int version, struct fs_cg_cpu *out)
{
	static const char *const keys[] = {"nr_periods", "nr_throttled", "throttled_time",
					   "throttled_usec"};
	uint64_t v[4];
	bool found[4];
	memset(out, 0, sizeof *out);
	if (!text)
		return;
	fs_scan_keyed(text, keys, 4, v, found);
	int t = version == 1 ? 2 : 3;
	if (!found[0] || !found[1] || !found[t])
		return;
	out->have = true;
	out->nr_periods = v[0];
	out->nr_throttled = v[1];
	out->throttled_ns = version == 1 ? v[2] : v[3] * 1000;
}

double fs_cg_quota_v1(const char *quota_text, const char *period_text)
{
	int64_t quota, period;
	const char *q = quota_text, *p = period_text;
	if (!q || !p || !fs_scan_i64(&q, &quota) || !fs_scan_i64(&p, &period))
		return NAN;
	if (quota <= 0 || period <= 0)
		return NAN; /* -1: unlimited */
	return (double)quota / (double)period;
}

double fs_cg_quota_v2(const char *text)
{
	if (!text)
		return NAN;
	const char *p = text;
	while (*p == ' ')
		p++;
	uint64_t quota, period;
	if (!fs_scan_u64(&p, &quota) || !fs_scan_u64(&p, &period) || period == 0)
		return NAN; /* "max ..." is unlimited */
	return (double)quota / (double)period;
}

int64_t fs_cg_mem_limit(const char *text)
{
	uint64_t v;
	const char *p = text;
	if (!p || !fs_scan_u64(&p, &v) || v >= (1ull << 62))
		return -1;
	return (int64_t)v;
}

void fs_cg_rates_compute(const struct fs_cg_cpu *prev, const struct fs_cg_cpu *curr,
			 double dt_s, struct fs_cg_rates *out)
{
	out->nr_periods_per_s = out->nr_throttled_per_s = out->throttled_pct = NAN;
	if (!prev->have || !curr->have || !(dt_s > 0))
		return;
	out->nr_periods_per_s = (double)fs_counter_delta(prev->nr_periods, curr->nr_periods) / dt_s;
	out->nr_throttled_per_s =
		(double)fs_counter_delta(prev->nr_throttled, curr->nr_throttled) / dt_s;
	out->throttled_pct =
		100.0 * (double)fs_counter_delta(prev->throttled_ns, curr->throttled_ns) / 1e9 / dt_s;
}

/* The entry for maj:min in lim[*n], made (no limits yet) if room. */
static struct fs_cg_io_limit *io_entry(struct fs_cg_io_limit *lim, int *n, int max, unsigned maj, unsigned min)
{
	for (int i = 0; i < *n; i++)
		if (lim[i].maj == maj && lim[i].min == min)
			return &lim[i];
	if (*n >= max)
		return NULL;
	struct fs_cg_io_limit *e = &lim[(*n)++];
	memset(e, 0, sizeof *e);
	e->maj = maj;
	e->min = min;
	e->read_bps = e->read_iops = e->latency_target_us = NAN;
	return e;
}

/* *slot = v when v is a limit (> 0) tighter than *slot; returns whether. */
static bool tighter(double *slot, double v)
{
	if (!(v > 0) || (isfinite(*slot) && *slot <= v))
		return false;
	*slot = v;
	return true;
}

/* "key=VALUE" in the line's words (VALUE a number; "max" or absent: NaN). */
static double keyed(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = line; p < line + len;) {
		while (p < line + len && *p == ' ')
			p++;
		const char *w = p;
		while (p < line + len && *p != ' ')
			p++;
		if ((size_t)(p - w) > k + 1 && strncmp(w, key, k) == 0 && w[k] == '=') {
			const char *v = w + k + 1;
			uint64_t x;
			return fs_scan_u64(&v, &x) ? (double)x : NAN;
		}
	}
	return NAN;
}

void fs_cg_parse_io_limits(const char *text, enum fs_cg_io_file kind, const char *cgroup,
			   struct fs_cg_io_limit *lim, int *n, int max)
{
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		unsigned maj, min;
		int used = 0;
		char tail[2];
		if (sscanf(line, "%u:%u%n", &maj, &min, &used) == 2 && used > 0 &&
		    (line[used] == ' ' || line[used] == '\t') && sscanf(line + used, "%1s", tail) == 1) {
			const char *rest = line + used;
			size_t rlen = len - (size_t)used;
			double bps = NAN, iops = NAN, lat = NAN;
			if (kind == FS_CG_IO_V1_BPS || kind == FS_CG_IO_V1_IOPS) {
				uint64_t v;
				const char *p = rest;
				if (fs_scan_u64(&p, &v) && (size_t)(p - rest) <= rlen)
					*(kind == FS_CG_IO_V1_BPS ? &bps : &iops) = (double)v;
			} else if (kind == FS_CG_IO_V2_MAX) {
				bps = keyed(rest, rlen, "rbps");
				iops = keyed(rest, rlen, "riops");
			} else {
				lat = keyed(rest, rlen, "target");
			}
			struct fs_cg_io_limit *e = (bps > 0 || iops > 0 || lat > 0) ? io_entry(lim, n, max, maj, min) : NULL;
			if (e) {
				const char *cg = cgroup ? cgroup : "";
				if (tighter(&e->read_bps, bps))
					snprintf(e->bps_from, sizeof e->bps_from, "%s", cg);
				if (tighter(&e->read_iops, iops))
					snprintf(e->iops_from, sizeof e->iops_from, "%s", cg);
				if (tighter(&e->latency_target_us, lat))
					snprintf(e->latency_from, sizeof e->latency_from, "%s", cg);
			}
		}
		line = eol ? eol + 1 : NULL;
	}
}
