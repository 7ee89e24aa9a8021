/* fdtab.c - the tracer's private fd table: fd -> (file record, offset).
 *
 * One entry per descriptor number, in an anonymous MAP_NORESERVE mapping
 * sized at load from RLIMIT_NOFILE's hard limit (pages are touched only as
 * descriptors are used); descriptors beyond it pass through uncounted. No
 * malloc anywhere, so the table is usable from a fork child handler and a
 * signal handler. Entries are read and written with relaxed atomics; a
 * descriptor is in practice used by one thread at a time, and a race on it
 * (a read on an fd another thread is closing) can only mis-file a count.
 *
 * An fd opened through a wrapper gets its record at once. Any other fd
 * (inherited, or created by a call not intercepted: pipe, socket, memfd,
 * glibc-internal opens such as shm_open) is FS_FD_UNKNOWN until its first
 * intercepted use: then fstat says whether it is a file (regular, directory,
 * block device): if so readlink(/proc/self/fd/N) names it, else it is
 * FS_FD_IGNORED: its data calls count in its class only (socket, pipe,
 * device, other), its metadata calls pass straight through. Every entry
 * carries its class (from st_mode, read once: at open, or at first use),
 * so no call on the hot path needs an fstat.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "trace/trace.h"

#define FS_FDS_MIN 1024u
#define FS_FDS_MAX (1u << 22)

int fs_fdtab_init(void)
{
	struct rlimit rl;
	uint64_t n = 1u << 20; /* Linux's default nr_open */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
		n = rl.rlim_max;
	if (n < FS_FDS_MIN)
		n = FS_FDS_MIN;
	if (n > FS_FDS_MAX)
		n = FS_FDS_MAX;
	void *p = FS_REAL(mmap)(NULL, n * sizeof(struct fs_fd), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	fs.fds = p;
	fs.nfds = (uint32_t)n;
	return 0;
}

static void note_hi(int fd)
{
	uint32_t hi = __atomic_load_n(&fs.fd_hi, __ATOMIC_RELAXED);
	while ((uint32_t)fd + 1 > hi &&
	       !__atomic_compare_exchange_n(&fs.fd_hi, &hi, (uint32_t)fd + 1, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void fs_fd_set(int fd, uint32_t rec, uint32_t flags, int64_t off)
{
	struct fs_fd *e = fs_fd_entry(fd);
	if (!e)
		return;
	__atomic_store_n(&e->flags, flags, __ATOMIC_RELAXED);
	__atomic_store_n(&e->off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&e->rec, rec, __ATOMIC_RELEASE);
	note_hi(fd);
}

void fs_fd_forget(int fd)
{
	struct fs_fd *e = fs_fd_entry(fd);
	if (e && __atomic_load_n(&e->rec, __ATOMIC_RELAXED) != FS_FD_UNKNOWN)
		__atomic_store_n(&e->rec, FS_FD_UNKNOWN, __ATOMIC_RELAXED);
}

void fs_fd_forget_range(unsigned first, unsigned last)
{
	uint32_t hi = __atomic_load_n(&fs.fd_hi, __ATOMIC_RELAXED);
	if (hi == 0)
		return;
	if (last > hi - 1)
		last = hi - 1;
	for (unsigned fd = first; fd <= last; fd++)
		fs_fd_forget((int)fd);
}

void fs_fd_copy(int from, int to)
{
	struct fs_fd *a = fs_fd_entry(from), *b = fs_fd_entry(to);
	if (!b)
		return;
	if (!a) {
		fs_fd_forget(to);
		return;
	}
	fs_fd_set(to, __atomic_load_n(&a->rec, __ATOMIC_ACQUIRE), __atomic_load_n(&a->flags, __ATOMIC_RELAXED),
		  __atomic_load_n(&a->off, __ATOMIC_RELAXED));
}

void fs_proc_fd_path(char *buf, int fd)
{
	static const char pre[] = "/proc/self/fd/";
	char digits[12];
	int k = 0;
	unsigned v = (unsigned)fd;
	do
		digits[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	memcpy(buf, pre, sizeof pre - 1);
	char *p = buf + sizeof pre - 1;
	while (k > 0)
		*p++ = digits[--k];
	*p = '\0';
}

int fs_class_of_mode(mode_t mode)
{
	if (S_ISREG(mode) || S_ISDIR(mode))
		return FS_TRACE_CLASS_FILE;
	if (S_ISSOCK(mode))
		return FS_TRACE_CLASS_SOCKET;
	if (S_ISFIFO(mode))
		return FS_TRACE_CLASS_PIPE;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return FS_TRACE_CLASS_DEVICE;
	return FS_TRACE_CLASS_OTHER;
}

int fs_fd_class_of(int fd)
{
	int saved = errno;
	struct stat st;
	int cls = FS_REAL(fstat)(fd, &st) == 0 ? fs_class_of_mode(st.st_mode) : FS_TRACE_CLASS_FILE;
	errno = saved;
	return cls;
}

void fs_fd_learn_class(struct fs_fd *e, int fd, mode_t mode, int have_mode)
{
	uint32_t fl = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	if ((fl & FS_FD_CLASS_MASK) != FS_FD_CLASS(FS_FD_CLASS_PENDING))
		return;
	int cls = have_mode ? fs_class_of_mode(mode) : fs_fd_class_of(fd);
	uint32_t now = (fl & ~FS_FD_CLASS_MASK) | FS_FD_CLASS(cls);
	__atomic_compare_exchange_n(&e->flags, &fl, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void fs_fd_set_class(int fd, int cls)
{
	fs_fd_set(fd, FS_FD_IGNORED, FS_FD_CLASS(cls), -1);
}

void fs_fd_set_accepted(int fd)
{
	fs_fd_set(fd, FS_FD_IGNORED, FS_FD_CLASS(FS_TRACE_CLASS_SOCKET) | FS_FD_ACCEPTED, -1);
}

int fs_fd_classify(int fd)
{
	struct fs_fd *e = fs_fd_entry(fd);
	if (!e)
		return -1;
	int saved = errno;
	struct stat st;
	int rec = -1;
	uint32_t val = FS_FD_IGNORED;
	int64_t off = -1;
	uint32_t flags = 0;
	if (FS_REAL(fstat)(fd, &st) != 0) {
		errno = saved;
		return -1; /* not open: nothing to remember */
	}
	flags = FS_FD_CLASS(fs_class_of_mode(st.st_mode));
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
		char link[32], path[FS_PATH_MAX];
		fs_proc_fd_path(link, fd);
		ssize_t n = readlink(link, path, sizeof path - 1);
		if (n > 0 && path[0] == '/') {
			path[n] = '\0';
			rec = fs_file_abs(path, (size_t)n);
		} else {
			rec = 0;
		}
		val = (uint32_t)rec + FS_FD_REC;
		off = fs_real.lseek(fd, 0, SEEK_CUR);
		int fl = fs_real.fcntl(fd, F_GETFL);
		if (fl >= 0 && (fl & O_APPEND))
			flags |= FS_FD_APPEND;
	}
	__atomic_store_n(&e->flags, flags, __ATOMIC_RELAXED);
	__atomic_store_n(&e->off, off < 0 ? -1 : off, __ATOMIC_RELAXED);
	uint32_t unknown = FS_FD_UNKNOWN;
	__atomic_compare_exchange_n(&e->rec, &unknown, val, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	note_hi(fd);
	errno = saved;
	return rec;
}

void fs_fdtab_rebind(struct fs_trace_region *old, struct fs_trace_region *now)
{
	uint16_t map[FS_TRACE_FILES]; /* old record -> new + 1 (0: not yet) */
	memset(map, 0, sizeof map);
	uint32_t hi = __atomic_load_n(&fs.fd_hi, __ATOMIC_RELAXED);
	for (uint32_t fd = 0; fd < hi && fd < fs.nfds; fd++) {
		struct fs_fd *e = &fs.fds[fd];
		uint32_t fl = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
		if (fl & FS_FD_PEER_MASK) /* the new region's peers table is empty: read again */
			__atomic_store_n(&e->flags, fl & ~FS_FD_PEER_MASK, __ATOMIC_RELAXED);
		uint32_t rec = __atomic_load_n(&e->rec, __ATOMIC_RELAXED);
		if (rec <= FS_FD_REC) /* unknown, ignored, record 0: the same in the new region */
			continue;
		uint32_t r = rec - FS_FD_REC;
		if (!map[r]) {
			struct fs_trace_file *f = &old->files[r];
			int k = 0;
			if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == FS_TRACE_READY)
				k = fs_file_claim(now, f->path_hash, f->path_len, f->path, strlen(f->path));
			map[r] = (uint16_t)(k + 1);
		}
		__atomic_store_n(&e->rec, (uint32_t)(map[r] - 1) + FS_FD_REC, __ATOMIC_RELAXED);
	}
}
