#include "util/safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *fs_safefile_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symbolic link";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

int fs_safefile_parent(const char *path, char *base, size_t cap)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return -1;
	}
	if (strlen(name) >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	char dir[4096];
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else if ((size_t)(slash - path) < sizeof dir)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(base, cap, "%s", name);
	return fd;
}

static int check(const struct stat *st, mode_t type)
{
	if ((st->st_mode & S_IFMT) != type) {
		errno = EINVAL;
		return -1;
	}
	if (st->st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int fs_safefile_mine(int dirfd, const char *name, mode_t type, struct stat *st)
{
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	return check(st, type);
}

int fs_safefile_unlink(int dirfd, const char *name, const struct stat *expect)
{
	struct stat st;
	if (fs_safefile_mine(dirfd, name, S_IFREG, &st) < 0)
		return -1;
	if (expect && (st.st_dev != expect->st_dev || st.st_ino != expect->st_ino)) {
		errno = ESTALE;
		return -1;
	}
	return unlinkat(dirfd, name, 0);
}

/* Remove the caller's regular files in the open directory fd. */
static void empty_dir(int fd)
{
	int rd = dup(fd); /* fdopendir takes it over */
	DIR *d = rd < 0 ? NULL : fdopendir(rd);
	if (!d) {
		if (rd >= 0)
			close(rd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fs_safefile_unlink(fd, e->d_name, NULL);
	}
	closedir(d);
}

int fs_safefile_remove_dir(int dirfd, const char *name)
{
	struct stat before, st;
	if (fs_safefile_mine(dirfd, name, S_IFDIR, &before) < 0)
		return -1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* what was opened is what was checked */
	if (fstat(fd, &st) < 0 || check(&st, S_IFDIR) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	empty_dir(fd);
	close(fd);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

int fs_safefile_dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}
