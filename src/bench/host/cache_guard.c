/* cache_guard.c - the client's memory (MemTotal or the cgroup limit) and
 * MLPerf Storage's 5× rule (cache_guard.h). */
#include "bench/host/cache_guard.h"

#include <stdio.h>
#include <string.h>

#include "source/cgroup.h"
#include "util/pfile.h"

uint64_t fs_cache_guard_memtotal(const char *meminfo)
{
	const char *p = meminfo ? strstr(meminfo, "MemTotal:") : NULL;
	unsigned long long kib;
	if (!p || (p != meminfo && p[-1] != '\n') || sscanf(p + 9, "%llu", &kib) != 1)
		return 0;
	return (uint64_t)kib * 1024; /* meminfo's "kB" are KiB */
}

/* The lowest limit in file name of dir and each directory above it, up to
 * top (the hierarchy's mount point, mapped); -1 when none. */
static int64_t lowest_limit(char *dir, size_t top_len, const char *name)
{
	int64_t best = -1;
	struct fs_buf b = {0};
	char path[FS_CG_PATH_MAX * 2 + 64];
	for (;;) {
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (fs_read_file(path, &b) >= 0) {
			int64_t v = fs_cg_mem_limit(b.data);
			if (v >= 0 && (best < 0 || v < best))
				best = v;
		}
		char *slash = strrchr(dir, '/');
		if (strlen(dir) <= top_len || !slash || (size_t)(slash - dir) < top_len)
			break;
		*slash = '\0';
	}
	fs_buf_free(&b);
	return best;
}

/* dir = mount (mapped through p) + the cgroup path below the mount's root. */
static size_t cg_dir(char *dir, size_t cap, const struct fs_paths *p, const char *mnt, const char *root,
		     const char *path)
{
	char mapped[FS_CG_PATH_MAX * 2];
	fs_host_path(mapped, sizeof mapped, p, mnt);
	size_t n = strlen(root);
	if (n > 1 && strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'))
		path += n;
	if (!strcmp(path, "/"))
		path = "";
	snprintf(dir, cap, "%s%s", mapped, path);
	return strlen(mapped);
}

int64_t fs_cache_guard_cg_limit(const struct fs_paths *p, const char *mi, const char *cg)
{
	struct fs_cg_mounts m;
	struct fs_cg_member me;
	memset(&m, 0, sizeof m);
	memset(&me, 0, sizeof me);
	fs_cg_parse_mountinfo(mi ? mi : "", &m);
	if (!cg || !fs_cg_parse_member(cg, &me))
		return -1;
	char dir[FS_CG_PATH_MAX * 3];
	if (m.mem_v1[0] && me.mem_v1[0]) {
		size_t top = cg_dir(dir, sizeof dir, p, m.mem_v1, m.mem_v1_root, me.mem_v1);
		return lowest_limit(dir, top, "memory.limit_in_bytes");
	}
	if (m.v2[0] && me.have_v2) {
		size_t top = cg_dir(dir, sizeof dir, p, m.v2, m.v2_root, me.v2);
		return lowest_limit(dir, top, "memory.max");
	}
	return -1;
}

void fs_cache_guard_check(struct fs_cache_guard *g, const struct fs_paths *p, uint64_t dataset_bytes)
{
	memset(g, 0, sizeof *g);
	g->dataset_bytes = dataset_bytes;
	g->cgroup_limit_bytes = -1;
	char path[600];
	struct fs_buf b = {0}, mi = {0};
	if (fs_read_file(fs_proc_path(path, sizeof path, p, "meminfo"), &b) >= 0)
		g->mem_total_bytes = fs_cache_guard_memtotal(b.data);
	if (fs_read_file(fs_proc_path(path, sizeof path, p, "self/mountinfo"), &mi) >= 0 &&
	    fs_read_file(fs_proc_path(path, sizeof path, p, "self/cgroup"), &b) >= 0)
		g->cgroup_limit_bytes = fs_cache_guard_cg_limit(p, mi.data, b.data);
	fs_buf_free(&b);
	fs_buf_free(&mi);
	g->mem_bytes = g->mem_total_bytes;
	if (g->cgroup_limit_bytes >= 0 && (!g->mem_bytes || (uint64_t)g->cgroup_limit_bytes < g->mem_bytes))
		g->mem_bytes = (uint64_t)g->cgroup_limit_bytes;
	/* in long double: 5 × a 2^62-byte limit does not wrap */
	g->potential_caching = g->mem_bytes > 0 &&
			       (long double)dataset_bytes < (long double)FS_CACHE_GUARD_FACTOR * g->mem_bytes;
}
