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

#include "util/clock.h"
#include "util/log.h"
#include "util/text.h"

struct entry {
	char *path;
	dev_t dev;
	ino_t ino;
	bool taken, said;
	uint64_t refused_ns; /* refused since (0: not refused) */
};

struct fs_runsdir {
	char dir[PATH_MAX];
	struct entry *v; /* sorted by path */
	int n;
	bool said_missing, said_full;
};

struct fs_runsdir *fs_runsdir_new(const char *dir)
{
	struct fs_runsdir *w = calloc(1, sizeof *w);
	if (w)
		snprintf(w->dir, sizeof w->dir, "%s", dir);
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

static void forget(struct fs_runsdir *w, fs_runsdir_drop_fn drop, void *arg)
{
	for (int i = 0; i < w->n; i++) {
		if (w->v[i].taken)
			drop(arg, w->v[i].path);
		free(w->v[i].path);
	}
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

/* The directory's *.db files that are regular files, sorted; *n of them.
 * NULL with *n = -1 when it cannot be read (errno). */
static struct entry *list_dir(struct fs_runsdir *w, int *n)
{
	DIR *d = opendir(w->dir);
	*n = -1;
	if (!d)
		return NULL;
	struct entry *v = NULL;
	int k = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char path[PATH_MAX];
		if (len <= 3 || strcmp(e->d_name + len - 3, ".db") ||
		    snprintf(path, sizeof path, "%s/%s", w->dir, e->d_name) >= (int)sizeof path ||
		    stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (k == FS_RUNSDIR_MAX_FILES) {
			if (!w->said_full)
				fs_warn("exporter: %s: more than %d *.db files: the others are left alone",
					fs_text_escape(path, sizeof path, w->dir), FS_RUNSDIR_MAX_FILES);
			w->said_full = true;
			break;
		}
		if (k == cap) {
			struct entry *more = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!more)
				break;
			v = more;
		}
		if (!(v[k].path = strdup(path)))
			break;
		v[k].dev = st.st_dev;
		v[k].ino = st.st_ino;
		v[k].taken = v[k].said = false;
		v[k].refused_ns = 0;
		k++;
	}
	closedir(d);
	if (k)
		qsort(v, (size_t)k, sizeof *v, by_path);
	*n = k;
	return v;
}

/* Offer e to add(); say a refusal that has lasted. */
static void offer(struct entry *e, fs_runsdir_add_fn add, void *arg, uint64_t now_ns)
{
	char why[600], shown[1024];
	if (add(arg, e->path, why, sizeof why) == 0) {
		e->taken = true;
		return;
	}
	if (!e->refused_ns)
		e->refused_ns = now_ns ? now_ns : 1;
	if (!e->said && now_ns - e->refused_ns >= (uint64_t)FS_RUNSDIR_SAY_AFTER_S * FS_NS_PER_S) {
		fs_warn("exporter: %s: %s: not served (looked at again every second)",
			fs_text_escape(shown, sizeof shown, e->path), why);
		e->said = true;
	}
}

void fs_runsdir_scan(struct fs_runsdir *w, fs_runsdir_add_fn add, fs_runsdir_drop_fn drop, void *arg, uint64_t now_ns)
{
	char shown[1024];
	int n;
	struct entry *now = list_dir(w, &n);
	if (n < 0) {
		if (!w->said_missing)
			fs_warn("exporter: runs directory %s: %s: serving the machine's figures, and its run files once "
				"it can be read", fs_text_escape(shown, sizeof shown, w->dir), strerror(errno));
		w->said_missing = true;
		forget(w, drop, arg);
		return;
	}
	if (w->said_missing)
		fs_warn("exporter: runs directory %s: serving its run files", fs_text_escape(shown, sizeof shown, w->dir));
	w->said_missing = false;
	/* what was there: kept (the same file), or dropped (gone, or another file) */
	for (int i = 0; i < w->n; i++) {
		struct entry *old = &w->v[i];
		struct entry *e = n ? bsearch(old, now, (size_t)n, sizeof *now, by_path) : NULL;
		if (old->taken && (!e || e->dev != old->dev || e->ino != old->ino))
			drop(arg, old->path);
		else if (e && e->dev == old->dev && e->ino == old->ino) {
			char *p = e->path;
			*e = *old;
			e->path = p;
		}
		free(old->path);
	}
	free(w->v);
	w->v = now;
	w->n = n;
	for (int i = 0; i < n; i++)
		if (!now[i].taken)
			offer(&now[i], add, arg, now_ns);
}

void fs_runsdir_free(struct fs_runsdir *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++)
		free(w->v[i].path);
	free(w->v);
	free(w);
}
