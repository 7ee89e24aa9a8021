/* wrap_open.c - descriptors: the open family, close, dup, fcntl.
 *
 * A successful open names the descriptor's file record (created if new)
 * and counts one open; a failed one counts its time and a metadata op on
 * record 0 (the path is not looked at: a path that does not exist gets no
 * record). A new descriptor's class (file, FIFO, device) is learnt later:
 * from the job's own fstat of it, else from one fstat at its first data
 * call (trace.h: FS_FD_CLASS_PENDING). close, dup and fcntl(F_DUPFD*) keep the fd table right; close
 * also counts as a metadata op (a socket's or a pipe's in its class only).
 */
#include <errno.h>
#include <fcntl.h>

#include "trace/count.h"

#ifndef __OPEN_NEEDS_MODE
#define __OPEN_NEEDS_MODE(flags) (((flags) & O_CREAT) != 0)
#endif

#define OPEN_MODE(flags) \
	mode_t mode = 0; \
	if (__OPEN_NEEDS_MODE(flags)) { \
		va_list ap; \
		va_start(ap, flags); \
		mode = (mode_t)va_arg(ap, int); \
		va_end(ap); \
	}

static int opened(int dirfd, const char *path, int flags, int fd, uint64_t t0, uint64_t t1)
{
	int saved = errno;
	int rec = 0;
	if (fd >= 0) {
		rec = fs_file_at(dirfd, path);
		/* a FIFO or a device can be opened by path: its class is learnt
		 * later (FS_FD_CLASS_PENDING), so an open costs no fstat */
		fs_fd_set(fd, (uint32_t)rec + FS_FD_REC,
			  ((flags & O_APPEND) ? FS_FD_APPEND : 0) | FS_FD_CLASS(FS_FD_CLASS_PENDING), 0);
	}
	/* the open itself is a call on a path: class FILE */
	fs_count_meta(rec, FS_TRACE_CLASS_FILE, FS_TRACE_OP_OPEN, FS_M_OPENS, fd >= 0, t0, t1, -1, fd, FS_POSIX);
	errno = saved;
	return fd;
}

/* name(path, flags[, mode]) */
#define WRAP_OPEN(name) \
	FS_EXPORT int name(const char *path, int flags, ...) \
	{ \
		OPEN_MODE(flags) \
		if (!fs_on()) \
			return FS_REAL(name)(path, flags, mode); \
		uint64_t t0 = fs_now(); \
		int fd = fs_real.name(path, flags, mode); \
		uint64_t t1 = fs_now(); \
		return opened(AT_FDCWD, path, flags, fd, t0, t1); \
	}
WRAP_OPEN(open)
WRAP_OPEN(open64)

/* name(dirfd, path, flags[, mode]) */
#define WRAP_OPENAT(name) \
	FS_EXPORT int name(int dirfd, const char *path, int flags, ...) \
	{ \
		OPEN_MODE(flags) \
		if (!fs_on()) \
			return FS_REAL(name)(dirfd, path, flags, mode); \
		uint64_t t0 = fs_now(); \
		int fd = fs_real.name(dirfd, path, flags, mode); \
		uint64_t t1 = fs_now(); \
		return opened(dirfd, path, flags, fd, t0, t1); \
	}
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

/* the fortified entry points (_FORTIFY_SOURCE): no mode argument */
#define WRAP_OPEN2(name) \
	FS_EXPORT int name(const char *path, int flags) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(path, flags); \
		uint64_t t0 = fs_now(); \
		int fd = fs_real.name(path, flags); \
		uint64_t t1 = fs_now(); \
		return opened(AT_FDCWD, path, flags, fd, t0, t1); \
	}
WRAP_OPEN2(__open_2)
WRAP_OPEN2(__open64_2)

#define WRAP_OPENAT2(name) \
	FS_EXPORT int name(int dirfd, const char *path, int flags) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(dirfd, path, flags); \
		uint64_t t0 = fs_now(); \
		int fd = fs_real.name(dirfd, path, flags); \
		uint64_t t1 = fs_now(); \
		return opened(dirfd, path, flags, fd, t0, t1); \
	}
WRAP_OPENAT2(__openat_2)
WRAP_OPENAT2(__openat64_2)

#define WRAP_CREAT(name) \
	FS_EXPORT int name(const char *path, mode_t mode) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(path, mode); \
		uint64_t t0 = fs_now(); \
		int fd = fs_real.name(path, mode); \
		uint64_t t1 = fs_now(); \
		return opened(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, fd, t0, t1); \
	}
WRAP_CREAT(creat)
WRAP_CREAT(creat64)

FS_EXPORT int close(int fd)
{
	struct fs_fd *e = fs_on() ? fs_fd_entry(fd) : NULL;
	if (!e)
		return FS_REAL(close)(fd);
	uint32_t rec = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	int cls = fs_fd_cls(e);
	/* forget first: the number is free for another thread's open as soon
	 * as the kernel has closed it */
	fs_fd_forget(fd);
	if (rec == FS_FD_UNKNOWN)
		return fs_real.close(fd);
	uint64_t t0 = fs_now();
	int r = fs_real.close(fd);
	uint64_t t1 = fs_now();
	int saved = errno;
	if (rec == FS_FD_IGNORED) /* a socket, a pipe...: its class only */
		fs_count_class(cls, FS_TRACE_OP_CLOSE, r, t0, t1, 0);
	else
		fs_count_meta((int)(rec - FS_FD_REC), cls, FS_TRACE_OP_CLOSE, FS_M_NONE, r == 0, t0, t1, -1, r,
			      FS_POSIX);
	errno = saved;
	return r;
}

FS_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (fs_on() && !(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		fs_fd_forget_range(first, last);
	return FS_REAL(close_range)(first, last, flags);
}

FS_EXPORT void closefrom(int lowfd)
{
	if (fs_on() && lowfd >= 0)
		fs_fd_forget_range((unsigned)lowfd, ~0u);
	FS_REAL(closefrom)(lowfd);
}

FS_EXPORT int dup(int fd)
{
	int r = FS_REAL(dup)(fd);
	if (r >= 0 && fs_on())
		fs_fd_copy(fd, r);
	return r;
}

FS_EXPORT int dup2(int fd, int to)
{
	int r = FS_REAL(dup2)(fd, to);
	if (r >= 0 && r != fd && fs_on())
		fs_fd_copy(fd, r);
	return r;
}

FS_EXPORT int dup3(int fd, int to, int flags)
{
	int r = FS_REAL(dup3)(fd, to, flags);
	if (r >= 0 && fs_on())
		fs_fd_copy(fd, r);
	return r;
}

static void fcntl_done(int fd, int cmd, void *arg, int r)
{
	if (r < 0 || !fs_on())
		return;
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
		fs_fd_copy(fd, r);
	} else if (cmd == F_SETFL) {
		struct fs_fd *e = fs_fd_entry(fd);
		if (e)
			__atomic_store_n(&e->flags, (((intptr_t)arg & O_APPEND) ? FS_FD_APPEND : 0u) |
							    (__atomic_load_n(&e->flags, __ATOMIC_RELAXED) & ~FS_FD_APPEND),
					 __ATOMIC_RELAXED);
	}
}

/* The third argument is forwarded as glibc reads it: one pointer-sized
 * value (an int, a pointer, or nothing the callee will look at). */
#define WRAP_FCNTL(name) \
	FS_EXPORT int name(int fd, int cmd, ...) \
	{ \
		va_list ap; \
		va_start(ap, cmd); \
		void *arg = va_arg(ap, void *); \
		va_end(ap); \
		int r = FS_REAL(name)(fd, cmd, arg); \
		fcntl_done(fd, cmd, arg, r); \
		return r; \
	}
WRAP_FCNTL(fcntl)
WRAP_FCNTL(fcntl64)
