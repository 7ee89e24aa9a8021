/* gen_clean.c - `feedscope bench clean --dir D` (gen.h): remove only what
 * feedscope made in D: the files its manifest and its partial plan list,
 * the directories holding them when empty, the checkpoint files of `bench`
 * (checkpoints/ckpt-r<R>-<I>.bin), the manifest, the plan and the marker;
 * D itself when feedscope created it and it is then empty. A user's file in
 * D survives, and D with it.
 *
 * "Made by feedscope" (docs/bench-formats.md): a list (manifest or plan) is
 * used only when it is, name for name, the list `bench generate` makes from
 * the list's own header (fs_gen_entry_name: train/[K/|NNNN/]img_<i>_of_<N>.<ext>,
 * every i once, in order); an edited or forged list removes nothing. A file
 * at such a name is removed only when it is a regular file (never a
 * symlink, never followed), of this user, with one link, no larger than
 * listed (exactly the listed size for a complete manifest), and not older
 * than the marker (the generator writes the marker first). */
#include "bench/format/gen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "bench/format/gen_int.h"
#include "bench/host/safety.h"
#include "util/fmt.h"
#include "util/log.h"

#define CKPT_DIR "checkpoints"

struct clean {
	const char *dir;
	int dfd;
	uint64_t files, bytes, left_alone;
	bool refused;        /* a list was not the generator's: its files, and the lists, stay */
	uid_t uid;
	struct timespec marker_mtime;
	char **dirs;     /* directories that held listed files, to remove when empty */
	size_t ndirs, capdirs;
};

static void remember_dir(struct clean *c, const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *slash = strrchr(buf, '/'); slash; slash = strrchr(buf, '/')) {
		*slash = 0;
		for (size_t i = 0; i < c->ndirs; i++)
			if (!strcmp(c->dirs[i], buf))
				return; /* it and its parents are known */
		if (c->ndirs == c->capdirs) {
			size_t cap = c->capdirs ? 2 * c->capdirs : 16;
			char **n = realloc(c->dirs, cap * sizeof *n);
			if (!n)
				return;
			c->dirs = n;
			c->capdirs = cap;
		}
		if (!(c->dirs[c->ndirs] = strdup(buf)))
			return;
		c->ndirs++;
	}
}

/* Why the file st (listed with size max_bytes; exact: it must have that
 * size) is not one feedscope made, or NULL when it is. */
static const char *not_ours(const struct clean *c, const struct stat *st, uint64_t max_bytes, bool exact)
{
	if (!S_ISREG(st->st_mode))
		return "not a regular file (never followed)";
	if (st->st_uid != c->uid)
		return "owned by another user";
	if (st->st_nlink != 1)
		return "it has other hard links";
	if ((uint64_t)st->st_size > max_bytes || (exact && (uint64_t)st->st_size != max_bytes))
		return "its size is not the one the manifest lists";
	if (st->st_mtim.tv_sec < c->marker_mtime.tv_sec ||
	    (st->st_mtim.tv_sec == c->marker_mtime.tv_sec && st->st_mtim.tv_nsec < c->marker_mtime.tv_nsec))
		return "older than the dataset's marker";
	return NULL;
}

static void left_alone(struct clean *c, const char *rel, const char *reason)
{
	c->left_alone++;
	fs_warn("bench clean: left %s/%s alone: %s", c->dir, rel, reason);
}

/* Remove rel when it is feedscope's (not_ours); never through a symlink. */
static void remove_file(struct clean *c, const char *rel, uint64_t max_bytes, bool exact)
{
	int fd = fs_bench_open_inside(c->dfd, rel, O_PATH, 0);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (e != ENOENT)
			left_alone(c, rel, e == ELOOP ? "a symlink (never followed)" : strerror(e));
		return;
	}
	close(fd);
	const char *why = not_ours(c, &st, max_bytes, exact);
	if (why)
		left_alone(c, rel, why);
	else if (fs_bench_unlink_inside(c->dfd, rel, false) == 0) {
		c->files++;
		c->bytes += (uint64_t)st.st_size;
	} else if (errno != ENOENT) {
		left_alone(c, rel, errno == EPERM ? "not a regular file (never followed)" : strerror(errno));
	}
}

/* Whether d lists exactly the files `bench generate` makes from d's own
 * header (names, order, records per file); else the reason in why. */
static bool list_is_generated(const struct fs_dataset *d, char *why, size_t whylen)
{
	const struct fs_gen_format *fmt = fs_gen_format_find(d->format);
	if (!fmt) {
		snprintf(why, whylen, "format '%s' is not one feedscope writes", d->format);
		return false;
	}
	if (fmt->ops->has_index && d->nfiles % 2) {
		snprintf(why, whylen, "an indexed dataset lists its files in pairs, not %u", d->nfiles);
		return false;
	}
	uint32_t nlogical = fmt->ops->has_index ? d->nfiles / 2 : d->nfiles;
	char want[256];
	for (uint32_t e = 0; e < d->nfiles; e++) {
		const struct fs_dataset_file *f = &d->files[e];
		bool index = fmt->ops->has_index && (e & 1);
		fs_gen_entry_name(fmt, nlogical, d->subfolders, e, want, sizeof want);
		if (strcmp(f->path, want)) {
			snprintf(why, whylen, "entry %u is '%.120s', where feedscope would have written '%.120s'", e + 1,
				 f->path, want);
			return false;
		}
		if (f->nrecs != (index ? 0 : d->samples_per_file)) {
			snprintf(why, whylen, "%s has %u records, not %u", f->path, f->nrecs,
				 index ? 0 : d->samples_per_file);
			return false;
		}
	}
	return true;
}

/* The files of list name (manifest: complete, exact sizes; plan: files may
 * be partly written), when the list is the generator's. */
static void remove_listed(struct clean *c, const struct fs_dataset *d, const char *name, bool complete)
{
	char why[512];
	if (!list_is_generated(d, why, sizeof why)) {
		c->refused = true;
		c->left_alone += d->nfiles;
		fs_warn("bench clean: %s/%s was not written by feedscope bench generate (%s): removing none of "
			"the %u files it lists", c->dir, name, why, d->nfiles);
		return;
	}
	for (uint32_t i = 0; i < d->nfiles; i++) {
		remove_file(c, d->files[i].path, d->files[i].size, complete);
		remember_dir(c, d->files[i].path);
	}
}

/* checkpoints/ckpt-r<rank>-<i>.bin, then checkpoints/ when empty. */
static void remove_checkpoints(struct clean *c)
{
	int fd = fs_bench_open_inside(c->dfd, CKPT_DIR, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int rank, i, used = 0;
		if (sscanf(e->d_name, "ckpt-r%d-%d.bin%n", &rank, &i, &used) != 2 || e->d_name[used] ||
		    rank < 0 || i < 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **m = realloc(names, cap * sizeof *m);
			if (!m)
				break;
			names = m;
		}
		char rel[512];
		snprintf(rel, sizeof rel, "%s/%s", CKPT_DIR, e->d_name);
		if ((names[n] = strdup(rel)))
			n++;
	}
	closedir(d);
	for (size_t k = 0; k < n; k++) {
		remove_file(c, names[k], UINT64_MAX, false);
		free(names[k]);
	}
	free(names);
	fs_bench_unlink_inside(c->dfd, CKPT_DIR, true);
}

/* Deepest first, so a parent goes after its children; a directory that
 * still holds something (a user's file) stays. */
static int by_depth_desc(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t dx = 0, dy = 0;
	for (; *x; x++)
		dx += *x == '/';
	for (; *y; y++)
		dy += *y == '/';
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* Load DIR's name, if there. 1 loaded, 0 absent, -1 malformed (why). */
static int load_if_there(const char *dir, const char *name, struct fs_dataset *d, char *why, size_t whylen)
{
	if (fs_dataset_load_file(dir, name, d, why, whylen) == 0)
		return 1;
	return errno == ENOENT ? 0 : -1;
}

static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* 0 done, 1 failed (why), 2 refused (why). */
static int clean_dir(const char *dir, char *why, size_t whylen)
{
	struct stat st;
	why[0] = 0;
	if (stat(dir, &st) < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is not a directory", dir);
		return 2;
	}
	bool created = false;
	if (!fs_bench_has_marker(dir, &created)) {
		snprintf(why, whylen, "%s was not made by feedscope (no %s in it): refusing to remove anything",
			 dir, FS_DATASET_MARKER);
		return 2;
	}
	struct fs_dataset man = {0}, part = {0};
	int has_man = load_if_there(dir, FS_DATASET_MANIFEST, &man, why, whylen);
	int has_part = has_man < 0 ? 0 : load_if_there(dir, FS_DATASET_PARTIAL, &part, why, whylen);
	if (has_man < 0 || has_part < 0) {
		fs_dataset_free(&man);
		fs_dataset_free(&part);
		size_t n = strlen(why);
		snprintf(why + n, whylen - n, ": removing nothing (what it lists is unknown)");
		return 1;
	}
	struct clean c = {.dir = dir, .dfd = fs_bench_dir_open(dir), .uid = geteuid()};
	if (c.dfd >= 0 && fstatat(c.dfd, FS_DATASET_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0)
		c.marker_mtime = st.st_mtim;
	if (c.dfd < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		fs_dataset_free(&man);
		fs_dataset_free(&part);
		return 1;
	}
	if (has_man)
		remove_listed(&c, &man, FS_DATASET_MANIFEST, true);
	if (has_part)
		remove_listed(&c, &part, FS_DATASET_PARTIAL, false);
	fs_dataset_free(&man);
	fs_dataset_free(&part);
	remove_checkpoints(&c);
	qsort(c.dirs, c.ndirs, sizeof *c.dirs, by_depth_desc);
	for (size_t i = 0; i < c.ndirs; i++) {
		fs_bench_unlink_inside(c.dfd, c.dirs[i], true);
		free(c.dirs[i]);
	}
	free(c.dirs);
	static const char *const ours[] = {FS_DATASET_TMP, FS_DATASET_PARTIAL, FS_DATASET_MANIFEST,
					   FS_DATASET_MARKER, NULL};
	for (int i = 0; ours[i] && !c.refused; i++) /* a refused list stays, to be looked at */
		if (fs_bench_unlink_inside(c.dfd, ours[i], false) < 0 && errno != ENOENT)
			fs_warn("bench clean: left %s/%s alone: %s", dir, ours[i], strerror(errno));
	close(c.dfd);

	char b[32];
	int left = dir_entries(dir);
	bool removed_dir = created && left == 0 && rmdir(dir) == 0;
	printf("removed %" PRIu64 " files (%s) from %s", c.files, fs_fmt_bytes(b, sizeof b, (double)c.bytes), dir);
	if (removed_dir)
		printf(", and %s itself\n", dir);
	else if (c.refused)
		printf("; kept %s, its lists and their files: a list was not the generator's\n", dir);
	else if (left > 0)
		printf("; kept %s: %d entries in it were not made by feedscope\n", dir, left);
	else
		printf("; kept %s (feedscope did not create it)\n", dir);
	if (c.left_alone)
		snprintf(why, whylen, "%" PRIu64 " listed files were left alone (see above)",
			 c.left_alone);
	return c.left_alone ? 1 : 0;
}

static const char clean_usage[] =
	"usage: feedscope bench clean --dir D\n"
	"\n"
	"Remove what feedscope bench made in D (its dataset, plan, checkpoints and marker), and D\n"
	"itself when feedscope created it and nothing else is left in it. Refuses a directory\n"
	"without feedscope's marker (D/.feedscope-bench).\n";

static const struct option clean_opts[] = {
	{"dir", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
};

int fs_bench_clean_main(int argc, char **argv)
{
	const char *dir = NULL;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", clean_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(clean_usage, stdout);
			return 0;
		case 'd':
			dir = optarg;
			break;
		default:
			return fs_bad_option("bench clean", opt, argv);
		}
	}
	if (optind < argc)
		return fs_usage_error("bench clean: unexpected argument '%s'", argv[optind]);
	if (!dir || !*dir)
		return fs_usage_error("bench clean: --dir D is required");
	char why[1024];
	int rc = clean_dir(dir, why, sizeof why);
	if (rc == 2)
		return fs_usage_error("bench clean: %s", why);
	if (rc == 1 && why[0])
		fs_error("bench clean: %s", why);
	return rc;
}
