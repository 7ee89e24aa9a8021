/* trace.c - start-up and the region's life (region.h, docs/tracer.md).
 *
 * At load, if FEEDSCOPE_TRACE_DIR is set: resolve every real function,
 * map the fd table, create this process image's region
 * $FEEDSCOPE_TRACE_DIR/<pid> (<pid>.1, <pid>.2 ... when an earlier image of
 * the same pid, before an exec, has it), then turn the wrappers on. Any
 * failure leaves the tracer off: every wrapper passes straight through,
 * and the job never notices (FEEDSCOPE_TRACE_DEBUG=1 prints why, once).
 *
 * A fork child gets a region of its own from the pthread_atfork child
 * handler (or the _Fork wrapper): the inherited mapping is the parent's, so
 * the child unmaps it after copying the file records its open descriptors
 * point at. Nothing needs flushing at exit, exec or _exit: counters live in
 * the shared mapping from the moment they are counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "trace/trace.h"

struct fs_state fs;
__thread uint32_t fs_tls_off __attribute__((tls_model("initial-exec")));

static char trace_dir[FS_PATH_MAX];
static size_t trace_dir_len;
static int debug_on, ops_on, debug_said;
static size_t region_bytes; /* fs_trace_region_size(ops_on) */
int64_t fs_last_end[FS_TRACE_FILES];

void fs_debug(const char *what, int err)
{
	if (!debug_on || debug_said)
		return;
	debug_said = 1;
	char line[512];
	size_t n = 0;
	const char *parts[] = {"feedscope-trace: ", what, " (errno ", NULL};
	for (int i = 0; parts[i]; i++) {
		size_t k = strlen(parts[i]);
		if (n + k >= sizeof line - 16)
			k = sizeof line - 16 - n;
		memcpy(line + n, parts[i], k);
		n += k;
	}
	char digits[12];
	int d = 0;
	unsigned v = (unsigned)err;
	do
		digits[d++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (d > 0)
		line[n++] = digits[--d];
	line[n++] = ')';
	line[n++] = '\n';
	ssize_t w = FS_REAL(write)(2, line, n);
	(void)w;
}

static int tsc_invariant(void)
{
#if defined(__x86_64__)
	const char *c = getenv("FEEDSCOPE_TRACE_CLOCK");
	if (c && strcmp(c, "mono") == 0)
		return 0;
	unsigned a, b, cx, d;
	if (!__get_cpuid(0x80000000, &a, &b, &cx, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &cx, &d);
	return (d >> 8) & 1; /* invariant TSC: constant rate, runs in every C-state */
#else
	return 0;
#endif
}

/* The decimal digits of v at out; returns the end. */
static char *put_uint(char *out, unsigned v)
{
	char digits[12];
	int d = 0;
	do
		digits[d++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (d > 0)
		*out++ = digits[--d];
	return out;
}

/* dir + "/" + pid [+ "." + k] into out (FS_PATH_MAX + 32 bytes) */
static void region_path(char *out, int pid, int k)
{
	memcpy(out, trace_dir, trace_dir_len);
	out[trace_dir_len] = '/';
	char *p = put_uint(out + trace_dir_len + 1, (unsigned)pid);
	if (k) {
		*p++ = '.';
		p = put_uint(p, (unsigned)k);
	}
	*p = '\0';
}

/* Leave dir/untraced.<pid>.<stage>.<errno>.<exe's last component>, an
 * empty file (no blocks needed, so it can be made on a full tmpfs), for the
 * recorder to list this process as untraced and why (region.h). Best effort. */
static void leave_marker(int pid, const char *exe, const char *stage, int err)
{
	static const char pre[] = "/" FS_TRACE_UNTRACED_PREFIX;
	char path[FS_PATH_MAX + 128]; /* trace_dir is shorter than FS_PATH_MAX; the rest < 100 */
	memcpy(path, trace_dir, trace_dir_len);
	char *p = path + trace_dir_len;
	memcpy(p, pre, sizeof pre - 1);
	p = put_uint(p + sizeof pre - 1, (unsigned)pid);
	*p++ = '.';
	size_t n = strlen(stage);
	memcpy(p, stage, n);
	p += n;
	*p++ = '.';
	p = put_uint(p, (unsigned)err);
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	size_t blen = strnlen(base, 64);
	if (blen) {
		*p++ = '.';
		memcpy(p, base, blen);
		p += blen;
	}
	*p = '\0';
	int fd = fs_real.open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0400);
	if (fd >= 0)
		fs_real.close(fd);
}

/* Size a new region file and allocate what is written from the start: the
 * header and record 0, and the op ring with --trace-ops. Other records'
 * pages are backed when claimed (files.c). Returns 0 or an errno. */
static int back_region(int fd)
{
	if (ftruncate(fd, (off_t)region_bytes) != 0)
		return errno;
	int err = posix_fallocate(fd, 0, (off_t)FS_REGION_PREFIX);
	if (err == 0 && ops_on)
		err = posix_fallocate(fd, (off_t)offsetof(struct fs_trace_region, ops),
				      (off_t)(region_bytes - offsetof(struct fs_trace_region, ops)));
	return err;
}

/* Create and map this image's region file, what is touched from the start
 * allocated first, so that a full /dev/shm fails here and never faults a
 * counter later. NULL on failure, with the file removed and a marker left. */
static struct fs_trace_region *region_map(int pid, const char *exe)
{
	char path[FS_PATH_MAX + 32];
	int fd = -1;
	for (int k = 0; k < 1000 && fd < 0; k++) {
		region_path(path, pid, k);
		/* 0400: the creator may write; a job that is not root cannot
		 * truncate or rewrite it by accident */
		fd = fs_real.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0400);
		if (fd < 0 && errno != EEXIST) {
			int err = errno;
			fs_debug("cannot create the region file in FEEDSCOPE_TRACE_DIR", err);
			leave_marker(pid, exe, FS_TRACE_STAGE_CREATE, err);
			return NULL;
		}
	}
	if (fd < 0) {
		fs_debug("no free region name for this pid", EEXIST);
		leave_marker(pid, exe, FS_TRACE_STAGE_CREATE, EEXIST);
		return NULL;
	}
	const char *stage = FS_TRACE_STAGE_SPACE;
	void *m = MAP_FAILED;
	int err = back_region(fd);
	if (err == 0) {
		stage = FS_TRACE_STAGE_MAP;
		m = fs_real.mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		err = errno;
	}
	if (m != MAP_FAILED && madvise(m, FS_REGION_PREFIX, MADV_POPULATE_WRITE) != 0) {
		/* a kernel before 5.14 (EINVAL): no backing on first use, so
		 * every block now */
		fs.populate = 0;
		stage = FS_TRACE_STAGE_SPACE;
		err = posix_fallocate(fd, 0, (off_t)region_bytes);
		if (err != 0) {
			munmap(m, region_bytes);
			m = MAP_FAILED;
		}
	} else if (m != MAP_FAILED) {
		fs.populate = 1;
	}
	if (m == MAP_FAILED) {
		unlink(path);
		fs_real.close(fd);
		fs_debug("cannot allocate or map the region", err);
		leave_marker(pid, exe, stage, err);
		return NULL;
	}
	fs_real.close(fd);
	return m;
}

/* A new region for process `pid`, or NULL. Uses only async-signal-safe
 * calls (it also runs in a fork child). exe: copied from there, or NULL to
 * read /proc/self/exe. */
static struct fs_trace_region *region_create(int pid, const char *exe)
{
	char tail[sizeof((struct fs_trace_region *)0)->exe] = "";
	if (exe) {
		memcpy(tail, exe, sizeof tail);
		tail[sizeof tail - 1] = '\0';
	} else {
		char buf[FS_PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
		if (n > 0) {
			size_t keep = (size_t)n < sizeof tail - 1 ? (size_t)n : sizeof tail - 1;
			memcpy(tail, buf + n - keep, keep);
			tail[keep] = '\0';
		}
	}
	struct fs_trace_region *r = region_map(pid, tail);
	if (!r)
		return NULL;
	r->version = FS_TRACE_VERSION;
	r->pid = pid;
	r->ppid = getppid();
	r->clock_kind = fs.tsc ? FS_TRACE_CLOCK_TSC : FS_TRACE_CLOCK_NS;
	r->ops_enabled = (uint32_t)ops_on;
	struct timespec ts;
	uint64_t a = fs_now();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t b = fs_now();
	r->mono0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->tsc0 = fs.tsc ? a + (b - a) / 2 : r->mono0_ns;
	memcpy(r->exe, tail, sizeof r->exe);
	static const char other[] = "(other files)";
	struct fs_trace_file *f0 = &r->files[0];
	memcpy(f0->path, other, sizeof other);
	f0->path_len = sizeof other - 1;
	f0->path_hash = fs_trace_hash(other, sizeof other - 1);
	f0->state = FS_TRACE_READY;
	r->used[0] = 1;
	r->nfiles = 1;
	__atomic_store_n(&r->magic, FS_TRACE_MAGIC, __ATOMIC_RELEASE);
	return r;
}

static void reset_last_end(void)
{
	for (int i = 0; i < FS_TRACE_FILES; i++)
		__atomic_store_n(&fs_last_end[i], -1, __ATOMIC_RELAXED);
}

void fs_after_fork_child(void)
{
	struct fs_trace_region *old = fs.region;
	if (!__atomic_load_n(&fs.active, __ATOMIC_RELAXED) || !old)
		return;
	int pid = getpid();
	if (old->pid == pid) /* already done for this process */
		return;
	__atomic_store_n(&fs.active, 0, __ATOMIC_RELAXED);
	struct fs_trace_region *now = region_create(pid, old->exe);
	/* the thread that forked is the child's only thread: its main one */
	fs_tls_thread = 1u + FS_TRACE_MAIN;
	if (now) {
		fs_files_reset();
		fs_fdtab_rebind(old, now);
		fs_maps_reset();
		reset_last_end();
		fs.region = now;
	} else {
		fs.region = NULL;
	}
	munmap(old, region_bytes);
	if (now)
		__atomic_store_n(&fs.active, 1, __ATOMIC_RELEASE);
}

static void atfork_child(void)
{
	int saved = errno;
	fs_after_fork_child();
	errno = saved;
}

__attribute__((constructor)) static void fs_init(void)
{
	int saved = errno;
	fs_real_resolve();
	fs_uring_resolve();
	const char *dir = getenv("FEEDSCOPE_TRACE_DIR");
	if (!dir || !*dir)
		goto out;
	debug_on = getenv("FEEDSCOPE_TRACE_DEBUG") != NULL;
	const char *ops = getenv("FEEDSCOPE_TRACE_OPS");
	ops_on = ops && strcmp(ops, "1") == 0;
	region_bytes = fs_trace_region_size(ops_on);
	/* absolute, so a chdir before a fork does not move the children's regions */
	char cwd[FS_PATH_MAX];
	long n = -1;
	if (dir[0] == '/')
		n = fs_path_join(NULL, 0, dir, trace_dir);
	else if (getcwd(cwd, sizeof cwd) && cwd[0] == '/')
		n = fs_path_join(cwd, strlen(cwd), dir, trace_dir);
	if (n < 0) {
		fs_debug("FEEDSCOPE_TRACE_DIR is too long or the cwd is unknown", ENAMETOOLONG);
		goto out;
	}
	trace_dir_len = (size_t)n;
	fs.tsc = tsc_invariant();
	fs_files_init();
	if (fs_fdtab_init() != 0) {
		fs_debug("cannot map the fd table", errno);
		goto out;
	}
	fs.ops = ops_on;
	reset_last_end();
	fs.region = region_create(getpid(), NULL);
	if (!fs.region)
		goto out;
	fs_files_reset();
	if (pthread_atfork(NULL, NULL, atfork_child) != 0) {
		fs_debug("pthread_atfork failed", errno);
		goto out;
	}
	__atomic_store_n(&fs.active, 1, __ATOMIC_RELEASE);
out:
	errno = saved;
}

#if defined(__SANITIZE_ADDRESS__)
/* The ASan build of the library (make asan, the tests' second pass)
 * preloaded alone, as `feedscope run` does: the ASan runtime then comes
 * after the C library in the lookup order, which ASan refuses unless told
 * (ASAN_OPTIONS, if set, still wins over these defaults). The job's malloc
 * stays glibc's, but libraries loaded later (libstdc++ under torch) get
 * ASan's operator new: the job's leaks are not this library's (which
 * allocates nothing), so LeakSanitizer's check at exit is turned off. */
FS_EXPORT const char *__asan_default_options(void);
FS_EXPORT const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0:detect_leaks=0";
}

FS_EXPORT int __lsan_is_turned_off(void);
FS_EXPORT int __lsan_is_turned_off(void)
{
	return 1;
}
#endif
