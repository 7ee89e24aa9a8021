/* safety.c - where the benchmark may write (safety.h). */
#include "bench/host/safety.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "util/fmt.h"
#include "util/safefile.h"

#define MARKER_HEAD "feedscope-bench 1\n"

static const char *kind_of(mode_t m)
{
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISREG(m))
		return "a regular file";
	return "not a directory";
}

/* The parent of path ("." when it has no slash, "/" for "/x"). */
static void parent_of(const char *path, char *out, size_t cap)
{
	snprintf(out, cap, "%s", path);
	size_t n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = 0;
	char *slash = strrchr(out, '/');
	if (!slash)
		snprintf(out, cap, ".");
	else if (slash == out)
		out[1] = 0;
	else
		*slash = 0;
}

bool fs_bench_has_marker(const char *dir, bool *created)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return false;
	struct stat st;
	bool ok = fstatat(dfd, FS_DATASET_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (ok && created) {
		*created = false;
		int fd = openat(dfd, FS_DATASET_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		char buf[256];
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (n > 0) {
			buf[n] = 0;
			*created = strstr(buf, "\ncreated_dir yes\n") != NULL;
		}
		if (fd >= 0)
			close(fd);
	}
	close(dfd);
	return ok;
}

int fs_bench_dir_check(const char *dir, char *why, size_t whylen)
{
	struct stat st;
	if (!dir || !*dir) {
		snprintf(why, whylen, "no directory given");
		return FS_SAFETY_REFUSED;
	}
	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT) {
			snprintf(why, whylen, "%s: %s", dir, strerror(errno));
			return FS_SAFETY_REFUSED;
		}
		char parent[PATH_MAX];
		parent_of(dir, parent, sizeof parent);
		if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "%s: its parent %s is not an existing directory "
				 "(feedscope creates the last component only)", dir, parent);
			return FS_SAFETY_REFUSED;
		}
		return FS_SAFETY_OK; /* missing: prepare may create it */
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(dir, &st) < 0) {
			snprintf(why, whylen, "%s: a symlink to nothing (%s)", dir, strerror(errno));
			return FS_SAFETY_REFUSED;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "%s is a symlink to %s: feedscope writes its files "
				 "into a directory, never to a device or file", dir, kind_of(st.st_mode));
			return FS_SAFETY_REFUSED;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is %s: feedscope writes its files into a directory, "
			 "never to a device or file", dir, kind_of(st.st_mode));
		return FS_SAFETY_REFUSED;
	}
	if (fs_bench_has_marker(dir, NULL))
		return FS_SAFETY_OK;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		bool odd = fstatat(dfd, FS_DATASET_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0;
		close(dfd);
		if (odd) {
			snprintf(why, whylen, "%s/%s is not a regular file: refusing to use %s",
				 dir, FS_DATASET_MARKER, dir);
			return FS_SAFETY_REFUSED;
		}
	}
	int empty = fs_safefile_dir_empty(dir);
	if (empty < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return FS_SAFETY_REFUSED;
	}
	if (!empty) {
		snprintf(why, whylen, "%s is not empty and feedscope did not make it (no %s in it): "
			 "give a new or empty directory", dir, FS_DATASET_MARKER);
		return FS_SAFETY_REFUSED;
	}
	return FS_SAFETY_OK;
}

static int write_marker(const char *dir, bool created, char *why, size_t whylen)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd < 0 ? -1 : openat(dfd, FS_DATASET_MARKER,
				      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int err = errno;
	if (dfd >= 0)
		close(dfd);
	if (fd < 0) {
		snprintf(why, whylen, "%s/%s: %s", dir, FS_DATASET_MARKER, strerror(err));
		return -1;
	}
	char text[200];
	int n = snprintf(text, sizeof text, "%screated_dir %s\n"
			 "# made by feedscope bench; `feedscope bench clean --dir DIR` removes what it made\n",
			 MARKER_HEAD, created ? "yes" : "no");
	bool ok = write(fd, text, (size_t)n) == n;
	err = errno;
	close(fd);
	if (!ok) {
		snprintf(why, whylen, "%s/%s: %s", dir, FS_DATASET_MARKER, strerror(err));
		return -1;
	}
	return 0;
}

int fs_bench_dir_prepare(const char *dir, bool create, char *why, size_t whylen)
{
	int rc = fs_bench_dir_check(dir, why, whylen);
	if (rc != FS_SAFETY_OK)
		return rc;
	struct stat st;
	bool created = false;
	if (stat(dir, &st) < 0) {
		if (!create) {
			snprintf(why, whylen, "%s: no such directory", dir);
			return FS_SAFETY_REFUSED;
		}
		if (mkdir(dir, 0755) < 0) {
			snprintf(why, whylen, "cannot create %s: %s", dir, strerror(errno));
			return errno == EEXIST ? FS_SAFETY_REFUSED : FS_SAFETY_FAILED;
		}
		created = true;
	} else if (fs_bench_has_marker(dir, NULL)) {
		return FS_SAFETY_OK;
	}
	if (write_marker(dir, created, why, whylen) < 0) {
		if (created)
			rmdir(dir);
		return FS_SAFETY_FAILED;
	}
	return FS_SAFETY_OK;
}

/* The free space fs_bench_space_check allows to write under dir (what is
 * available less 5% of the file system, over 1.05): *room; 0, or -1 with
 * why. *avail and *keep for its message. */
static int space_room(const char *dir, uint64_t *room, uint64_t *avail, uint64_t *keep, char *path, size_t cap,
		      char *why, size_t whylen)
{
	snprintf(path, cap, "%s", dir);
	struct stat st;
	while (stat(path, &st) < 0) {
		char up[PATH_MAX];
		parent_of(path, up, sizeof up);
		if (!strcmp(up, path))
			break;
		memcpy(path, up, strlen(up) + 1);
	}
	struct statvfs vfs;
	if (statvfs(path, &vfs) < 0) {
		snprintf(why, whylen, "%s: cannot tell its free space: %s", path, strerror(errno));
		return -1;
	}
	uint64_t frsize = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
	*avail = (uint64_t)vfs.f_bavail * frsize;
	*keep = (uint64_t)vfs.f_blocks * frsize / 20;
	*room = *avail > *keep ? (uint64_t)((double)(*avail - *keep) / 1.05) : 0;
	return 0;
}

int fs_bench_ckpt_space_check(const char *dir, uint64_t ckpt_bytes, uint64_t extra_bytes, double scale,
			      const char *from_keys, char *why, size_t whylen)
{
	uint64_t total;
	if (__builtin_add_overflow(ckpt_bytes, extra_bytes, &total))
		total = UINT64_MAX;
	char inner[400];
	if (fs_bench_space_check(dir, total, inner, sizeof inner) == 0)
		return 0;
	uint64_t room = 0, avail, keep;
	char path[PATH_MAX], b[32], d[32], fit[64] = "", data[80] = "";
	if (space_room(dir, &room, &avail, &keep, path, sizeof path, why, whylen) == 0 && room > extra_bytes &&
	    ckpt_bytes > 0) {
		/* the largest scale, to one significant digit, whose checkpoint fits */
		double s = scale * (double)(room - extra_bytes) / (double)ckpt_bytes;
		double p = pow(10, floor(log10(s)));
		if (s > 0 && floor(s / p) * p < scale)
			snprintf(fit, sizeof fit, "; --scale %g or less fits it", floor(s / p) * p);
	}
	if (extra_bytes)
		snprintf(data, sizeof data, " beside the dataset to be generated (%s)",
			 fs_fmt_bytes(d, sizeof d, (double)extra_bytes));
	snprintf(why, whylen, "the checkpoint, %s (%s, at --scale %g), cannot be written in --dir%s: %s%s",
		 fs_fmt_bytes(b, sizeof b, (double)ckpt_bytes), from_keys && *from_keys ? from_keys : "the model's size",
		 scale, data, inner, fit);
	return -1;
}

int fs_bench_space_check(const char *dir, uint64_t bytes, char *why, size_t whylen)
{
	if (bytes == 0)
		return 0;
	char path[PATH_MAX];
	uint64_t room, avail, keep, need;
	if (space_room(dir, &room, &avail, &keep, path, sizeof path, why, whylen) < 0)
		return -1;
	if (__builtin_add_overflow(bytes, bytes / 20, &need))
		need = UINT64_MAX; /* never wraps to a small number */
	if (avail >= need && avail - need >= keep)
		return 0;
	char b1[32], b2[32], b3[32], b4[32];
	snprintf(why, whylen, "not enough space for %s on the file system of %s: it needs %s "
		 "(+5%%) and keeps 5%% (%s) of the file system free, but %s is available",
		 fs_fmt_bytes(b1, sizeof b1, (double)bytes), path,
		 fs_fmt_bytes(b2, sizeof b2, (double)need), fs_fmt_bytes(b3, sizeof b3, (double)keep),
		 fs_fmt_bytes(b4, sizeof b4, (double)avail));
	return -1;
}

/* Splits rel into its components (in buf), skipping "" and "."; false on
 * "..", an empty result or too many components. */
static bool split_rel(const char *rel, char *buf, size_t cap, char **comp, int maxc, int *n)
{
	if (snprintf(buf, cap, "%s", rel) >= (int)cap)
		return false;
	*n = 0;
	for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..") || *n == maxc)
			return false;
		comp[(*n)++] = c;
	}
	return *n > 0;
}

#define MAX_COMPONENTS 64

/* path relative to dir: the part after "dir/" when path is absolute. */
static const char *relative_part(const char *dir, const char *path)
{
	if (path[0] != '/')
		return path;
	char real[PATH_MAX];
	const char *bases[2] = {dir, realpath(dir, real)};
	for (int i = 0; i < 2; i++) {
		if (!bases[i])
			continue;
		size_t n = strlen(bases[i]);
		while (n > 1 && bases[i][n - 1] == '/')
			n--;
		if (n == 1 && bases[i][0] == '/')
			return path + 1;
		if (!strncmp(path, bases[i], n) && path[n] == '/')
			return path + n + 1;
	}
	return NULL;
}

bool fs_bench_path_inside(const char *dir, const char *path)
{
	if (!dir || !path)
		return false;
	const char *rel = relative_part(dir, path);
	char buf[PATH_MAX], *comp[MAX_COMPONENTS];
	int n;
	if (!rel || !split_rel(rel, buf, sizeof buf, comp, MAX_COMPONENTS, &n))
		return false;
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	dev_t dev = st.st_dev;
	char cur[PATH_MAX];
	size_t len = (size_t)snprintf(cur, sizeof cur, "%s", dir);
	for (int i = 0; i < n; i++) {
		int w = snprintf(cur + len, sizeof cur - len, "/%s", comp[i]);
		if (w < 0 || (size_t)w >= sizeof cur - len)
			return false;
		len += (size_t)w;
		if (lstat(cur, &st) < 0)
			return errno == ENOENT;
		if (S_ISLNK(st.st_mode) || st.st_dev != dev)
			return false;
		if (i < n - 1 && !S_ISDIR(st.st_mode))
			return false;
	}
	return true;
}

int fs_bench_dir_open(const char *dir)
{
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Without openat2: one component at a time, never following a symlink, never
 * crossing into another file system. */
static int open_walk(int dirfd, const char *rel, int flags, mode_t mode)
{
	char buf[PATH_MAX], *comp[MAX_COMPONENTS];
	int n;
	if (!split_rel(rel, buf, sizeof buf, comp, MAX_COMPONENTS, &n)) {
		errno = EXDEV;
		return -1;
	}
	struct stat st0, st;
	if (fstat(dirfd, &st0) < 0)
		return -1;
	int fd = dup(dirfd);
	for (int i = 0; fd >= 0 && i < n - 1; i++) {
		int next = openat(fd, comp[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		close(fd);
		fd = next;
		errno = err;
		if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != st0.st_dev)) {
			close(fd);
			fd = -1;
			errno = EXDEV;
		}
	}
	if (fd < 0)
		return -1;
	int out = openat(fd, comp[n - 1], flags | O_NOFOLLOW | O_CLOEXEC, mode);
	int err = errno;
	close(fd);
	if (out >= 0 && (fstat(out, &st) < 0 || st.st_dev != st0.st_dev)) {
		close(out);
		out = -1;
		err = EXDEV;
	}
	errno = err;
	return out;
}

int fs_bench_open_inside(int dirfd, const char *rel, int flags, mode_t mode)
{
	if (!rel || rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
	};
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
	if (fd >= 0 || errno != ENOSYS)
		return (int)fd;
	return open_walk(dirfd, rel, flags, mode);
}

int fs_bench_open_read(int dirfd, const char *dir, const char *rel, bool direct,
		       const volatile sig_atomic_t *stop, char *why, size_t whylen)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (direct ? O_DIRECT : 0);
	int fd;
	do
		fd = fs_bench_open_inside(dirfd, rel, flags, 0);
	while (fd < 0 && errno == EINTR && !(stop && *stop));
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			snprintf(why, whylen, "%s/%s: a symlink in the dataset (never followed): refusing to read it",
				 dir, rel);
		else if (e == EXDEV)
			snprintf(why, whylen, "%s/%s: the path leaves %s (another file system or '..'): refusing "
				 "to read it", dir, rel, dir);
		else if (direct && e == EINVAL)
			snprintf(why, whylen, "%s/%s: the file system does not support O_DIRECT", dir, rel);
		else
			snprintf(why, whylen, "%s/%s: %s", dir, rel, strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		snprintf(why, whylen, "%s/%s: %s", dir, rel, strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s/%s is %s, not a regular file: refusing to read it", dir, rel,
			 S_ISDIR(st.st_mode) ? "a directory" : kind_of(st.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* The directory holding rel's last component, opened below dirfd; *last
 * points into buf. */
static int open_parent(int dirfd, const char *rel, char *buf, size_t cap, const char **last)
{
	char tmp[PATH_MAX], *comp[MAX_COMPONENTS];
	int n;
	if (!rel || rel[0] == '/' || !split_rel(rel, tmp, sizeof tmp, comp, MAX_COMPONENTS, &n)) {
		errno = EXDEV;
		return -1;
	}
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n - 1; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "/" : "", comp[i]);
	*last = buf + len + 1;
	snprintf(buf + len + 1, cap - len - 1, "%s", comp[n - 1]);
	if (n == 1)
		return fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	return fs_bench_open_inside(dirfd, buf, O_PATH | O_DIRECTORY, 0);
}

int fs_bench_mkdir_inside(int dirfd, const char *rel, mode_t mode)
{
	char buf[2 * PATH_MAX];
	const char *last;
	int pfd = open_parent(dirfd, rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return -1;
	int rc = 1;
	if (mkdirat(pfd, last, mode) < 0) {
		struct stat st, st0;
		if (errno == EEXIST && fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode) && fstat(dirfd, &st0) == 0 && st.st_dev == st0.st_dev) {
			rc = 0;
		} else {
			if (errno == EEXIST || errno == 0)
				errno = ENOTDIR;
			rc = -1;
		}
	}
	int err = errno;
	close(pfd);
	errno = err;
	return rc;
}

int fs_bench_unlink_inside(int dirfd, const char *rel, bool dir)
{
	char buf[2 * PATH_MAX];
	const char *last;
	int pfd = open_parent(dirfd, rel, buf, sizeof buf, &last);
	if (pfd < 0)
		return -1;
	struct stat st;
	int rc = fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW);
	if (rc == 0) {
		if (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
			rc = unlinkat(pfd, last, dir ? AT_REMOVEDIR : 0);
		else {
			errno = EPERM;
			rc = -1;
		}
	}
	int err = errno;
	close(pfd);
	errno = err;
	return rc;
}
