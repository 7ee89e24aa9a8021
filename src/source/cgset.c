/* cgset - the distinct cgroups of a job: one entry per (version, path), its
 * controller files kept open, one `cgroup` row per entry per tick. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The directory of cgroup `path` in a hierarchy mounted at mnt (mapped)
 * whose top is the cgroup `root`. */
static void cg_dir(char *out, size_t cap, const char *mnt, const char *root, const char *path)
{
	size_t n = strlen(root);
	if (n > 1 && strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		path += n;
	if (strcmp(path, "/") == 0)
		path = "";
	snprintf(out, cap, "%s%s", mnt, path);
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
				&c->mem_limit, &c->mem_usage};
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
		cg_dir(dir, sizeof dir, s->cpu_v1, s->m.cpu_v1_root, path);
		file_init(&c->quota, dir, "cpu.cfs_quota_us");
		file_init(&c->period, dir, "cpu.cfs_period_us");
	} else {
		cg_dir(dir, sizeof dir, s->v2, s->m.v2_root, path);
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
		cg_dir(dir, sizeof dir, s->mem_v1, s->m.mem_v1_root, path);
		file_init(&c->mem_limit, dir, "memory.limit_in_bytes");
		file_init(&c->mem_usage, dir, "memory.usage_in_bytes");
	} else {
		cg_dir(dir, sizeof dir, s->v2, s->m.v2_root, path);
		file_init(&c->mem_limit, dir, "memory.max");
		file_init(&c->mem_usage, dir, "memory.current");
	}
	return i;
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
	}
	fs_sink_row(ctx->sink, &r);
}

void fs_cgset_sample(struct fs_cgset *s, const struct fs_source_ctx *ctx)
{
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
	fs_buf_free(&s->buf);
	memset(s, 0, sizeof *s);
}
