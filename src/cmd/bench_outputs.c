/* bench_outputs.c - the page-cache guard's check and warning, and DLIO's
 * summary.json file, for `feedscope bench` (bench_outputs.h). */
#include "cmd/bench_outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/emu/mpi.h"
#include "render/dlio_summary.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/paths.h"

/* MLPerf Storage's rule (bench/host/cache_guard.h): the dataset at least 5x the
 * client's memory, unless --direct. Under MPI every rank checks its own host; one that may
 * cache flags the run, and the smallest memory is reported. Warned once. */
void fs_bench_cache_guard(const char *dir, uint64_t dataset_bytes, bool direct, bool allow_cache, bool quiet,
			  struct fs_cache_guard *g)
{
	struct fs_paths p;
	fs_paths_from_env(&p);
	fs_cache_guard_check(g, &p, dataset_bytes);
	double flag = g->potential_caching, mem = g->mem_bytes ? (double)g->mem_bytes : INFINITY;
	fs_mpi_max_double(&flag, 1);
	fs_mpi_min_double(&mem, 1);
	/* O_DIRECT reads bypass the page cache: nothing can come from it */
	g->potential_caching = flag > 0 && !direct;
	if (isfinite(mem))
		g->mem_bytes = (uint64_t)mem;
	if (!g->potential_caching || quiet)
		return;
	char ds_t[32], mem_t[32];
	fs_fmt_bytes(ds_t, sizeof ds_t, (double)dataset_bytes);
	fs_fmt_bytes(mem_t, sizeof mem_t, (double)g->mem_bytes);
	fs_warn("bench: the dataset in %s (%s) is less than %dx the client's memory (%s%s): reads may come from the page "
		"cache, so the AU check is not valid%s", dir, ds_t, FS_CACHE_GUARD_FACTOR, mem_t,
		g->cgroup_limit_bytes >= 0 && (uint64_t)g->cgroup_limit_bytes == g->mem_bytes ? ", the cgroup's limit" : "",
		allow_cache ? " (--allow-cache: a PASS is claimed anyway)" : " (--allow-cache claims a PASS anyway)");
}

/* --summary FILE: written at the end (FILE.tmp, renamed over FILE), so
 * checked now: not a directory, and its directory writable. 0 or -1 with why. */
int fs_bench_summary_check(const char *path, char *why, size_t whylen)
{
	struct stat st;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (!*path || (slash && !slash[1]))
		snprintf(why, whylen, "--summary '%.500s' names no file", path);
	else if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		snprintf(why, whylen, "--summary %.500s is not a regular file", path);
	else if (access(dir, W_OK) != 0)
		snprintf(why, whylen, "--summary %.200s: its directory %.300s cannot be written: %s", path, dir, strerror(errno));
	else
		return 0;
	return -1;
}

/* Write DLIO's summary.json to path (FILE.tmp then rename: a reader never
 * sees half a file). 0, or -1 with why. */
int fs_bench_summary_save(const char *path, const struct fs_bench_report *b, char *why, size_t whylen)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(why, whylen, "--summary %.500s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd), unlink(tmp);
		return -1;
	}
	fs_dlio_summary_write(f, b);
	bool bad = fflush(f) != 0 || ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
		snprintf(why, whylen, "--summary %.500s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
