/* trace.h - internals shared by the files of libfeedscope-trace.so, the
 * LD_PRELOAD I/O tracer (docs/tracer.md says what is counted and why).
 *
 * The library is built with -fvisibility=hidden: only the interposed
 * functions (FS_EXPORT) are visible. Code in the library never calls an
 * interposed name directly (that would bind to our own wrapper); it calls
 * the real function through fs_real, resolved once at load (real.c).
 */
#ifndef FS_TRACE_TRACE_H
#define FS_TRACE_TRACE_H

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define FS_HAVE_SINGLE_THREADED 1
#endif

#include "trace/region.h"

/* ASan build: a wrapper may run before ASan is initialised (another
 * library's constructor doing I/O while the ASan runtime, loaded as this
 * library's dependency, is initialised later), so the wrappers and what
 * they run before the constructor (real.c) are not instrumented; what they
 * call once the tracer is on (counting, paths, the fd table) is. */
#if defined(__SANITIZE_ADDRESS__)
#define FS_NOSAN __attribute__((no_sanitize_address))
#else
#define FS_NOSAN
#endif
#define FS_EXPORT __attribute__((visibility("default"))) FS_NOSAN
/* inlined into the wrappers, so not instrumented either: an instrumented
 * body inlined into an uninstrumented frame would leave its scope poison
 * on the stack */
#define FS_INLINE static inline __attribute__((always_inline)) FS_NOSAN
#define FS_LIKELY(x) __builtin_expect(!!(x), 1)
#define FS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FS_STR2(x) #x
#define FS_STR(x) FS_STR2(x)

/* glibc entry points that its public headers do not declare (fortified
 * variants, the pre-2.33 stat ABI, stdio internals still exported). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp);
size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *fp);
char *__fgets_chk(char *s, size_t slen, int n, FILE *fp);
char *__fgets_unlocked_chk(char *s, size_t slen, int n, FILE *fp);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int _IO_getc(FILE *fp);
int _IO_putc(int c, FILE *fp);
int __xstat(int ver, const char *path, struct stat *buf);
int __xstat64(int ver, const char *path, struct stat64 *buf);
int __lxstat(int ver, const char *path, struct stat *buf);
int __lxstat64(int ver, const char *path, struct stat64 *buf);
int __fxstat(int ver, int fd, struct stat *buf);
int __fxstat64(int ver, int fd, struct stat64 *buf);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags);

/* Every real function the library calls or forwards to: X(name). */
#define FS_REAL_LIST(X) \
	X(open) X(open64) X(openat) X(openat64) X(creat) X(creat64) \
	X(__open_2) X(__open64_2) X(__openat_2) X(__openat64_2) \
	X(close) X(close_range) X(closefrom) X(dup) X(dup2) X(dup3) X(fcntl) X(fcntl64) \
	X(read) X(__read_chk) X(pread) X(pread64) X(__pread_chk) X(__pread64_chk) \
	X(readv) X(preadv) X(preadv64) X(preadv2) X(preadv64v2) \
	X(write) X(pwrite) X(pwrite64) X(writev) X(pwritev) X(pwritev64) X(pwritev2) X(pwritev64v2) \
	X(lseek) X(lseek64) X(fsync) X(fdatasync) X(mmap) X(mmap64) \
	X(sendfile) X(sendfile64) X(copy_file_range) \
	X(stat) X(stat64) X(lstat) X(lstat64) X(fstat) X(fstat64) X(fstatat) X(fstatat64) X(statx) \
	X(__xstat) X(__xstat64) X(__lxstat) X(__lxstat64) X(__fxstat) X(__fxstat64) \
	X(__fxstatat) X(__fxstatat64) X(access) X(faccessat) \
	X(opendir) X(fdopendir) X(readdir) X(readdir64) X(closedir) \
	X(fopen) X(fopen64) X(fdopen) X(freopen) X(freopen64) X(fclose) \
	X(fread) X(fread_unlocked) X(__fread_chk) X(__fread_unlocked_chk) \
	X(fwrite) X(fwrite_unlocked) X(fgets) X(fgets_unlocked) X(__fgets_chk) X(__fgets_unlocked_chk) \
	X(getline) X(getdelim) X(__getdelim) X(fgetc) X(getc) X(_IO_getc) X(fgetc_unlocked) \
	X(fputc) X(putc) X(_IO_putc) X(fputc_unlocked) X(fputs) X(fputs_unlocked) \
	X(vfprintf) X(__vfprintf_chk) \
	X(fseek) X(fseeko) X(fseeko64) X(ftell) X(ftello) X(ftello64) X(rewind) X(_Fork) \
	X(msync) X(socket) X(socketpair) X(accept) X(accept4) X(pipe) X(pipe2) \
	X(recv) X(recvfrom) X(recvmsg) X(send) X(sendto) X(sendmsg) X(connect) X(listen)

struct fs_real {
#define FS_REAL_FIELD(name) __typeof__(name) *name;
	FS_REAL_LIST(FS_REAL_FIELD)
#undef FS_REAL_FIELD
};
extern struct fs_real fs_real;

/* real.c: resolve every symbol with dlsym(RTLD_NEXT) (idempotent; called by
 * the constructor, and by a wrapper only if it runs before the constructor). */
void fs_real_resolve(void);

/* The real function `name`, resolved now if the constructor has not run yet.
 * NULL only if the C library lacks it (then no program linked with it calls
 * it), or for a call made from inside dlsym itself before the constructor. */
#define FS_REAL(name) \
	(FS_LIKELY(__atomic_load_n(&fs_real.name, __ATOMIC_RELAXED) != NULL) \
		 ? __atomic_load_n(&fs_real.name, __ATOMIC_RELAXED) \
		 : (fs_real_resolve(), __atomic_load_n(&fs_real.name, __ATOMIC_RELAXED)))

/* fd table entry (fdtab.c). rec: FS_FD_UNKNOWN (not seen: classified on
 * first use), FS_FD_IGNORED (no file record: pipe, socket, terminal...;
 * its calls count in its class only), or the file record's index +
 * FS_FD_REC. flags: FS_FD_APPEND, and the descriptor's class
 * (enum fs_trace_class_id) in FS_FD_CLASS_MASK. off: the file offset as
 * tracked (-1: unknown). */
enum { FS_FD_UNKNOWN = 0, FS_FD_IGNORED = 1, FS_FD_REC = 2 };
enum { FS_FD_APPEND = 1u << 0, FS_FD_CLASS_SHIFT = 8, FS_FD_CLASS_MASK = 7u << 8 };
/* A socket made by accept(): its peer's port is the one that varies from
 * connection to connection (peers.c folds on it when the table fills). */
enum { FS_FD_ACCEPTED = 1u << 1 };
/* A socket's flags also hold 1 + its peers entry (region.h: struct
 * fs_trace_peer) in the bits from FS_FD_PEER_SHIFT: 0 until its endpoints
 * are read (peers.c), once, at its first data call after connect/accept. */
enum { FS_FD_PEER_SHIFT = 16 };
#define FS_FD_PEER_MASK (0xffffu << FS_FD_PEER_SHIFT)
#define FS_FD_CLASS(c) ((uint32_t)(c) << FS_FD_CLASS_SHIFT)
/* An fd opened by path: its class is learnt from the first fstat the job
 * makes on it (Python's open() makes one), else by one fstat of ours at
 * its first data call (fs_fd_settle_class); until then it counts as FILE. */
#define FS_FD_CLASS_PENDING 7
struct fs_fd {
	uint32_t rec;
	uint32_t flags;
	int64_t off;
};

/* Process-wide state. Set by the constructor and the fork child handler;
 * read by every wrapper. */
struct fs_state {
	int active;                     /* 1 while this process has a region */
	int tsc;                        /* 1: the clock is the TSC; 0: CLOCK_MONOTONIC ns */
	int ops;                        /* region.ops_enabled, kept here: one cache line less */
	struct fs_trace_region *region;
	struct fs_fd *fds;              /* fd table, nfds entries (mmap'd, never freed) */
	uint32_t nfds;
	uint32_t fd_hi;                 /* 1 + the highest fd ever entered in the table */
	int populate;                   /* 1: record pages are backed on first use (files.c);
	                                 * 0: the whole region was allocated at creation */
};
extern struct fs_state fs;
/* per record of this process's region: where the previous read ended
 * (-1: none yet), for Darshan's sequential/consecutive counts */
extern int64_t fs_last_end[FS_TRACE_FILES];

/* Per thread: nonzero = pass through. Low bits: nesting depth of the
 * tracer's own calls (a stdio wrapper around glibc); FS_OFF_VFORK: this is
 * a vfork child running on its parent's memory (set by the vfork wrapper). */
extern __thread uint32_t fs_tls_off __attribute__((tls_model("initial-exec")));
#define FS_OFF_VFORK 0x10000u

/* Per thread: 0 not known yet, 1 + FS_TRACE_MAIN or 1 + FS_TRACE_OTHER_THREADS
 * (learnt once per thread with gettid; set to main by the fork child handler). */
extern __thread uint32_t fs_tls_thread __attribute__((tls_model("initial-exec")));
uint32_t fs_thread_learn(void);             /* count.c: sets fs_tls_thread */

/* FS_TRACE_MAIN if this thread is its process's main thread, else
 * FS_TRACE_OTHER_THREADS. */
FS_INLINE int fs_thread_kind(void)
{
	uint32_t v = fs_tls_thread;
	if (FS_UNLIKELY(v == 0))
		v = fs_thread_learn();
	return (int)v - 1;
}

FS_INLINE int fs_on(void)
{
	return FS_LIKELY(__atomic_load_n(&fs.active, __ATOMIC_RELAXED)) && FS_LIKELY(fs_tls_off == 0);
}

/* The region's clock (region.clock_kind). */
FS_INLINE uint64_t fs_now(void)
{
#if defined(__x86_64__)
	if (FS_LIKELY(fs.tsc))
		return __rdtsc();
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A pointer the compiler may not assume non-NULL (glibc declares many path
 * and FILE parameters nonnull, but a job may still pass NULL). */
FS_INLINE const void *fs_launder(const void *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/* trace.c, wrap_proc.c */
void fs_uring_resolve(void);                /* liburing's setup functions, if loaded */
void fs_debug(const char *what, int err);   /* one line on stderr if FEEDSCOPE_TRACE_DEBUG */
void fs_after_fork_child(void);             /* new region for this (child) process */

/* fdtab.c: the fd table. All return quietly when the tracer is off. */
int fs_fdtab_init(void);                    /* 0, or -1 (tracer stays off) */
int fs_fd_classify(int fd);                 /* record of an FS_FD_UNKNOWN fd, or -1: not a file */
int fs_fd_class_of(int fd);                 /* the fd's class from fstat (FILE if fstat fails); errno kept */
int fs_class_of_mode(mode_t mode);          /* st_mode -> enum fs_trace_class_id (pure) */
void fs_fd_set_class(int fd, int cls);      /* a new fd with no file record (socket, pipe) */
void fs_fd_set_accepted(int fd);            /* a new socket made by accept */
/* msync's file: mappings made through the mmap wrapper (wrap_rw.c) */
void fs_maps_reset(void);                   /* fork child: the records changed */
void fs_fd_set(int fd, uint32_t rec, uint32_t flags, int64_t off);
void fs_fd_forget(int fd);                  /* the fd is being closed */
void fs_fd_forget_range(unsigned first, unsigned last);
void fs_fd_copy(int from, int to);          /* dup: `to` now names what `from` names */
void fs_fdtab_rebind(struct fs_trace_region *old, struct fs_trace_region *now); /* fork child */
void fs_proc_fd_path(char *buf, int fd);    /* "/proc/self/fd/N" into buf[32] */

FS_INLINE struct fs_fd *fs_fd_entry(int fd)
{
	return (unsigned)fd < fs.nfds ? &fs.fds[fd] : NULL;
}

/* The fd's entry when the call on it should be timed and counted: NULL when
 * the tracer is off, the fd is out of the table, or not a file. */
FS_INLINE struct fs_fd *fs_fd_get(int fd)
{
	if (!fs_on() || (unsigned)fd >= fs.nfds)
		return NULL;
	struct fs_fd *e = &fs.fds[fd];
	if (__atomic_load_n(&e->rec, __ATOMIC_RELAXED) == FS_FD_IGNORED)
		return NULL;
	return e;
}

/* The fd's entry when the call on it should be timed, files or not (read,
 * write, recv, send...): NULL when the tracer is off or the fd is out of
 * the table. */
FS_INLINE struct fs_fd *fs_fd_get_any(int fd)
{
	if (!fs_on() || (unsigned)fd >= fs.nfds)
		return NULL;
	return &fs.fds[fd];
}

/* The class of entry e (NULL, or not known yet: FS_TRACE_CLASS_FILE). */
FS_INLINE int fs_fd_cls(const struct fs_fd *e)
{
	int c = e ? (int)((__atomic_load_n(&e->flags, __ATOMIC_RELAXED) & FS_FD_CLASS_MASK) >> FS_FD_CLASS_SHIFT)
		  : FS_TRACE_CLASS_FILE;
	return c == FS_FD_CLASS_PENDING ? FS_TRACE_CLASS_FILE : c;
}

/* Before a data call on e is counted: its class, if still pending, from
 * one fstat (fdtab.c). errno kept. */
void fs_fd_learn_class(struct fs_fd *e, int fd, mode_t mode, int have_mode);
FS_INLINE void fs_fd_settle_class(struct fs_fd *e, int fd)
{
	if (FS_UNLIKELY((__atomic_load_n(&e->flags, __ATOMIC_RELAXED) & FS_FD_CLASS_MASK) ==
			FS_FD_CLASS(FS_FD_CLASS_PENDING)))
		fs_fd_learn_class(e, fd, 0, 0);
}

/* The record index for an entry fs_fd_get returned (classifying it first if
 * needed, errno preserved), or -1 when the fd is not a file. */
FS_INLINE int fs_fd_rec(struct fs_fd *e, int fd)
{
	uint32_t r = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
	if (FS_LIKELY(r >= FS_FD_REC))
		return (int)(r - FS_FD_REC);
	if (r == FS_FD_IGNORED)
		return -1;
	return fs_fd_classify(fd);
}

/* peers.c: a socket's endpoints -> its entry in the region's peers table. */
/* The peers entry of socket fd (entry e), read and cached in e at its first
 * data call (getsockname, getpeername: errno kept); -1: not to be counted
 * (no room to back the entry). call_ok: the call being counted succeeded
 * (a socket with no peer is cached as "unconnected" only then). */
int fs_peer_of(struct fs_fd *e, int fd, int call_ok);
/* connect() on fd returned: its endpoints are read again at its next data
 * call. */
void fs_peer_forget(int fd);
/* listen() on fd succeeded: an entry of kind FS_TRACE_PEER_LISTEN for its
 * local endpoint. errno kept. */
void fs_peer_listen(int fd);
/* files.c: back the pages of [at, at + len) of region r before they are
 * touched (MADV_POPULATE_WRITE, once per page); 1 if they may be touched,
 * 0 if there is no room. errno kept. */
int fs_region_back(struct fs_trace_region *r, size_t at, size_t len);

/* files.c: path -> record. */
#define FS_PATH_MAX 4096
/* The record for `path` (relative to dirfd, or the cwd for AT_FDCWD), a
 * new one if the path has none; 0 ("(other files)") for excluded paths
 * (FEEDSCOPE_TRACE_EXCLUDE), a full table, or a path that cannot be made
 * absolute. Call it only after the call on `path` succeeded (the path is
 * then readable memory). errno preserved. */
int fs_file_at(int dirfd, const char *path);
/* The record for an absolute path as the kernel names it (readlink). */
int fs_file_abs(const char *path, size_t len);
/* The record that has this hash, length and tail in `r`, claimed if absent;
 * 0 if the table has no room. For the fork child's new region only. */
int fs_file_claim(struct fs_trace_region *r, uint64_t hash, uint32_t len, const char *tail,
		  size_t tail_len);
void fs_files_init(void);                   /* parse FEEDSCOPE_TRACE_EXCLUDE */
/* A new region: forget the slots' tags and which record pages are backed
 * (but the header's and record 0's, FS_REGION_PREFIX bytes, allocated at
 * creation). */
void fs_files_reset(void);
#define FS_REGION_PREFIX (offsetof(struct fs_trace_region, files) + sizeof(struct fs_trace_file))
/* Normalise `path` (relative to `dir` if not absolute) into out[FS_PATH_MAX]:
 * absolute, no "//", no "/./", no trailing "/". Returns the length, or -1
 * if it does not fit. Pure (unit-tested). */
long fs_path_join(const char *dir, size_t dir_len, const char *path, char *out);

#endif
