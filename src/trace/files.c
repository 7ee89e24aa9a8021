/* files.c - from a path to its file record in the region.
 *
 * A record is named by the absolute path as the job opened it: a relative
 * path is joined to the cwd (getcwd at the time of the call) or, for
 * openat() and friends, to the directory fd's path (its record's path when
 * that is complete, else readlink of /proc/self/fd/N); then "//" and "/./"
 * are collapsed and a trailing "/" dropped, as Darshan does. ".." is kept
 * (resolving it needs the filesystem: a symlink changes its meaning).
 *
 * Records live in an open-addressed table of FS_TRACE_FILES slots (slot 0
 * is "(other files)"), probed linearly for at most FS_PROBE_MAX slots from
 * a home slot of the tracer's choosing (the reader scans every slot), with
 * a private array of 4-byte tags in front so that a probe does not walk
 * the shared records (below). A slot is claimed FREE -> CLAIMING by
 * CAS, its path written, then READY with release; readers acquire-load the
 * state. Lock-free: a thread that finds a slot CLAIMING spins briefly (the
 * claimer is writing ~250 bytes), and gives up to record 0 if the claimer
 * never finishes (it was interrupted by the very signal handler now asking).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

#include "trace/trace.h"

#define FS_PROBE_MAX 256
#define FS_SPIN_MAX 100000
#define FS_EXCLUDE_MAX 32
#define FS_EXCLUDE_LEN 128

/* Paths whose I/O goes to record 0 instead of a record of their own: the
 * system and the interpreter's own modules, which would otherwise fill the
 * table before the job touches its data. Prefixes name a directory (itself
 * and everything under it); "*x" is a suffix, "*x*" a substring. */
static const char default_exclude[] =
	"/usr:/lib:/lib32:/lib64:/libx32:/bin:/sbin:/etc:/proc:/sys:/dev:/run:/boot:"
	"*/site-packages/*:*/dist-packages/*:*/__pycache__/*:*/lib/python3*:*.py:*.pyc:*.so";

/* The patterns, by kind, each with a 256-bit filter of the one character
 * every candidate must have (a prefix's second byte, a suffix's last, a
 * "/..." substring's second): most paths are rejected by a few bit tests. */
enum { EX_PREFIX, EX_SUFFIX, EX_SLASH_SUBSTR, EX_SUBSTR, EX_KINDS };
struct pattern {
	size_t len;
	char s[FS_EXCLUDE_LEN];
};
static struct {
	struct pattern p[FS_EXCLUDE_MAX];
	int n;
	uint64_t filter[4];
} exclude[EX_KINDS];

static void add_pattern(int kind, const char *s, size_t len)
{
	if (kind == EX_SUBSTR && s[0] == '/' && len > 1)
		kind = EX_SLASH_SUBSTR;
	if (len == 0 || len >= FS_EXCLUDE_LEN || exclude[kind].n == FS_EXCLUDE_MAX)
		return;
	struct pattern *p = &exclude[kind].p[exclude[kind].n++];
	memcpy(p->s, s, len);
	p->s[len] = '\0';
	p->len = len;
	unsigned char c = (unsigned char)(kind == EX_SUFFIX ? s[len - 1] : len > 1 ? s[1] : s[0]);
	if (kind == EX_SUBSTR)
		c = (unsigned char)s[0];
	exclude[kind].filter[c >> 6] |= 1ull << (c & 63);
}

static int in_filter(int kind, char ch)
{
	unsigned char c = (unsigned char)ch;
	return (exclude[kind].filter[c >> 6] >> (c & 63)) & 1;
}

static size_t page_bytes = 4096;

void fs_files_init(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	if (pg >= 4096)
		page_bytes = (size_t)pg;
	const char *spec = getenv("FEEDSCOPE_TRACE_EXCLUDE");
	if (!spec)
		spec = default_exclude;
	memset(exclude, 0, sizeof exclude);
	while (*spec) {
		const char *end = strchr(spec, ':');
		size_t n = end ? (size_t)(end - spec) : strlen(spec);
		const char *s = spec;
		size_t len = n;
		if (len > 0 && s[0] == '*') {
			s++, len--;
			if (len > 0 && s[len - 1] == '*')
				add_pattern(EX_SUBSTR, s, len - 1);
			else
				add_pattern(EX_SUFFIX, s, len);
		} else {
			while (len > 1 && s[len - 1] == '/')
				len--;
			add_pattern(EX_PREFIX, s, len);
		}
		spec += n + (end != NULL);
	}
}

static int same(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* Called for every path opened or stat'ed: no libc calls. */
static int excluded(const char *path, size_t n)
{
	if (n > 1 && in_filter(EX_PREFIX, path[1])) {
		for (int i = 0; i < exclude[EX_PREFIX].n; i++) {
			const struct pattern *p = &exclude[EX_PREFIX].p[i];
			if (p->len <= n && same(path, p->s, p->len) &&
			    (n == p->len || path[p->len] == '/' || p->s[p->len - 1] == '/'))
				return 1;
		}
	}
	if (in_filter(EX_SUFFIX, path[n - 1])) {
		for (int i = 0; i < exclude[EX_SUFFIX].n; i++) {
			const struct pattern *p = &exclude[EX_SUFFIX].p[i];
			if (p->len <= n && same(path + n - p->len, p->s, p->len))
				return 1;
		}
	}
	if (exclude[EX_SLASH_SUBSTR].n) {
		for (size_t k = 0; k + 1 < n; k++) {
			if (path[k] != '/' || !in_filter(EX_SLASH_SUBSTR, path[k + 1]))
				continue;
			for (int i = 0; i < exclude[EX_SLASH_SUBSTR].n; i++) {
				const struct pattern *p = &exclude[EX_SLASH_SUBSTR].p[i];
				if (k + p->len <= n && same(path + k, p->s, p->len))
					return 1;
			}
		}
	}
	for (int i = 0; i < exclude[EX_SUBSTR].n; i++) {
		const struct pattern *p = &exclude[EX_SUBSTR].p[i];
		for (size_t k = 0; k + p->len <= n; k++)
			if (path[k] == p->s[0] && same(path + k, p->s, p->len))
				return 1;
	}
	return 0;
}

/* An absolute path with no "//", no "." component and no trailing "/" is
 * its own normal form: no copy needed. */
static int is_clean(const char *p, size_t *len)
{
	size_t i = 0;
	for (; p[i]; i++) {
		if (p[i] != '/')
			continue;
		char c = p[i + 1];
		if (c == '/' || (c == '\0' && i > 0))
			return 0;
		if (c == '.' && (p[i + 2] == '/' || p[i + 2] == '\0'))
			return 0;
	}
	*len = i;
	return p[0] == '/';
}

/* Append the components of s[0..len) to out[0..n): skip empty and "."
 * components. Returns the new length, or -1 if it would not fit. */
static long append(char *out, long n, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && s[i] == '/')
			i++;
		size_t j = i;
		while (j < len && s[j] != '/')
			j++;
		size_t c = j - i;
		if (c == 0)
			break;
		if (!(c == 1 && s[i] == '.')) {
			if (n + 1 + (long)c >= FS_PATH_MAX)
				return -1;
			out[n++] = '/';
			memcpy(out + n, s + i, c);
			n += (long)c;
		}
		i = j;
	}
	return n;
}

long fs_path_join(const char *dir, size_t dir_len, const char *path, char *out)
{
	long n = 0;
	if (path[0] != '/' && dir) {
		n = append(out, 0, dir, dir_len);
		if (n < 0)
			return -1;
	}
	n = append(out, n, path, strlen(path));
	if (n < 0)
		return -1;
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return n;
}

static uint32_t wait_ready(struct fs_trace_file *f)
{
	uint32_t st = FS_TRACE_CLAIMING;
	for (int i = 0; i < FS_SPIN_MAX && st == FS_TRACE_CLAIMING; i++) {
#if defined(__x86_64__)
		__builtin_ia32_pause();
#endif
		st = __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
	}
	return st;
}

/* A word-at-a-time hash of the bytes a record keeps (the whole path unless
 * longer than FS_TRACE_PATH - 1) and the full length: where the record's
 * probe starts, and its tag. Computed from what the record holds, so that a
 * fork child can place the records it copies. */
static uint64_t place_hash(const char *tail, size_t tail_len, uint32_t len)
{
	uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull;
	size_t i = 0;
	for (; i + 8 <= tail_len; i += 8) {
		uint64_t w;
		memcpy(&w, tail + i, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	uint64_t w = 0;
	for (size_t k = 0; i + k < tail_len; k++)
		w |= (uint64_t)(unsigned char)tail[i + k] << (8 * k);
	h = (h ^ w) * 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

/* Private to this process, one per slot of its region: 0 while the slot is
 * free (as far as this process has seen), else the tag of the path in it.
 * A probe reads these 4 bytes instead of the record's ~500, and looks at a
 * record only when the tags match or the slot seems free. */
static uint32_t tags[FS_TRACE_FILES];

/* Private to this process: the pages of its region's records that are
 * backed (bit set), so that touching them cannot fault. A region file is
 * sparse but for its header and record 0 (trace.c); a record's pages are
 * backed with MADV_POPULATE_WRITE before anything reads or writes it,
 * which on a full filesystem fails (EFAULT) where a store would raise
 * SIGBUS. */
static uint64_t backed[(sizeof(struct fs_trace_region) / 4096 + 64) / 64];

static void mark_backed(size_t first, size_t last)
{
	for (size_t p = first; p <= last; p++)
		__atomic_fetch_or(&backed[p / 64], 1ull << (p % 64), __ATOMIC_RELAXED);
}

void fs_files_reset(void)
{
	for (int i = 0; i < FS_TRACE_FILES; i++)
		__atomic_store_n(&tags[i], 0, __ATOMIC_RELAXED);
	for (size_t i = 0; i < sizeof backed / sizeof backed[0]; i++)
		__atomic_store_n(&backed[i], 0, __ATOMIC_RELAXED);
	mark_backed(0, (FS_REGION_PREFIX - 1) / page_bytes);
}

/* Whether record idx of r may be touched: 1 once its pages are backed, 0
 * if they cannot be (no room left where the region lives). errno kept. */
static int backed_record(struct fs_trace_region *r, uint32_t idx)
{
	size_t at = offsetof(struct fs_trace_region, files) + (size_t)idx * sizeof(struct fs_trace_file);
	return fs_region_back(r, at, sizeof(struct fs_trace_file));
}

int fs_region_back(struct fs_trace_region *r, size_t at, size_t len)
{
	if (!fs.populate)
		return 1; /* the whole region was allocated at creation */
	size_t first = at / page_bytes, last = (at + len - 1) / page_bytes;
	int all = 1;
	for (size_t p = first; p <= last; p++)
		all &= (int)((__atomic_load_n(&backed[p / 64], __ATOMIC_RELAXED) >> (p % 64)) & 1);
	if (all)
		return 1;
	int saved = errno;
	int ok = madvise((char *)r + first * page_bytes, (last - first + 1) * page_bytes, MADV_POPULATE_WRITE) == 0;
	errno = saved;
	if (ok)
		mark_backed(first, last);
	return ok;
}

/* A path as the table sees it. FNV-1a (path_hash) is computed only when a
 * record is claimed, or to tell apart long paths that share their tail. */
struct key {
	const char *full;  /* the whole path, or NULL if hash is given */
	uint64_t hash;
	int have_hash;
	uint32_t len;
	const char *tail;
	size_t tail_len;
};

static uint64_t key_hash(struct key *k)
{
	if (!k->have_hash) {
		k->hash = fs_trace_hash(k->full, k->len);
		k->have_hash = 1;
	}
	return k->hash;
}

static int matches(const struct fs_trace_file *f, struct key *k)
{
	if (f->path_len != k->len || memcmp(f->path, k->tail, k->tail_len) != 0)
		return 0;
	/* a path longer than the record keeps: the full hash decides */
	return k->len < FS_TRACE_PATH - 1 || f->path_hash == key_hash(k);
}

static int find(struct fs_trace_region *r, struct key *k, int create)
{
	uint64_t ph = place_hash(k->tail, k->tail_len, k->len);
	uint32_t home = (uint32_t)(ph % (FS_TRACE_FILES - 1));
	uint32_t tag = (uint32_t)(ph >> 32) | 1;
	for (uint32_t i = 0; i < FS_PROBE_MAX; i++) {
		uint32_t idx = 1 + (home + i) % (FS_TRACE_FILES - 1);
		uint32_t t = __atomic_load_n(&tags[idx], __ATOMIC_RELAXED);
		if (t != 0 && t != tag)
			continue; /* another path's */
		if (t == 0 && !backed_record(r, idx)) { /* a slot not seen yet: back it first */
			__atomic_fetch_or(&r->blind, (uint64_t)FS_TRACE_BLIND_NO_SPACE, __ATOMIC_RELAXED);
			return 0;
		}
		struct fs_trace_file *f = &r->files[idx];
		uint32_t st = __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
		if (st == FS_TRACE_FREE) {
			if (!create)
				return 0;
			uint64_t hash = key_hash(k);
			if (__atomic_compare_exchange_n(&f->state, &st, FS_TRACE_CLAIMING, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
				f->path_len = k->len;
				f->path_hash = hash;
				memcpy(f->path, k->tail, k->tail_len);
				f->path[k->tail_len] = '\0';
				__atomic_fetch_add(&r->nfiles, 1, __ATOMIC_RELAXED);
				__atomic_store_n(&f->state, FS_TRACE_READY, __ATOMIC_RELEASE);
				/* the reader preads only the records marked here */
				__atomic_fetch_or(&r->used[idx / 64], 1ull << (idx % 64), __ATOMIC_RELAXED);
				__atomic_store_n(&tags[idx], tag, __ATOMIC_RELAXED);
				return (int)idx;
			}
			/* lost the race: st now holds the winner's state */
		}
		if (st == FS_TRACE_CLAIMING)
			st = wait_ready(f);
		if (st != FS_TRACE_READY)
			return 0;
		if (t == 0) /* claimed by another thread: learn its tag */
			__atomic_store_n(&tags[idx], (uint32_t)(place_hash(f->path, strlen(f->path), f->path_len) >> 32) | 1,
					 __ATOMIC_RELAXED);
		if (matches(f, k))
			return (int)idx;
	}
	if (create)
		__atomic_fetch_or(&r->blind, (uint64_t)FS_TRACE_BLIND_FILES_FULL, __ATOMIC_RELAXED);
	return 0;
}

/* only for the fork child's new region (fs_files_reset first) */
int fs_file_claim(struct fs_trace_region *r, uint64_t hash, uint32_t len, const char *tail,
		  size_t tail_len)
{
	struct key k = {NULL, hash, 1, len, tail, tail_len};
	return find(r, &k, 1);
}

static int lookup(const char *path, size_t n)
{
	if (excluded(path, n))
		return 0;
	size_t keep = n < FS_TRACE_PATH - 1 ? n : FS_TRACE_PATH - 1;
	struct key k = {path, 0, 0, (uint32_t)n, path + n - keep, keep};
	return find(fs.region, &k, 1);
}

int fs_file_abs(const char *path, size_t len)
{
	return lookup(path, len);
}

/* The directory's path into buf: its record's when complete, else the
 * kernel's name for the fd. Returns the length, or -1. */
static long dir_path(int dirfd, char *buf)
{
	if (dirfd == AT_FDCWD) {
		if (!getcwd(buf, FS_PATH_MAX))
			return -1;
		return (long)strlen(buf);
	}
	struct fs_fd *e = fs_fd_entry(dirfd);
	uint32_t rec = e ? __atomic_load_n(&e->rec, __ATOMIC_RELAXED) : 0;
	if (rec > FS_FD_REC) { /* a record of its own, not record 0 */
		struct fs_trace_file *f = &fs.region->files[rec - FS_FD_REC];
		if (f->path_len < FS_TRACE_PATH) {
			memcpy(buf, f->path, f->path_len + 1);
			return f->path_len;
		}
	}
	char link[32];
	fs_proc_fd_path(link, dirfd);
	ssize_t n = readlink(link, buf, FS_PATH_MAX - 1);
	if (n <= 0 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	return n;
}

int fs_file_at(int dirfd, const char *path)
{
	int saved = errno;
	char buf[FS_PATH_MAX];
	int rec = 0;
	long n;
	size_t clean_len;
	if (!fs_launder(path) || !path[0])
		return 0;
	if (is_clean(path, &clean_len)) {
		rec = lookup(path, clean_len);
		errno = saved;
		return rec;
	}
	if (path[0] == '/') {
		n = fs_path_join(NULL, 0, path, buf);
	} else {
		n = dir_path(dirfd, buf);
		if (n >= 0) {
			if (n == 1) /* "/" */
				n = 0;
			n = n < FS_PATH_MAX ? (long)append(buf, n, path, strlen(path)) : -1;
			if (n == 0)
				buf[n++] = '/';
			if (n > 0)
				buf[n] = '\0';
		}
	}
	if (n > 0)
		rec = lookup(buf, (size_t)n);
	errno = saved;
	return rec;
}
