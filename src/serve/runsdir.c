/* runsdir.c - a directory of run files, scanned (runsdir.h). */
#include "serve/runsdir.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/text.h"

struct entry {
	char *path;
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
	bool taken, said;
	uint64_t refused_ns; /* refused since (0: not refused) */
	int fails;           /* refusals in a row */
	uint64_t retry_ns;   /* not offered before */
};

struct fs_runsdir {
	char dir[PATH_MAX];
	int max_taken;
	struct entry *v; /* sorted by path */
	int n;
	bool listed;             /* v is a listing (else: never listed, or the directory went) */
	struct timespec dir_mtime;
	uint64_t listed_ns;
	bool said_missing, said_full, said_names;
};

struct fs_runsdir *fs_runsdir_new(const char *dir, int max_taken)
{
	struct fs_runsdir *w = calloc(1, sizeof *w);
	if (w) {
		snprintf(w->dir, sizeof w->dir, "%s", dir);
		w->max_taken = max_taken;
	}
	return w;
}

const char *fs_runsdir_dir(const struct fs_runsdir *w)
{
	return w->dir;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* Newest first; the same mtime: name order. */
static int by_age(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns > y->mtime_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int by_age_v(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return by_age(&x, &y);
}

static void free_entries(struct entry *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

static void forget(struct fs_runsdir *w, fs_runsdir_drop_fn drop, void *arg)
{
	for (int i = 0; i < w->n; i++)
		if (w->v[i].taken)
			drop(arg, w->v[i].path);
	free_entries(w->v, w->n);
	w->v = NULL;
	w->n = 0;
	w->listed = false;
}

/* The directory's *.db files that are regular files (stat: a link is
 * followed, nothing is opened), the newest FS_RUNSDIR_MAX_FILES, sorted
 * by path; *n of them. NULL with *n = -1 when it cannot be read (errno). */
static struct entry *list_dir(struct fs_runsdir *w, int *n)
{
	DIR *d = opendir(w->dir);
	*n = -1;
	if (!d)
		return NULL;
	struct entry *v = NULL;
	int k = 0, cap = 0, names = 0;
	struct dirent *e;
	char shown[1024];
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char path[PATH_MAX];
		if (len <= 3 || strcmp(e->d_name + len - 3, ".db"))
			continue;
		if (++names > FS_RUNSDIR_MAX_NAMES) {
			if (!w->said_names)
				fs_warn("exporter: %s: more than %d *.db names: the others are not looked at",
					fs_text_escape(shown, sizeof shown, w->dir), FS_RUNSDIR_MAX_NAMES);
			w->said_names = true;
			break;
		}
		if (snprintf(path, sizeof path, "%s/%s", w->dir, e->d_name) >= (int)sizeof path || stat(path, &st) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (k == cap) {
			struct entry *more = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!more)
				break;
			v = more;
		}
		if (!(v[k].path = strdup(path)))
			break;
		v[k] = (struct entry){v[k].path, st.st_dev, st.st_ino,
				      (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, false, false, 0, 0, 0};
		k++;
	}
	closedir(d);
	if (k > FS_RUNSDIR_MAX_FILES) {
		if (!w->said_full)
			fs_warn("exporter: %s: %d *.db files: the newest %d are followed, the others left alone",
				fs_text_escape(shown, sizeof shown, w->dir), k, FS_RUNSDIR_MAX_FILES);
		w->said_full = true;
		qsort(v, (size_t)k, sizeof *v, by_age_v);
		for (int i = FS_RUNSDIR_MAX_FILES; i < k; i++)
			free(v[i].path);
		k = FS_RUNSDIR_MAX_FILES;
	}
	if (k)
		qsort(v, (size_t)k, sizeof *v, by_path);
	*n = k;
	return v;
}

/* Offer e to add(); a refusal: back-off, and said once it has lasted. */
static void offer(struct entry *e, fs_runsdir_add_fn add, void *arg, uint64_t now_ns)
{
	char why[600], shown[1024];
	if (add(arg, e->path, why, sizeof why) == 0) {
		e->taken = true;
		e->fails = 0;
		e->refused_ns = e->retry_ns = 0;
		return;
	}
	if (!e->refused_ns)
		e->refused_ns = now_ns ? now_ns : 1;
	uint64_t wait = FS_NS_PER_S << (e->fails < 6 ? e->fails : 6);
	if (wait > (uint64_t)FS_RUNSDIR_BACKOFF_MAX_S * FS_NS_PER_S)
		wait = (uint64_t)FS_RUNSDIR_BACKOFF_MAX_S * FS_NS_PER_S;
	e->fails++;
	e->retry_ns = now_ns + wait;
	if (!e->said && now_ns - e->refused_ns >= (uint64_t)FS_RUNSDIR_SAY_AFTER_S * FS_NS_PER_S) {
		fs_warn("exporter: %s: %s: not served (looked at again, less and less often, up to every %d s)",
			fs_text_escape(shown, sizeof shown, e->path), why, FS_RUNSDIR_BACKOFF_MAX_S);
		e->said = true;
	}
}

/* Has the directory changed since it was listed (or may it have: a change
 * in the same tick of the file system's clock)? */
static bool changed(struct fs_runsdir *w, uint64_t now_ns)
{
	struct stat st;
	if (!w->listed || now_ns - w->listed_ns >= (uint64_t)FS_RUNSDIR_RELIST_S * FS_NS_PER_S || stat(w->dir, &st) < 0)
		return true;
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	bool recent = wall.tv_sec - st.st_mtim.tv_sec < 2;
	bool moved = st.st_mtim.tv_sec != w->dir_mtime.tv_sec || st.st_mtim.tv_nsec != w->dir_mtime.tv_nsec;
	return recent || moved;
}

/* List again, keep what is the same file, drop() the rest. -1: cannot be read. */
static int relist(struct fs_runsdir *w, fs_runsdir_drop_fn drop, void *arg, uint64_t now_ns)
{
	char shown[1024];
	struct stat dst;
	bool have_dst = stat(w->dir, &dst) == 0;
	int n;
	struct entry *now = list_dir(w, &n);
	if (n < 0) {
		if (!w->said_missing)
			fs_warn("exporter: runs directory %s: %s: serving the machine's figures, and its run files once "
				"it can be read", fs_text_escape(shown, sizeof shown, w->dir), strerror(errno));
		w->said_missing = true;
		forget(w, drop, arg);
		return -1;
	}
	if (w->said_missing)
		fs_warn("exporter: runs directory %s: serving its run files", fs_text_escape(shown, sizeof shown, w->dir));
	w->said_missing = false;
	for (int i = 0; i < w->n; i++) {
		struct entry *old = &w->v[i];
		struct entry *e = n ? bsearch(old, now, (size_t)n, sizeof *now, by_path) : NULL;
		if (e && e->dev == old->dev && e->ino == old->ino) {
			char *p = e->path;
			int64_t m = e->mtime_ns;
			*e = *old; /* the same file: its state, its new mtime */
			e->path = p;
			e->mtime_ns = m;
		} else if (old->taken) {
			drop(arg, old->path);
		}
		free(old->path);
	}
	free(w->v);
	w->v = now;
	w->n = n;
	w->listed = true;
	w->listed_ns = now_ns;
	if (have_dst)
		w->dir_mtime = dst.st_mtim;
	return 0;
}

void fs_runsdir_scan(struct fs_runsdir *w, fs_runsdir_add_fn add, fs_runsdir_drop_fn drop, void *arg, uint64_t now_ns)
{
	if (changed(w, now_ns) && relist(w, drop, arg, now_ns) < 0)
		return;
	/* the files to offer, newest first; the taken ones, oldest last */
	struct entry **cand = malloc(((size_t)w->n + 1) * sizeof *cand), **taken = malloc(((size_t)w->n + 1) * sizeof *taken);
	int nc = 0, nt = 0;
	for (int i = 0; cand && taken && i < w->n; i++)
		if (w->v[i].taken)
			taken[nt++] = &w->v[i];
		else if (now_ns >= w->v[i].retry_ns)
			cand[nc++] = &w->v[i];
	qsort(cand, (size_t)nc, sizeof *cand, by_age);
	qsort(taken, (size_t)nt, sizeof *taken, by_age);
	for (int i = 0; i < nc; i++) {
		if (nt >= w->max_taken) {
			/* full: a newer file takes the oldest one's place */
			struct entry *oldest = taken[nt - 1];
			if (by_age(&cand[i], &oldest) >= 0)
				break; /* this one and the rest are older */
			drop(arg, oldest->path);
			oldest->taken = false;
			nt--;
		}
		offer(cand[i], add, arg, now_ns);
		if (cand[i]->taken) {
			int k = nt++;
			while (k > 0 && by_age(&taken[k - 1], &cand[i]) > 0) {
				taken[k] = taken[k - 1];
				k--;
			}
			taken[k] = cand[i];
		}
	}
	free(cand);
	free(taken);
}

void fs_runsdir_free(struct fs_runsdir *w)
{
	if (!w)
		return;
	free_entries(w->v, w->n);
	free(w);
}
