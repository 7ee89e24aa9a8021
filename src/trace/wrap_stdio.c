/* wrap_stdio.c - the stdio layer, counted as calls of its own (stdio_ops).
 *
 * A FILE's reads and writes are counted once, here: glibc's stdio reaches
 * the kernel through its internal __read/__write/__open (not through the
 * exported read/write/open these wrappers interpose), so the buffer refills
 * are never seen a second time; the wrappers also raise the thread's
 * pass-through depth around the real call, which would hide them if some C
 * library did call the exported names. Every call counts (stdio does not
 * tell EOF from an error without another call): bytes are what the call
 * delivered or accepted, 0 at EOF. The offset tracked is the stream's
 * position: fopen starts at 0 ("a" modes: unknown), fseek asks ftello.
 * Time of a buffered write is in the call that flushed it (often fclose).
 * Not wrapped: scanf/printf on stdin/stdout, getc_unlocked/putc_unlocked
 * macros, fscanf, fflush, fsetpos (docs/tracer.md).
 */
#define __NO_INLINE__ 1 /* glibc's bits/stdio.h would define getline & co inline */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "trace/count.h"

#define AT_STREAM INT64_MIN

FS_INLINE int fp_fd(FILE *fp)
{
	const FILE *p = fs_launder(fp);
#if defined(__GLIBC__)
	return p ? p->_fileno : -1;
#else
	return p ? fileno((FILE *)p) : -1;
#endif
}

/* Count one read or write of `bytes` on the stream's fd entry. */
static void io_done(struct fs_fd *e, int fd, int op, int64_t bytes, uint64_t asked, uint64_t t0,
		    uint64_t t1)
{
	uint32_t raw = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	int rec;
	if (FS_LIKELY(raw >= FS_FD_REC)) {
		rec = (int)(raw - FS_FD_REC);
	} else {
		rec = fs_fd_classify(fd); /* stdin/stdout on a file, fopencookie... */
		if (rec < 0)
			return;
	}
	fs_fd_settle_class(e, fd);
	int64_t off = __atomic_load_n(&e->off, __ATOMIC_RELAXED);
	fs_count_data(rec, e, op, off, bytes, asked, t0, t1, FS_C_ADVANCE, FS_STDIO);
}

static void meta_done(struct fs_fd *e, int fd, int op, enum fs_meta_counter c, int ok, uint64_t t0,
		      uint64_t t1, int64_t ret)
{
	int rec = fs_fd_rec(e, fd);
	if (rec >= 0)
		fs_count_meta(rec, fs_fd_cls(e), op, c, ok, t0, t1, __atomic_load_n(&e->off, __ATOMIC_RELAXED), ret,
			      FS_STDIO);
}

/* the real call, timed, with this thread passing through meanwhile */
#define STDIO_CALL(call) \
	uint64_t t0 = fs_now(); \
	fs_tls_off++; \
	__typeof__(call) r = call; \
	fs_tls_off--; \
	uint64_t t1 = fs_now()

#define STDIO_ENTRY(fp, name, ...) \
	int fd = fp_fd(fp); \
	struct fs_fd *e = fs_fd_get(fd); \
	if (!e) \
		return FS_REAL(name)(__VA_ARGS__)

#define WRAP_FREAD(name, op, ptrtype) \
	FS_EXPORT size_t name(ptrtype ptr, size_t size, size_t n, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, ptr, size, n, fp); \
		STDIO_CALL(fs_real.name(ptr, size, n, fp)); \
		io_done(e, fd, op, (int64_t)(r * size), size * n, t0, t1); \
		return r; \
	}
WRAP_FREAD(fread, FS_TRACE_OP_READ, void *)
WRAP_FREAD(fread_unlocked, FS_TRACE_OP_READ, void *)
WRAP_FREAD(fwrite, FS_TRACE_OP_WRITE, const void *)
WRAP_FREAD(fwrite_unlocked, FS_TRACE_OP_WRITE, const void *)

#define WRAP_FREAD_CHK(name) \
	FS_EXPORT size_t name(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, ptr, ptrlen, size, n, fp); \
		STDIO_CALL(fs_real.name(ptr, ptrlen, size, n, fp)); \
		io_done(e, fd, FS_TRACE_OP_READ, (int64_t)(r * size), size * n, t0, t1); \
		return r; \
	}
WRAP_FREAD_CHK(__fread_chk)
WRAP_FREAD_CHK(__fread_unlocked_chk)

#define WRAP_FGETS(name) \
	FS_EXPORT char *name(char *s, int n, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, s, n, fp); \
		STDIO_CALL(fs_real.name(s, n, fp)); \
		io_done(e, fd, FS_TRACE_OP_READ, r ? (int64_t)strlen(r) : 0, n > 0 ? (uint64_t)n : 0, t0, t1); \
		return r; \
	}
WRAP_FGETS(fgets)
WRAP_FGETS(fgets_unlocked)

#define WRAP_FGETS_CHK(name) \
	FS_EXPORT char *name(char *s, size_t slen, int n, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, s, slen, n, fp); \
		STDIO_CALL(fs_real.name(s, slen, n, fp)); \
		io_done(e, fd, FS_TRACE_OP_READ, r ? (int64_t)strlen(r) : 0, n > 0 ? (uint64_t)n : 0, t0, t1); \
		return r; \
	}
WRAP_FGETS_CHK(__fgets_chk)
WRAP_FGETS_CHK(__fgets_unlocked_chk)

FS_EXPORT ssize_t getline(char **line, size_t *n, FILE *fp)
{
	STDIO_ENTRY(fp, getline, line, n, fp);
	STDIO_CALL(fs_real.getline(line, n, fp));
	io_done(e, fd, FS_TRACE_OP_READ, r > 0 ? r : 0, 0, t0, t1);
	return r;
}

#define WRAP_GETDELIM(name) \
	FS_EXPORT ssize_t name(char **line, size_t *n, int delim, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, line, n, delim, fp); \
		STDIO_CALL(fs_real.name(line, n, delim, fp)); \
		io_done(e, fd, FS_TRACE_OP_READ, r > 0 ? r : 0, 0, t0, t1); \
		return r; \
	}
WRAP_GETDELIM(getdelim)
WRAP_GETDELIM(__getdelim)

#define WRAP_GETC(name) \
	FS_EXPORT int name(FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, fp); \
		STDIO_CALL(fs_real.name(fp)); \
		io_done(e, fd, FS_TRACE_OP_READ, r != EOF, 1, t0, t1); \
		return r; \
	}
WRAP_GETC(fgetc)
WRAP_GETC(getc)
WRAP_GETC(_IO_getc)
WRAP_GETC(fgetc_unlocked)

#define WRAP_PUTC(name) \
	FS_EXPORT int name(int c, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, c, fp); \
		STDIO_CALL(fs_real.name(c, fp)); \
		io_done(e, fd, FS_TRACE_OP_WRITE, r != EOF, 1, t0, t1); \
		return r; \
	}
WRAP_PUTC(fputc)
WRAP_PUTC(putc)
WRAP_PUTC(_IO_putc)
WRAP_PUTC(fputc_unlocked)

#define WRAP_FPUTS(name) \
	FS_EXPORT int name(const char *s, FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, s, fp); \
		STDIO_CALL(fs_real.name(s, fp)); \
		uint64_t len = r >= 0 ? strlen(s) : 0; \
		io_done(e, fd, FS_TRACE_OP_WRITE, (int64_t)len, len, t0, t1); \
		return r; \
	}
WRAP_FPUTS(fputs)
WRAP_FPUTS(fputs_unlocked)

FS_EXPORT int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
	STDIO_ENTRY(fp, vfprintf, fp, fmt, ap);
	STDIO_CALL(fs_real.vfprintf(fp, fmt, ap));
	io_done(e, fd, FS_TRACE_OP_WRITE, r > 0 ? r : 0, 0, t0, t1);
	return r;
}

FS_EXPORT int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
	STDIO_ENTRY(fp, __vfprintf_chk, fp, flag, fmt, ap);
	STDIO_CALL(fs_real.__vfprintf_chk(fp, flag, fmt, ap));
	io_done(e, fd, FS_TRACE_OP_WRITE, r > 0 ? r : 0, 0, t0, t1);
	return r;
}

FS_EXPORT int fprintf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfprintf(fp, fmt, ap);
	va_end(ap);
	return r;
}

FS_EXPORT int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = __vfprintf_chk(fp, flag, fmt, ap);
	va_end(ap);
	return r;
}

/* Positioning: the stream's position after a seek, from ftello. */
#define WRAP_FSEEK(name, offtype) \
	FS_EXPORT int name(FILE *fp, offtype off, int whence) \
	{ \
		STDIO_ENTRY(fp, name, fp, off, whence); \
		STDIO_CALL(fs_real.name(fp, off, whence)); \
		if (r == 0) { \
			int saved = errno; \
			fs_tls_off++; \
			off64_t pos = fs_real.ftello64(fp); \
			fs_tls_off--; \
			errno = saved; \
			__atomic_store_n(&e->off, pos >= 0 ? (int64_t)pos : -1, __ATOMIC_RELAXED); \
		} \
		meta_done(e, fd, FS_TRACE_OP_SEEK, FS_M_SEEKS, r == 0, t0, t1, r); \
		return r; \
	}
WRAP_FSEEK(fseek, long)
WRAP_FSEEK(fseeko, off_t)
WRAP_FSEEK(fseeko64, off64_t)

#define WRAP_FTELL(name, offtype) \
	FS_EXPORT offtype name(FILE *fp) \
	{ \
		STDIO_ENTRY(fp, name, fp); \
		STDIO_CALL(fs_real.name(fp)); \
		if (r >= 0) \
			__atomic_store_n(&e->off, (int64_t)r, __ATOMIC_RELAXED); \
		meta_done(e, fd, FS_TRACE_OP_OTHER, FS_M_NONE, r >= 0, t0, t1, r); \
		return r; \
	}
WRAP_FTELL(ftell, long)
WRAP_FTELL(ftello, off_t)
WRAP_FTELL(ftello64, off64_t)

FS_EXPORT void rewind(FILE *fp)
{
	int fd = fp_fd(fp);
	struct fs_fd *e = fs_fd_get(fd);
	if (!e) {
		FS_REAL(rewind)(fp);
		return;
	}
	uint64_t t0 = fs_now();
	fs_tls_off++;
	fs_real.rewind(fp);
	fs_tls_off--;
	uint64_t t1 = fs_now();
	__atomic_store_n(&e->off, 0, __ATOMIC_RELAXED);
	meta_done(e, fd, FS_TRACE_OP_SEEK, FS_M_SEEKS, 1, t0, t1, 0);
}

/* Opening and closing streams. */
static FILE *fopened(const char *path, const char *mode, FILE *fp, uint64_t t0, uint64_t t1)
{
	int saved = errno;
	int rec = 0;
	if (fp) {
		rec = fs_file_at(AT_FDCWD, path);
		const char *m = fs_launder(mode);
		int fd = fp_fd(fp);
		if (fd >= 0)
			fs_fd_set(fd, (uint32_t)rec + FS_FD_REC, FS_FD_CLASS(FS_FD_CLASS_PENDING),
				  (m && m[0] == 'a') ? -1 : 0);
	}
	fs_count_meta(rec, FS_TRACE_CLASS_FILE, FS_TRACE_OP_OPEN, FS_M_OPENS, fp != NULL, t0, t1, -1, fp ? 0 : -1, FS_STDIO);
	errno = saved;
	return fp;
}

#define WRAP_FOPEN(name) \
	FS_EXPORT FILE *name(const char *path, const char *mode) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(path, mode); \
		STDIO_CALL(fs_real.name(path, mode)); \
		return fopened(path, mode, r, t0, t1); \
	}
WRAP_FOPEN(fopen)
WRAP_FOPEN(fopen64)

#define WRAP_FREOPEN(name) \
	FS_EXPORT FILE *name(const char *path, const char *mode, FILE *fp) \
	{ \
		if (!fs_on()) \
			return FS_REAL(name)(path, mode, fp); \
		fs_fd_forget(fp_fd(fp)); \
		STDIO_CALL(fs_real.name(path, mode, fp)); \
		if (!fs_launder(path)) { /* same file, new mode: named on first use */ \
			if (r) \
				fs_fd_forget(fp_fd(r)); \
			return r; \
		} \
		return fopened(path, mode, r, t0, t1); \
	}
WRAP_FREOPEN(freopen)
WRAP_FREOPEN(freopen64)

FS_EXPORT FILE *fdopen(int fd, const char *mode)
{
	struct fs_fd *e = fs_fd_get(fd);
	if (!e)
		return FS_REAL(fdopen)(fd, mode);
	STDIO_CALL(fs_real.fdopen(fd, mode));
	meta_done(e, fd, FS_TRACE_OP_OTHER, FS_M_NONE, r != NULL, t0, t1, r ? 0 : -1);
	return r;
}

FS_EXPORT int fclose(FILE *fp)
{
	int fd = fp_fd(fp);
	struct fs_fd *e = fs_fd_get(fd);
	if (!e) {
		if (fd >= 0 && fs_on())
			fs_fd_forget(fd); /* an ignored fd's number is free again */
		return FS_REAL(fclose)(fp);
	}
	uint32_t raw = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	int64_t off = __atomic_load_n(&e->off, __ATOMIC_RELAXED);
	int cls = fs_fd_cls(e);
	fs_fd_forget(fd);
	STDIO_CALL(fs_real.fclose(fp));
	if (raw >= FS_FD_REC)
		fs_count_meta((int)(raw - FS_FD_REC), cls, FS_TRACE_OP_CLOSE, FS_M_NONE, r == 0, t0, t1, off, r,
			      FS_STDIO);
	return r;
}
