#include "treesync.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_file(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY);
	if (in < 0)
		return -1;
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	close(out);
	return rc;
}

static int remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d)
			return -1;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char sub[PATH_MAX];
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			remove_tree(sub);
		}
		closedir(d);
		return rmdir(path);
	}
	return unlink(path);
}

static int sync_dir(const char *src, const char *dst)
{
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "treesync: mkdir %s: %s\n", dst, strerror(errno));
		return -1;
	}
	/* Remove what src lacks, or what changed kind. */
	DIR *d = opendir(dst);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char s[PATH_MAX], t[PATH_MAX];
		snprintf(s, sizeof s, "%s/%s", src, e->d_name);
		snprintf(t, sizeof t, "%s/%s", dst, e->d_name);
		struct stat ss, ts;
		if (lstat(s, &ss) < 0 || lstat(t, &ts) < 0 ||
		    (ss.st_mode & S_IFMT) != (ts.st_mode & S_IFMT) || S_ISLNK(ss.st_mode))
			remove_tree(t);
	}
	closedir(d);
	d = opendir(src);
	if (!d) {
		fprintf(stderr, "treesync: %s: %s\n", src, strerror(errno));
		return -1;
	}
	int rc = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char s[PATH_MAX], t[PATH_MAX];
		snprintf(s, sizeof s, "%s/%s", src, e->d_name);
		snprintf(t, sizeof t, "%s/%s", dst, e->d_name);
		struct stat ss;
		if (lstat(s, &ss) < 0)
			continue;
		if (S_ISDIR(ss.st_mode)) {
			rc |= sync_dir(s, t);
		} else if (S_ISLNK(ss.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(s, target, sizeof target - 1);
			if (n < 0)
				continue;
			target[n] = '\0';
			if (symlink(target, t) < 0)
				rc = -1;
		} else if (copy_file(s, t) < 0) {
			fprintf(stderr, "treesync: %s -> %s: %s\n", s, t, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int treesync(const char *src, const char *dst)
{
	return sync_dir(src, dst);
}
