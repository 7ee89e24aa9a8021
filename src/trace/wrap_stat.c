/* wrap_stat.c - metadata on paths and descriptors: the stat family (the
 * glibc >= 2.33 symbols, statx, and the older __xstat ABI), access,
 * faccessat, and directory listings (opendir/fdopendir/readdir/closedir).
 *
 * A stat-like call (access and faccessat included) counts one `stats` on
 * the path's record when it succeeds (a new record if the path had none);
 * a failed one adds its time and a metadata op to record 0. A listing counts one open (opendir)
 * and one metadata op per call (opendir, each readdir, closedir) on the
 * directory's record.
 */
#include <errno.h>
#include <fcntl.h>

#include "trace/count.h"

static int path_done(int dirfd, const char *path, int r, uint64_t t0, uint64_t t1)
{
	int saved = errno;
	int rec = r == 0 ? fs_file_at(dirfd, path) : 0;
	fs_count_meta(rec, FS_TRACE_CLASS_FILE, FS_TRACE_OP_STAT, FS_M_STATS, r == 0, t0, t1, -1, r, FS_POSIX);
	errno = saved;
	return r;
}

/* mode: the st_mode the call returned (have_mode: it returned one), from
 * which a pending class is learnt for free */
static int fd_done(struct fs_fd *e, int fd, int r, uint64_t t0, uint64_t t1, mode_t mode, int have_mode)
{
	if (r == 0 && have_mode)
		fs_fd_learn_class(e, fd, mode, 1);
	int rec = fs_fd_rec(e, fd);
	if (rec >= 0)
		fs_count_meta(rec, fs_fd_cls(e), FS_TRACE_OP_STAT, FS_M_STATS, r == 0, t0, t1, -1, r, FS_POSIX);
	return r;
}

/* name(path, buf) */
#define WRAP_PSTAT(name, buftype) \
	FS_EXPORT int name(const char *path, buftype *buf) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(path, buf); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(path, buf); \
		uint64_t t1 = fs_now(); \
		return path_done(AT_FDCWD, path, r, t0, t1); \
	}
WRAP_PSTAT(stat, struct stat)
WRAP_PSTAT(stat64, struct stat64)
WRAP_PSTAT(lstat, struct stat)
WRAP_PSTAT(lstat64, struct stat64)

/* name(fd, buf) */
#define WRAP_FSTAT(name, buftype) \
	FS_EXPORT int name(int fd, buftype *buf) \
	{ \
		struct fs_fd *e = fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(fd, buf); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(fd, buf); \
		uint64_t t1 = fs_now(); \
		return fd_done(e, fd, r, t0, t1, r == 0 ? buf->st_mode : 0, r == 0); \
	}
WRAP_FSTAT(fstat, struct stat)
WRAP_FSTAT(fstat64, struct stat64)

/* The *at forms: an empty path with AT_EMPTY_PATH is the dirfd itself. */
static int at_stat_done(int dirfd, const char *path, int flags, int r, uint64_t t0, uint64_t t1)
{
	const char *p = fs_launder(path);
	if (p && !p[0] && (flags & AT_EMPTY_PATH)) {
		struct fs_fd *e = fs_fd_get(dirfd);
		return e ? fd_done(e, dirfd, r, t0, t1, 0, 0) : r;
	}
	return path_done(dirfd, path, r, t0, t1);
}

#define WRAP_FSTATAT(name, buftype) \
	FS_EXPORT int name(int dirfd, const char *path, buftype *buf, int flags) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(dirfd, path, buf, flags); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(dirfd, path, buf, flags); \
		uint64_t t1 = fs_now(); \
		return at_stat_done(dirfd, path, flags, r, t0, t1); \
	}
WRAP_FSTATAT(fstatat, struct stat)
WRAP_FSTATAT(fstatat64, struct stat64)

FS_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)
{
	if (!fs_on())
		return FS_REAL(statx)(dirfd, path, flags, mask, buf);
	uint64_t t0 = fs_now();
	int r = fs_real.statx(dirfd, path, flags, mask, buf);
	uint64_t t1 = fs_now();
	return at_stat_done(dirfd, path, flags, r, t0, t1);
}

/* The stat ABI before glibc 2.33, still called by programs built then. */
#define WRAP_XSTAT(name, buftype) \
	FS_EXPORT int name(int ver, const char *path, buftype *buf) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(ver, path, buf); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(ver, path, buf); \
		uint64_t t1 = fs_now(); \
		return path_done(AT_FDCWD, path, r, t0, t1); \
	}
WRAP_XSTAT(__xstat, struct stat)
WRAP_XSTAT(__xstat64, struct stat64)
WRAP_XSTAT(__lxstat, struct stat)
WRAP_XSTAT(__lxstat64, struct stat64)

#define WRAP_FXSTAT(name, buftype) \
	FS_EXPORT int name(int ver, int fd, buftype *buf) \
	{ \
		struct fs_fd *e = fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(ver, fd, buf); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(ver, fd, buf); \
		uint64_t t1 = fs_now(); \
		return fd_done(e, fd, r, t0, t1, r == 0 ? buf->st_mode : 0, r == 0); \
	}
WRAP_FXSTAT(__fxstat, struct stat)
WRAP_FXSTAT(__fxstat64, struct stat64)

#define WRAP_FXSTATAT(name, buftype) \
	FS_EXPORT int name(int ver, int dirfd, const char *path, buftype *buf, int flags) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(ver, dirfd, path, buf, flags); \
		uint64_t t0 = fs_now(); \
		int r = fs_real.name(ver, dirfd, path, buf, flags); \
		uint64_t t1 = fs_now(); \
		return at_stat_done(dirfd, path, flags, r, t0, t1); \
	}
WRAP_FXSTATAT(__fxstatat, struct stat)
WRAP_FXSTATAT(__fxstatat64, struct stat64)

FS_EXPORT int access(const char *path, int mode)
{
	if (!fs_on())
		return FS_REAL(access)(path, mode);
	uint64_t t0 = fs_now();
	int r = fs_real.access(path, mode);
	uint64_t t1 = fs_now();
	return path_done(AT_FDCWD, path, r, t0, t1);
}

FS_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	if (!fs_on())
		return FS_REAL(faccessat)(dirfd, path, mode, flags);
	uint64_t t0 = fs_now();
	int r = fs_real.faccessat(dirfd, path, mode, flags);
	uint64_t t1 = fs_now();
	return at_stat_done(dirfd, path, flags, r, t0, t1);
}

/* Directory listings. A DIR's descriptor (dirfd) names its record. */
FS_EXPORT DIR *opendir(const char *path)
{
	if (!fs_on())
		return FS_REAL(opendir)(path);
	uint64_t t0 = fs_now();
	DIR *d = fs_real.opendir(path);
	uint64_t t1 = fs_now();
	int saved = errno;
	int rec = 0;
	if (d) {
		rec = fs_file_at(AT_FDCWD, path);
		fs_fd_set(dirfd(d), (uint32_t)rec + FS_FD_REC, FS_FD_CLASS(FS_TRACE_CLASS_FILE), 0);
	}
	fs_count_meta(rec, FS_TRACE_CLASS_FILE, FS_TRACE_OP_OPEN, FS_M_OPENS, d != NULL, t0, t1, -1, d ? 0 : -1, FS_POSIX);
	errno = saved;
	return d;
}

FS_EXPORT DIR *fdopendir(int fd)
{
	struct fs_fd *e = fs_fd_get(fd);
	if (!e)
		return FS_REAL(fdopendir)(fd);
	uint64_t t0 = fs_now();
	DIR *d = fs_real.fdopendir(fd);
	uint64_t t1 = fs_now();
	int rec = fs_fd_rec(e, fd);
	if (rec >= 0)
		fs_count_meta(rec, fs_fd_cls(e), FS_TRACE_OP_OTHER, FS_M_NONE, d != NULL, t0, t1, -1, d ? 0 : -1, FS_POSIX);
	return d;
}

#define WRAP_READDIR(name, enttype) \
	FS_EXPORT enttype *name(DIR *d) \
	{ \
		int fd = fs_launder(d) ? dirfd(d) : -1; \
		struct fs_fd *e = fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(d); \
		uint64_t t0 = fs_now(); \
		enttype *r = fs_real.name(d); \
		uint64_t t1 = fs_now(); \
		int rec = fs_fd_rec(e, fd); \
		if (rec >= 0) \
			fs_count_meta(rec, fs_fd_cls(e), FS_TRACE_OP_OTHER, FS_M_NONE, 1, t0, t1, -1, r ? 1 : 0, \
				      FS_POSIX); \
		return r; \
	}
WRAP_READDIR(readdir, struct dirent)
WRAP_READDIR(readdir64, struct dirent64)

FS_EXPORT int closedir(DIR *d)
{
	int fd = fs_launder(d) ? dirfd(d) : -1;
	struct fs_fd *e = fs_fd_get(fd);
	if (!e) {
		if (fd >= 0 && fs_on())
			fs_fd_forget(fd);
		return FS_REAL(closedir)(d);
	}
	uint32_t raw = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	int cls = fs_fd_cls(e);
	fs_fd_forget(fd);
	uint64_t t0 = fs_now();
	int r = fs_real.closedir(d);
	uint64_t t1 = fs_now();
	if (raw >= FS_FD_REC)
		fs_count_meta((int)(raw - FS_FD_REC), cls, FS_TRACE_OP_CLOSE, FS_M_NONE, r == 0, t0, t1, -1, r,
			      FS_POSIX);
	return r;
}
