/* wrap_rw.c - data calls: read/write and their positional, vectored and
 * fortified variants, lseek, fsync, mmap, msync, sendfile, copy_file_range.
 *
 * The fast path of every wrapper: one test (tracer on, this thread not
 * passing through, fd in the table), two clock reads around the real call,
 * then count.c: a file's record and class counters, or only the class
 * counters of a descriptor that is no file (socket, pipe, device...). A read or write counts
 * when it succeeds (bytes = what it returned, 0 at EOF included); a failed
 * one adds its time and a data op only. The offset a call starts at is its
 * argument for pread-like calls, else the fd's offset as tracked here (so
 * no extra system call on the fast path); an O_APPEND write asks the kernel
 * where it ended (one lseek).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>

#include "trace/count.h"

#define AT_FD_OFFSET INT64_MIN /* the call reads or writes at the fd's offset */

/* Count a read-like or write-like call made through fd entry e. Returns 1
 * if the fd is a file (counted in its record and class), 2 if it is not
 * (counted in its class only: socket, pipe...), 0 if it is not open.
 * errno preserved. */
static int rw_done(struct fs_fd *e, int fd, int op, int64_t off, int64_t r, uint64_t asked,
		   uint64_t t0, uint64_t t1, unsigned flags)
{
	uint32_t raw = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	int rec;
	int fresh = 0;
	if (FS_LIKELY(raw >= FS_FD_REC)) {
		rec = (int)(raw - FS_FD_REC);
		fs_fd_settle_class(e, fd);
	} else if (raw == FS_FD_IGNORED) {
		fs_count_nofile(e, fd, op, r, t0, t1, flags);
		return 2;
	} else {
		rec = fs_fd_classify(fd); /* its offset is now the one after this call */
		if (rec < 0) {
			if (__atomic_load_n(&e->rec, __ATOMIC_RELAXED) != FS_FD_IGNORED)
				return 0; /* not open */
			fs_count_nofile(e, fd, op, r, t0, t1, flags);
			return 2;
		}
		fresh = 1;
	}
	if (off == AT_FD_OFFSET) {
		int64_t cur = __atomic_load_n(&e->off, __ATOMIC_RELAXED);
		if (fresh) {
			off = (cur >= 0 && r >= 0 && cur >= r) ? cur - r : -1;
		} else if (op == FS_TRACE_OP_WRITE && (__atomic_load_n(&e->flags, __ATOMIC_RELAXED) & FS_FD_APPEND)) {
			off = -1;
			if (r >= 0) {
				int saved = errno;
				off_t end = fs_real.lseek(fd, 0, SEEK_CUR);
				errno = saved;
				off = end >= r ? end - r : -1;
			}
			flags |= FS_C_ADVANCE;
		} else {
			off = cur;
			flags |= FS_C_ADVANCE;
		}
	}
	fs_count_data(rec, e, op, off, r, asked, t0, t1, flags, FS_POSIX);
	return 1;
}

static uint64_t iov_bytes(const struct iovec *iov, int n, int64_t r)
{
	uint64_t sum = 0;
	if (r < 0 || !fs.ops) /* only the op ring wants it */
		return 0;
	for (int i = 0; i < n; i++)
		sum += iov[i].iov_len;
	return sum;
}

#define TIMED(call) \
	uint64_t t0 = fs_now(); \
	__typeof__(call) r = call; \
	uint64_t t1 = fs_now()

FS_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	struct fs_fd *e = fs_fd_get_any(fd);
	if (!e)
		return FS_REAL(read)(fd, buf, n);
	TIMED(fs_real.read(fd, buf, n));
	rw_done(e, fd, FS_TRACE_OP_READ, AT_FD_OFFSET, r, n, t0, t1, 0);
	return r;
}

FS_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	struct fs_fd *e = fs_fd_get_any(fd);
	if (!e)
		return FS_REAL(__read_chk)(fd, buf, n, buflen);
	TIMED(fs_real.__read_chk(fd, buf, n, buflen));
	rw_done(e, fd, FS_TRACE_OP_READ, AT_FD_OFFSET, r, n, t0, t1, 0);
	return r;
}

FS_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	struct fs_fd *e = fs_fd_get_any(fd);
	if (!e)
		return FS_REAL(write)(fd, buf, n);
	TIMED(fs_real.write(fd, buf, n));
	rw_done(e, fd, FS_TRACE_OP_WRITE, AT_FD_OFFSET, r, n, t0, t1, 0);
	return r;
}

/* name(fd, buf, n, off) */
#define WRAP_PRW(name, op, buftype, offtype) \
	FS_EXPORT ssize_t name(int fd, buftype buf, size_t n, offtype off) \
	{ \
		struct fs_fd *e = fs_fd_get_any(fd); \
		if (!e) \
			return FS_REAL(name)(fd, buf, n, off); \
		TIMED(fs_real.name(fd, buf, n, off)); \
		rw_done(e, fd, op, off < 0 ? -1 : (int64_t)off, r, n, t0, t1, 0); \
		return r; \
	}
WRAP_PRW(pread, FS_TRACE_OP_READ, void *, off_t)
WRAP_PRW(pread64, FS_TRACE_OP_READ, void *, off64_t)
WRAP_PRW(pwrite, FS_TRACE_OP_WRITE, const void *, off_t)
WRAP_PRW(pwrite64, FS_TRACE_OP_WRITE, const void *, off64_t)

#define WRAP_PREAD_CHK(name, offtype) \
	FS_EXPORT ssize_t name(int fd, void *buf, size_t n, offtype off, size_t buflen) \
	{ \
		struct fs_fd *e = fs_fd_get_any(fd); \
		if (!e) \
			return FS_REAL(name)(fd, buf, n, off, buflen); \
		TIMED(fs_real.name(fd, buf, n, off, buflen)); \
		rw_done(e, fd, FS_TRACE_OP_READ, off < 0 ? -1 : (int64_t)off, r, n, t0, t1, 0); \
		return r; \
	}
WRAP_PREAD_CHK(__pread_chk, off_t)
WRAP_PREAD_CHK(__pread64_chk, off64_t)

/* readv, writev */
#define WRAP_RWV(name, op) \
	FS_EXPORT ssize_t name(int fd, const struct iovec *iov, int cnt) \
	{ \
		struct fs_fd *e = fs_fd_get_any(fd); \
		if (!e) \
			return FS_REAL(name)(fd, iov, cnt); \
		TIMED(fs_real.name(fd, iov, cnt)); \
		rw_done(e, fd, op, AT_FD_OFFSET, r, iov_bytes(iov, cnt, r), t0, t1, 0); \
		return r; \
	}
WRAP_RWV(readv, FS_TRACE_OP_READ)
WRAP_RWV(writev, FS_TRACE_OP_WRITE)

/* preadv, pwritev (and 64) */
#define WRAP_PRWV(name, op, offtype) \
	FS_EXPORT ssize_t name(int fd, const struct iovec *iov, int cnt, offtype off) \
	{ \
		struct fs_fd *e = fs_fd_get_any(fd); \
		if (!e) \
			return FS_REAL(name)(fd, iov, cnt, off); \
		TIMED(fs_real.name(fd, iov, cnt, off)); \
		rw_done(e, fd, op, off < 0 ? -1 : (int64_t)off, r, iov_bytes(iov, cnt, r), t0, t1, 0); \
		return r; \
	}
WRAP_PRWV(preadv, FS_TRACE_OP_READ, off_t)
WRAP_PRWV(preadv64, FS_TRACE_OP_READ, off64_t)
WRAP_PRWV(pwritev, FS_TRACE_OP_WRITE, off_t)
WRAP_PRWV(pwritev64, FS_TRACE_OP_WRITE, off64_t)

/* preadv2, pwritev2 (and 64): offset -1 means the fd's offset */
#define WRAP_PRWV2(name, op, offtype) \
	FS_EXPORT ssize_t name(int fd, const struct iovec *iov, int cnt, offtype off, int flags) \
	{ \
		struct fs_fd *e = fs_fd_get_any(fd); \
		if (!e) \
			return FS_REAL(name)(fd, iov, cnt, off, flags); \
		TIMED(fs_real.name(fd, iov, cnt, off, flags)); \
		rw_done(e, fd, op, off == -1 ? AT_FD_OFFSET : off < 0 ? -1 : (int64_t)off, r, \
			iov_bytes(iov, cnt, r), t0, t1, 0); \
		return r; \
	}
WRAP_PRWV2(preadv2, FS_TRACE_OP_READ, off_t)
WRAP_PRWV2(preadv64v2, FS_TRACE_OP_READ, off64_t)
WRAP_PRWV2(pwritev2, FS_TRACE_OP_WRITE, off_t)
WRAP_PRWV2(pwritev64v2, FS_TRACE_OP_WRITE, off64_t)

#define WRAP_LSEEK(name, offtype) \
	FS_EXPORT offtype name(int fd, offtype off, int whence) \
	{ \
		struct fs_fd *e = fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(fd, off, whence); \
		TIMED(fs_real.name(fd, off, whence)); \
		int rec = fs_fd_rec(e, fd); \
		if (rec >= 0) { \
			if (r >= 0) \
				__atomic_store_n(&e->off, (int64_t)r, __ATOMIC_RELAXED); \
			fs_count_meta(rec, fs_fd_cls(e), FS_TRACE_OP_SEEK, FS_M_SEEKS, r >= 0, t0, t1, r, r, \
				      FS_POSIX); \
		} \
		return r; \
	}
WRAP_LSEEK(lseek, off_t)
WRAP_LSEEK(lseek64, off64_t)

#define WRAP_FSYNC(name) \
	FS_EXPORT int name(int fd) \
	{ \
		struct fs_fd *e = fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(fd); \
		TIMED(fs_real.name(fd)); \
		int rec = fs_fd_rec(e, fd); \
		if (rec >= 0) { \
			fs_fd_settle_class(e, fd); \
			fs_count_data(rec, e, FS_TRACE_OP_FSYNC, -1, r, 0, t0, t1, 0, FS_POSIX); \
		} \
		return r; \
	}
WRAP_FSYNC(fsync)
WRAP_FSYNC(fdatasync)

/* msync names a mapping, not a file: the shared writable file mappings
 * made through the mmap wrapper are remembered (the latest FS_MAPS, in a
 * ring; munmap is not intercepted, so an entry lives until a later mapping
 * takes its slot), and msync's time goes to the record of the newest one
 * holding its address, else to record 0. Fields are relaxed atomics: a
 * race between threads mapping at once can only mis-file one msync. */
#define FS_MAPS 64
static struct {
	uintptr_t lo, hi;
	uint32_t rec;
} maps[FS_MAPS];
static uint32_t maps_next;

static void map_note(void *addr, size_t len, int rec)
{
	uint32_t k = __atomic_fetch_add(&maps_next, 1, __ATOMIC_RELAXED) % FS_MAPS;
	__atomic_store_n(&maps[k].lo, (uintptr_t)0, __ATOMIC_RELAXED);
	__atomic_store_n(&maps[k].rec, (uint32_t)rec, __ATOMIC_RELAXED);
	__atomic_store_n(&maps[k].hi, (uintptr_t)addr + len, __ATOMIC_RELAXED);
	__atomic_store_n(&maps[k].lo, (uintptr_t)addr, __ATOMIC_RELEASE);
}

static int map_rec(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	uint32_t next = __atomic_load_n(&maps_next, __ATOMIC_RELAXED);
	uint32_t n = next < FS_MAPS ? next : FS_MAPS;
	for (uint32_t i = 1; i <= n; i++) { /* newest first */
		uint32_t k = (next - i) % FS_MAPS;
		uintptr_t lo = __atomic_load_n(&maps[k].lo, __ATOMIC_ACQUIRE);
		if (lo && a >= lo && a < __atomic_load_n(&maps[k].hi, __ATOMIC_RELAXED))
			return (int)__atomic_load_n(&maps[k].rec, __ATOMIC_RELAXED);
	}
	return 0;
}

void fs_maps_reset(void)
{
	for (int k = 0; k < FS_MAPS; k++)
		__atomic_store_n(&maps[k].lo, (uintptr_t)0, __ATOMIC_RELAXED);
	__atomic_store_n(&maps_next, 0, __ATOMIC_RELAXED);
}

/* A file mapping counts one mmap (its later page faults are not seen);
 * anonymous mappings pass straight through. munmap is not intercepted. */
#define WRAP_MMAP(name, offtype) \
	FS_EXPORT void *name(void *addr, size_t len, int prot, int flags, int fd, offtype off) \
	{ \
		struct fs_fd *e = (fd < 0 || (flags & MAP_ANONYMOUS)) ? NULL : fs_fd_get(fd); \
		if (!e) \
			return FS_REAL(name)(addr, len, prot, flags, fd, off); \
		TIMED(fs_real.name(addr, len, prot, flags, fd, off)); \
		int rec = fs_fd_rec(e, fd); \
		if (rec >= 0) { \
			if (r != MAP_FAILED && (flags & MAP_SHARED) && (prot & PROT_WRITE)) \
				map_note(r, len, rec); \
			fs_count_meta(rec, fs_fd_cls(e), FS_TRACE_OP_MMAP, FS_M_MMAPS, r != MAP_FAILED, t0, \
				      t1, off, r == MAP_FAILED ? -1 : 0, FS_POSIX); \
		} \
		return r; \
	}
WRAP_MMAP(mmap, off_t)
WRAP_MMAP(mmap64, off64_t)

/* msync: a sync of the mapping's file (fsyncs, write and sync time). */
FS_EXPORT int msync(void *addr, size_t len, int flags)
{
	if (!fs_on())
		return FS_REAL(msync)(addr, len, flags);
	TIMED(fs_real.msync(addr, len, flags));
	fs_count_data(map_rec(addr), NULL, FS_TRACE_OP_FSYNC, -1, r, 0, t0, t1, 0, FS_POSIX);
	return r;
}

/* The flags of a two-descriptor call's write half, after its read half
 * returned `done` (rw_done): a file read already has the process totals'
 * time and op, any counted read the class counters' time and call. */
static unsigned second_half(int done)
{
	return (done == 1 ? FS_C_NOPROC : 0) | (done ? FS_C_NOCLASS : 0);
}

/* sendfile: a read of `in` and a write of `out` (none when the read is at
 * EOF and returns 0), one call in the process totals. With an offset pointer the kernel advanced *offp by the bytes
 * sent, so the start is *offp - r (read after the call: a bad pointer fails
 * the call, not this library). */
#define WRAP_SENDFILE(name, offtype) \
	FS_EXPORT ssize_t name(int out, int in, offtype *offp, size_t n) \
	{ \
		struct fs_fd *ei = fs_fd_get_any(in), *eo = fs_fd_get_any(out); \
		if (!ei && !eo) \
			return FS_REAL(name)(out, in, offp, n); \
		TIMED(fs_real.name(out, in, offp, n)); \
		const void *op = fs_launder(offp); \
		int64_t at = op ? (r >= 0 ? (int64_t)*offp - r : -1) : AT_FD_OFFSET; \
		int done = ei ? rw_done(ei, in, FS_TRACE_OP_READ, at, r, n, t0, t1, 0) : 0; \
		if (eo && !(done && r == 0)) /* nothing was written */ \
			rw_done(eo, out, FS_TRACE_OP_WRITE, AT_FD_OFFSET, r, n, t0, t1, second_half(done)); \
		return r; \
	}
WRAP_SENDFILE(sendfile, off_t)
WRAP_SENDFILE(sendfile64, off64_t)

FS_EXPORT ssize_t copy_file_range(int in, off64_t *off_in, int out, off64_t *off_out, size_t n,
				  unsigned flags)
{
	struct fs_fd *ei = fs_fd_get_any(in), *eo = fs_fd_get_any(out);
	if (!ei && !eo)
		return FS_REAL(copy_file_range)(in, off_in, out, off_out, n, flags);
	TIMED(fs_real.copy_file_range(in, off_in, out, off_out, n, flags));
	int64_t at_in = fs_launder(off_in) ? (r >= 0 ? (int64_t)*off_in - r : -1) : AT_FD_OFFSET;
	int64_t at_out = fs_launder(off_out) ? (r >= 0 ? (int64_t)*off_out - r : -1) : AT_FD_OFFSET;
	int done = ei ? rw_done(ei, in, FS_TRACE_OP_READ, at_in, r, n, t0, t1, 0) : 0;
	if (eo && !(done && r == 0)) /* at EOF nothing was written */
		rw_done(eo, out, FS_TRACE_OP_WRITE, at_out, r, n, t0, t1, second_half(done));
	return r;
}
