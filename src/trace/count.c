/* count.c - adding calls to the region's counters (see count.h). */
#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "trace/count.h"

FS_INLINE int fs_single(void)
{
#if defined(FS_HAVE_SINGLE_THREADED) && defined(__x86_64__) && !defined(FS_TRACE_ATOMIC_ONLY)
	return __libc_single_threaded;
#else
	return 0;
#endif
}

FS_INLINE void add(uint64_t *p, uint64_t v, int st)
{
#if defined(__x86_64__) && !defined(FS_TRACE_ATOMIC_ONLY)
	if (st) {
		__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(v));
		return;
	}
#endif
	(void)st;
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

FS_INLINE void raise_to(uint64_t *p, uint64_t v, int st)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
	if (st) {
		if (v > cur)
			__atomic_store_n(p, v, __ATOMIC_RELAXED);
		return;
	}
	while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* first: set once; last: the latest end seen (a racing thread may store a
 * value a few ns older; never 0). */
FS_INLINE void stamp_at(uint64_t *first, uint64_t *last, uint64_t t0, uint64_t t1)
{
	if (FS_UNLIKELY(__atomic_load_n(first, __ATOMIC_RELAXED) == 0)) {
		uint64_t zero = 0;
		__atomic_compare_exchange_n(first, &zero, t0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
	if (t1 > __atomic_load_n(last, __ATOMIC_RELAXED))
		__atomic_store_n(last, t1, __ATOMIC_RELAXED);
}

FS_INLINE void stamp(struct fs_trace_file *f, uint64_t t0, uint64_t t1)
{
	stamp_at(&f->first, &f->last, t0, t1);
}

__thread uint32_t fs_tls_thread __attribute__((tls_model("initial-exec")));

uint32_t fs_thread_learn(void)
{
	int saved = errno;
	int32_t tid = (int32_t)syscall(SYS_gettid);
	errno = saved;
	struct fs_trace_region *R = fs.region;
	int32_t pid = R ? __atomic_load_n(&R->pid, __ATOMIC_RELAXED) : (int32_t)getpid();
	fs_tls_thread = 1u + (uint32_t)(tid == pid ? FS_TRACE_MAIN : FS_TRACE_OTHER_THREADS);
	return fs_tls_thread;
}

/* The class counters of one call: `sync` is fsync-like (op FSYNC). */
FS_INLINE void class_data(struct fs_trace_class *k, int op, uint64_t dt, uint64_t n, unsigned flags, int st)
{
	if (flags & FS_C_NOCLASS) { /* sendfile's destination: its time and call are the source's */
		add(&k->write_bytes, n, st);
		return;
	}
	if (op == FS_TRACE_OP_READ) {
		add(&k->read_time, dt, st);
		add(&k->read_bytes, n, st);
	} else if (op == FS_TRACE_OP_WRITE) {
		add(&k->write_time, dt, st);
		add(&k->write_bytes, n, st);
	} else {
		add(&k->sync_time, dt, st);
	}
	add(&k->calls, 1, st);
}

static int32_t gettid_cached(void)
{
	static __thread int32_t tid __attribute__((tls_model("initial-exec")));
	static __thread int32_t tid_pid __attribute__((tls_model("initial-exec")));
	int32_t pid = __atomic_load_n(&fs.region->pid, __ATOMIC_RELAXED);
	if (tid == 0 || tid_pid != pid) { /* a fork child's thread has a new tid */
		tid = (int32_t)syscall(SYS_gettid);
		tid_pid = pid;
	}
	return tid;
}

/* One entry of the --trace-ops ring: seq is cleared, the fields written
 * (release stores: none can become visible before the cleared seq; plain
 * moves on x86), then seq = position + 1 (release). A reader copies an
 * entry and keeps it if seq read before and after the copy (acquire) is
 * position + 1 both times. */
static void op_log(int rec, int op, int layer, uint64_t t0, uint64_t t1, int64_t off,
		   uint64_t asked, int64_t ret)
{
	struct fs_trace_region *R = fs.region;
	uint64_t pos = __atomic_fetch_add(&R->ops_head, 1, __ATOMIC_RELAXED);
	struct fs_trace_op *o = &R->ops[pos % FS_TRACE_OPS];
	__atomic_store_n(&o->seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&o->start, t0, __ATOMIC_RELEASE);
	__atomic_store_n(&o->duration, t1 - t0, __ATOMIC_RELEASE);
	__atomic_store_n(&o->offset, off, __ATOMIC_RELEASE);
	__atomic_store_n(&o->length, asked, __ATOMIC_RELEASE);
	__atomic_store_n(&o->result, ret, __ATOMIC_RELEASE);
	__atomic_store_n(&o->tid, gettid_cached(), __ATOMIC_RELEASE);
	__atomic_store_n(&o->file, (uint16_t)rec, __ATOMIC_RELEASE);
	__atomic_store_n(&o->op, (uint8_t)op, __ATOMIC_RELEASE);
	__atomic_store_n(&o->layer, (uint8_t)layer, __ATOMIC_RELEASE);
	__atomic_store_n(&o->seq, pos + 1, __ATOMIC_RELEASE);
}

FS_INLINE void data(int rec, struct fs_fd *e, int op, int64_t off, int64_t ret, uint64_t asked,
		    uint64_t t0, uint64_t t1, unsigned flags, int layer, int st)
{
	struct fs_trace_region *R = fs.region;
	struct fs_trace_file *f = &R->files[rec];
	uint64_t dt = t1 - t0;
	int ok = ret >= 0;
	uint64_t n = ok ? (uint64_t)ret : 0;
	int th = fs_thread_kind();

	class_data(&R->cls[th][fs_fd_cls(e)], op, dt, n, flags, st);

	if (op == FS_TRACE_OP_READ) {
		add(&f->read_time, dt, st);
		if (ok) {
			add(&f->reads, 1, st);
			add(&f->read_bytes, n, st);
			add(&f->hist[fs_hist_bucket(n)], 1, st);
			add(&R->read_bytes, n, st);
			if (off >= 0) {
				/* Darshan: sequential = starts at or after the previous
				 * read's end; consecutive = exactly at it */
				int64_t *prev = &fs_last_end[rec];
				int64_t p = __atomic_load_n(prev, __ATOMIC_RELAXED);
				if (p >= 0 && off >= p) {
					add(&f->seq_reads, 1, st);
					if (off == p)
						add(&f->consec_reads, 1, st);
				}
				__atomic_store_n(prev, off + (int64_t)n, __ATOMIC_RELAXED);
			}
		}
	} else if (op == FS_TRACE_OP_WRITE) {
		add(&f->write_time, dt, st);
		if (th == FS_TRACE_MAIN)
			add(&f->main_write_time, dt, st);
		if (ok) {
			add(&f->writes, 1, st);
			add(&f->write_bytes, n, st);
			add(&f->hist[fs_hist_bucket(n)], 1, st);
			add(&R->write_bytes, n, st);
		}
	} else { /* fsync, fdatasync, msync: write time, as Darshan, and sync time */
		add(&f->write_time, dt, st);
		add(&f->sync_time, dt, st);
		if (th == FS_TRACE_MAIN) {
			add(&f->main_write_time, dt, st);
			add(&f->main_sync_time, dt, st);
		}
		if (ok)
			add(&f->fsyncs, 1, st);
	}
	if (ok && off >= 0 && n > 0)
		raise_to(&f->max_offset, (uint64_t)off + n, st);
	if (ok && e && (flags & FS_C_ADVANCE))
		__atomic_store_n(&e->off, off >= 0 ? off + (int64_t)n : -1, __ATOMIC_RELAXED);
	if (layer == FS_STDIO)
		add(&f->stdio_ops, 1, st);
	stamp(f, t0, t1);
	if (!(flags & FS_C_NOPROC)) {
		add(&R->io_time, dt, st);
		add(&R->data_ops, 1, st);
	}
	if (FS_UNLIKELY(fs.ops))
		op_log(rec, op, layer, t0, t1, off, asked, ret);
}

void fs_count_data(int rec, struct fs_fd *e, int op, int64_t off, int64_t ret, uint64_t asked,
		   uint64_t t0, uint64_t t1, unsigned flags, int layer)
{
	if (fs_single())
		data(rec, e, op, off, ret, asked, t0, t1, flags, layer, 1);
	else
		data(rec, e, op, off, ret, asked, t0, t1, flags, layer, 0);
}

FS_INLINE void meta(int rec, int cls, int op, enum fs_meta_counter counter, int ok, uint64_t t0,
		    uint64_t t1, int64_t off, int64_t ret, int layer, int st)
{
	struct fs_trace_region *R = fs.region;
	struct fs_trace_file *f = &R->files[rec];
	uint64_t dt = t1 - t0;
	int th = fs_thread_kind();
	struct fs_trace_class *k = &R->cls[th][cls];
	add(&k->meta_time, dt, st);
	add(&k->calls, 1, st);
	if (th == FS_TRACE_MAIN)
		add(&f->main_meta_time, dt, st);
	add(&f->meta_time, dt, st);
	add(&f->meta_ops, 1, st);
	if (ok) {
		switch (counter) {
		case FS_M_OPENS: add(&f->opens, 1, st); break;
		case FS_M_STATS: add(&f->stats, 1, st); break;
		case FS_M_SEEKS: add(&f->seeks, 1, st); break;
		case FS_M_MMAPS: add(&f->mmaps, 1, st); break;
		case FS_M_NONE: break;
		}
	}
	if (layer == FS_STDIO)
		add(&f->stdio_ops, 1, st);
	stamp(f, t0, t1);
	add(&R->io_time, dt, st);
	add(&R->meta_ops, 1, st);
	if (FS_UNLIKELY(fs.ops))
		op_log(rec, op, layer, t0, t1, off, 0, ret);
}

void fs_count_meta(int rec, int cls, int op, enum fs_meta_counter counter, int ok, uint64_t t0,
		   uint64_t t1, int64_t off, int64_t ret, int layer)
{
	if (fs_single())
		meta(rec, cls, op, counter, ok, t0, t1, off, ret, layer, 1);
	else
		meta(rec, cls, op, counter, ok, t0, t1, off, ret, layer, 0);
}

void fs_count_class(int cls, int op, int64_t ret, uint64_t t0, uint64_t t1, unsigned flags)
{
	struct fs_trace_region *R = fs.region;
	int st = fs_single();
	struct fs_trace_class *k = &R->cls[fs_thread_kind()][cls];
	uint64_t dt = t1 - t0, n = ret > 0 ? (uint64_t)ret : 0;
	if (op == FS_TRACE_OP_CLOSE) {
		add(&k->meta_time, dt, st);
		add(&k->calls, 1, st);
	} else {
		class_data(k, op, dt, n, flags, st);
	}
}

void fs_count_peer(struct fs_fd *e, int fd, int op, int64_t ret, uint64_t t0, uint64_t t1, unsigned flags)
{
	uint32_t fl = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	int i = FS_LIKELY(fl & FS_FD_PEER_MASK) ? (int)(fl >> FS_FD_PEER_SHIFT) - 1 : fs_peer_of(e, fd, ret >= 0);
	if (i < 0)
		return;
	struct fs_trace_peer *p = &fs.region->peers[i];
	struct fs_trace_peer_count *k = &p->cnt[fs_thread_kind()];
	int st = fs_single();
	uint64_t n = ret > 0 ? (uint64_t)ret : 0;
	if (flags & FS_C_NOCLASS) { /* sendfile's destination: time and call are the source's */
		add(&k->write_bytes, n, st);
		return;
	}
	if (op == FS_TRACE_OP_READ) {
		add(&k->read_time, t1 - t0, st);
		add(&k->read_bytes, n, st);
	} else {
		add(&k->write_time, t1 - t0, st);
		add(&k->write_bytes, n, st);
	}
	add(&k->calls, 1, st);
	stamp_at(&p->first, &p->last, t0, t1);
}
