/* cgset - the distinct cgroups of a job: one entry per (version, path), its
 * controller files kept open, one `cgroup` row per entry per tick. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/cgroup.h"
#include "util/parse.h"

#define LIMITS_EVERY_NS 1000000000ull /* quotas and limits rarely change */

static bool v2_has(struct fs_cgset *s, const char *controller)
{
	char path[FS_CG_PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/cgroup.controllers", s->v2);
	if (fs_read_file(path, &s->buf) < 0)
		return false;
	for (const char *p = s->buf.data; *p;) {
		size_t n = strcspn(p, " \n");
		if (n == strlen(controller) && strncmp(p, controller, n) == 0)
			return true;
		p += n;
		p += strspn(p, " \n");
	}
	return false;
}

const char *fs_cgset_init(struct fs_cgset *s, const struct fs_paths *paths)
{
	static char desc[256];
	memset(s, 0, sizeof *s);
	char path[512];
	if (fs_read_file(fs_proc_path(path, sizeof path, paths, "self/mountinfo"), &s->buf) >= 0)
		fs_cg_parse_mountinfo(s->buf.data, &s->m);
	if (s->m.cpu_v1[0])
		fs_host_path(s->cpu_v1, sizeof s->cpu_v1, paths, s->m.cpu_v1);
	if (s->m.mem_v1[0])
		fs_host_path(s->mem_v1, sizeof s->mem_v1, paths, s->m.mem_v1);
	if (s->m.blkio_v1[0])
		fs_host_path(s->blkio_v1, sizeof s->blkio_v1, paths, s->m.blkio_v1);
	s->paths = paths;
	if (s->m.v2[0]) {
		fs_host_path(s->v2, sizeof s->v2, paths, s->m.v2);
		s->v2_cpu = !s->cpu_v1[0] && v2_has(s, "cpu");
		s->v2_mem = !s->mem_v1[0] && v2_has(s, "memory");
	}
	snprintf(desc, sizeof desc, "cpu: %s, memory: %s",
		 s->cpu_v1[0] ? "v1" : s->v2_cpu ? "v2" : "none",
		 s->mem_v1[0] ? "v1" : s->v2_mem ? "v2" : "none");
	return desc;
}

static void file_init(struct fs_pfile *pf, const char *dir, const char *name)
{
	char path[FS_CG_PATH_MAX * 2 + 32];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	fs_pfile_init(pf, path); /* on ENOMEM path stays NULL: the read fails */
}

/* Close what c holds (when free_it) and leave it an empty, closed slot. */
static void entry_reset(struct fs_cg *c, bool free_it)
{
	struct fs_pfile *f[] = {&c->cpu_stat, &c->quota, &c->period, &c->cpu_max,
				&c->mem_limit, &c->mem_usage, &c->mem_peak};
	const size_t nf = sizeof f / sizeof f[0];
	if (free_it) {
		for (size_t i = 0; i < nf; i++)
			fs_pfile_close(f[i]);
		free(c->path);
	}
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < nf; i++)
		f[i]->fd = -1;
}

/* Find or create the entry (version, path). Returns its index or -1. */
static int entry_get(struct fs_cgset *s, int version, const char *path)
{
	int free_slot = -1;
	for (int i = 0; i < s->n; i++) {
		struct fs_cg *c = &s->cg[i];
		if (c->live && c->version == version && strcmp(c->path, path) == 0)
			return i;
		if (!c->live && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0) {
		if (s->n == s->cap) {
			int cap = s->cap ? s->cap * 2 : 4;
			struct fs_cg *g = realloc(s->cg, (size_t)cap * sizeof *g);
			if (!g)
				return -1;
			s->cg = g;
			s->cap = cap;
		}
		free_slot = s->n++;
		entry_reset(&s->cg[free_slot], false);
	}
	struct fs_cg *c = &s->cg[free_slot];
	c->path = strdup(path);
	if (!c->path)
		return -1;
	c->live = true;
	c->version = version;
	return free_slot;
}

static int attach_cpu(struct fs_cgset *s, int version, const char *path)
{
	int i = entry_get(s, version, path);
	if (i < 0 || s->cg[i].cpu)
		return i;
	struct fs_cg *c = &s->cg[i];
	char dir[FS_CG_PATH_MAX * 2];
	c->cpu = true;
	if (version == 1) {
		fs_cg_dir(dir, sizeof dir, s->cpu_v1, s->m.cpu_v1_root, path);
		file_init(&c->quota, dir, "cpu.cfs_quota_us");
		file_init(&c->period, dir, "cpu.cfs_period_us");
	} else {
		fs_cg_dir(dir, sizeof dir, s->v2, s->m.v2_root, path);
		file_init(&c->cpu_max, dir, "cpu.max");
	}
	file_init(&c->cpu_stat, dir, "cpu.stat");
	return i;
}

static int attach_mem(struct fs_cgset *s, int version, const char *path)
{
	int i = entry_get(s, version, path);
	if (i < 0 || s->cg[i].mem)
		return i;
	struct fs_cg *c = &s->cg[i];
	char dir[FS_CG_PATH_MAX * 2];
	c->mem = true;
	if (version == 1) {
		fs_cg_dir(dir, sizeof dir, s->mem_v1, s->m.mem_v1_root, path);
		file_init(&c->mem_limit, dir, "memory.limit_in_bytes");
		file_init(&c->mem_usage, dir, "memory.usage_in_bytes");
		file_init(&c->mem_peak, dir, "memory.max_usage_in_bytes");
	} else {
		fs_cg_dir(dir, sizeof dir, s->v2, s->m.v2_root, path);
		file_init(&c->mem_limit, dir, "memory.max");
		file_init(&c->mem_usage, dir, "memory.current");
		file_init(&c->mem_peak, dir, "memory.peak"); /* kernel 5.19+ */
	}
	return i;
}

/* The read limits of cgroup path (version 1: the blkio hierarchy) and of
 * every cgroup above it, folded into s->io; once per path. */
static void io_visit(struct fs_cgset *s, int version, const char *path)
{
	for (int i = 0; i < s->nio_seen; i++)
		if (!strcmp(s->io_seen[i], path))
			return;
	if (s->nio_seen >= (int)(sizeof s->io_seen / sizeof s->io_seen[0]))
		return;
	char *copy = strdup(path);
	if (!copy)
		return;
	s->io_seen[s->nio_seen++] = copy;
	static const struct {
		int version;
		const char *file;
		enum fs_cg_io_file kind;
	} files[] = {
		{1, "blkio.throttle.read_bps_device", FS_CG_IO_V1_BPS},
		{1, "blkio.throttle.read_iops_device", FS_CG_IO_V1_IOPS},
		{2, "io.max", FS_CG_IO_V2_MAX},
		{2, "io.latency", FS_CG_IO_V2_LAT},
	};
	const char *mnt = version == 1 ? s->blkio_v1 : s->v2;
	const char *root = version == 1 ? s->m.blkio_v1_root : s->m.v2_root;
	char cg[FS_CG_PATH_MAX];
	snprintf(cg, sizeof cg, "%s", path);
	int before = s->nio;
	struct fs_cg_io_limit old[FS_CG_IO_MAX];
	memcpy(old, s->io, sizeof old);
	for (int depth = 0; depth < 64; depth++) {
		char dir[FS_CG_PATH_MAX * 2], file[FS_CG_PATH_MAX * 2 + 40];
		fs_cg_dir(dir, sizeof dir, mnt, root, cg);
		for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
			if (files[f].version != version)
				continue;
			snprintf(file, sizeof file, "%s/%s", dir, files[f].file);
			if (fs_read_file(file, &s->buf) > 0)
				fs_cg_parse_io_limits(s->buf.data, files[f].kind, cg, s->io, &s->nio, FS_CG_IO_MAX);
		}
		/* up one level, to the hierarchy's top (its root as mounted) */
		char *slash = strrchr(cg, '/');
		size_t rn = strlen(root);
		if (!slash || !strcmp(cg, "/") || (rn > 1 && strlen(cg) <= rn))
			break;
		if (slash == cg)
			cg[1] = '\0';
		else
			*slash = '\0';
	}
	if (s->nio != before || memcmp(old, s->io, sizeof old) != 0)
		s->io_dirty = true;
}

/* The kernel's name of block device maj:min (/sys/dev/block/M:m is a link
 * to its directory), or "M:m" when it has none here. */
static void dev_name(const struct fs_paths *p, unsigned maj, unsigned min, char *out, size_t cap)
{
	char rel[64], path[512], link[PATH_MAX];
	snprintf(rel, sizeof rel, "dev/block/%u:%u", maj, min);
	ssize_t n = p ? readlink(fs_sys_path(path, sizeof path, p, rel), link, sizeof link - 1) : -1;
	if (n > 0) {
		link[n] = '\0';
		const char *b = strrchr(link, '/');
		snprintf(out, cap, "%.63s", b ? b + 1 : link);
		return;
	}
	snprintf(out, cap, "%u:%u", maj, min);
}

/* meta cgroup_io.<disk>.read_bps, .read_iops, .latency_target_us (the
 * tightest rule of the job's cgroups and their ancestors), each with
 * <key>_cgroup (whose rule), and .majmin. */
static void io_meta(struct fs_cgset *s, const struct fs_source_ctx *ctx)
{
	char key[160], name[64];
	for (int i = 0; i < s->nio; i++) {
		const struct fs_cg_io_limit *e = &s->io[i];
		dev_name(s->paths, e->maj, e->min, name, sizeof name);
		snprintf(key, sizeof key, "cgroup_io.%s.majmin", name);
		fs_sink_metaf(ctx->sink, key, "%u:%u", e->maj, e->min);
		const struct {
			const char *what;
			double v;
			const char *from;
		} kv[] = {{"read_bps", e->read_bps, e->bps_from},
			  {"read_iops", e->read_iops, e->iops_from},
			  {"latency_target_us", e->latency_target_us, e->latency_from}};
		for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++) {
			if (!isfinite(kv[k].v))
				continue;
			snprintf(key, sizeof key, "cgroup_io.%s.%s", name, kv[k].what);
			fs_sink_metaf(ctx->sink, key, "%.0f", kv[k].v);
			snprintf(key, sizeof key, "cgroup_io.%s.%s_cgroup", name, kv[k].what);
			fs_sink_meta(ctx->sink, key, kv[k].from);
		}
	}
	s->io_dirty = false;
}

void fs_cgset_attach(struct fs_cgset *s, const char *text, int *cpu_idx, int *mem_idx)
{
	struct fs_cg_member m;
	*cpu_idx = *mem_idx = -1;
	if (!fs_cg_parse_member(text, &m))
		return;
	if (s->cpu_v1[0] && m.cpu_v1[0])
		*cpu_idx = attach_cpu(s, 1, m.cpu_v1);
	else if (s->v2_cpu && m.have_v2)
		*cpu_idx = attach_cpu(s, 2, m.v2);
	if (s->mem_v1[0] && m.mem_v1[0])
		*mem_idx = attach_mem(s, 1, m.mem_v1);
	else if (s->v2_mem && m.have_v2)
		*mem_idx = attach_mem(s, 2, m.v2);
	if (s->blkio_v1[0] && m.blkio_v1[0])
		io_visit(s, 1, m.blkio_v1);
	else if (s->v2[0] && m.have_v2)
		io_visit(s, 2, m.v2);
}

void fs_cgset_use(struct fs_cgset *s, int idx)
{
	if (idx >= 0 && idx < s->n && s->cg[idx].live)
		s->cg[idx].used = true;
}

/* Read a pfile into buf; returns the text or NULL (path NULL: out of
 * memory). Every controller file read here (cpu.stat, cpu.max,
 * memory.current, v1's quota, period, limit and usage) is shown in one
 * piece (no seq_start of its own): a short read is the end, one pread. */
static const char *pread_text(struct fs_pfile *pf, struct fs_buf *buf)
{
	if (!pf->path || fs_pfile_read_one(pf, buf) < 0)
		return NULL;
	return buf->data;
}

static void read_limits(struct fs_cgset *s, struct fs_cg *c)
{
	c->quota_cores = NAN;
	c->limit_bytes = -1;
	if (c->cpu && c->version == 1) {
		char quota[32] = "";
		const char *q = pread_text(&c->quota, &s->buf);
		if (q)
			snprintf(quota, sizeof quota, "%s", q);
		c->quota_cores = fs_cg_quota_v1(q ? quota : NULL, pread_text(&c->period, &s->buf));
	} else if (c->cpu) {
		c->quota_cores = fs_cg_quota_v2(pread_text(&c->cpu_max, &s->buf));
	}
	if (c->mem)
		c->limit_bytes = fs_cg_mem_limit(pread_text(&c->mem_limit, &s->buf));
}

static void sample_entry(struct fs_cgset *s, struct fs_cg *c, const struct fs_source_ctx *ctx)
{
	if (!c->have_limits || ctx->now_ns - c->limits_ns >= LIMITS_EVERY_NS) {
		read_limits(s, c);
		c->have_limits = true;
		c->limits_ns = ctx->now_ns;
	}
	struct fs_row r;
	fs_row_init(&r, FS_T_CGROUP, ctx->t);
	fs_row_text(&r, FS_CGROUP_path, c->path);
	fs_row_int(&r, FS_CGROUP_version, c->version);
	if (c->cpu) {
		struct fs_cg_cpu cur;
		struct fs_cg_rates rates;
		fs_cg_parse_cpu_stat(pread_text(&c->cpu_stat, &s->buf), c->version, &cur);
		fs_cg_rates_compute(&c->prev, &cur, (double)(ctx->now_ns - c->prev_ns) / 1e9, &rates);
		fs_row_real(&r, FS_CGROUP_cpu_quota_cores, c->quota_cores);
		fs_row_real(&r, FS_CGROUP_nr_periods_per_s, c->have_prev ? rates.nr_periods_per_s : NAN);
		fs_row_real(&r, FS_CGROUP_nr_throttled_per_s,
			    c->have_prev ? rates.nr_throttled_per_s : NAN);
		fs_row_real(&r, FS_CGROUP_throttled_pct, c->have_prev ? rates.throttled_pct : NAN);
		c->prev = cur;
		c->prev_ns = ctx->now_ns;
		c->have_prev = true;
	}
	if (c->mem) {
		if (c->limit_bytes >= 0)
			fs_row_int(&r, FS_CGROUP_mem_limit_bytes, c->limit_bytes);
		const char *u = pread_text(&c->mem_usage, &s->buf);
		uint64_t usage;
		if (u && fs_scan_u64(&u, &usage))
			fs_row_int(&r, FS_CGROUP_mem_usage_bytes, (int64_t)usage);
		/* the group's peak since it was made (or reset): NULL where the
		 * kernel has no such file */
		const char *pk = pread_text(&c->mem_peak, &s->buf);
		uint64_t peak;
		if (pk && fs_scan_u64(&pk, &peak) && peak <= INT64_MAX)
			fs_row_int(&r, FS_CGROUP_mem_peak_bytes, (int64_t)peak);
	}
	fs_sink_row(ctx->sink, &r);
}

void fs_cgset_sample(struct fs_cgset *s, const struct fs_source_ctx *ctx)
{
	if (s->io_dirty)
		io_meta(s, ctx);
	for (int i = 0; i < s->n; i++) {
		struct fs_cg *c = &s->cg[i];
		if (!c->live)
			continue;
		if (!c->used) {
			entry_reset(c, true);
			continue;
		}
		sample_entry(s, c, ctx);
		c->used = false;
	}
}

void fs_cgset_free(struct fs_cgset *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->cg[i].live)
			entry_reset(&s->cg[i], true);
	free(s->cg);
	for (int i = 0; i < s->nio_seen; i++)
		free(s->io_seen[i]);
	fs_buf_free(&s->buf);
	memset(s, 0, sizeof *s);
}
