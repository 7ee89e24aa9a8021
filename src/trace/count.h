/* count.h - adding one intercepted call to the region's counters.
 *
 * The wrappers time the real call and hand it here. Counters only grow; the
 * recorder reads them while they grow. While the process has one thread
 * (glibc's __libc_single_threaded) a counter is bumped by one non-locked
 * add instruction: exact (no other thread, and a signal handler cannot
 * split one instruction) and ~15x cheaper than a locked add. Once a second
 * thread exists, every add is a relaxed atomic fetch-add.
 */
#ifndef FS_TRACE_COUNT_H
#define FS_TRACE_COUNT_H

#include "trace/trace.h"

enum fs_layer { FS_POSIX = 0, FS_STDIO = 1 };

/* Which success counter of the record a metadata call bumps. */
enum fs_meta_counter { FS_M_NONE, FS_M_OPENS, FS_M_STATS, FS_M_SEEKS, FS_M_MMAPS };

/* flags of fs_count_data */
enum {
	FS_C_ADVANCE = 1u << 0, /* the call used and moves the fd's offset (read, write) */
	FS_C_NOPROC = 1u << 1,  /* second half of a two-file call (sendfile): the process
	                         * totals already have its time and op */
	FS_C_NOCLASS = 1u << 2, /* second half of a two-descriptor call: the class counters
	                         * already have its time and call (bytes still count) */
};

/* One read-like (op FS_TRACE_OP_READ), write-like (FS_TRACE_OP_WRITE) or
 * fsync/msync (FS_TRACE_OP_FSYNC) call on record `rec`, through fd entry
 * `e` (NULL: none; its class is then FILE); also counted in the class
 * counters of e's class and this thread's kind (main or other). `off`: where it started (-1: unknown); `ret`: what it
 * returned (bytes, or < 0: failed); `asked`: bytes asked for. */
void fs_count_data(int rec, struct fs_fd *e, int op, int64_t off, int64_t ret, uint64_t asked,
		   uint64_t t0, uint64_t t1, unsigned flags, int layer);

/* One metadata call on record `rec` through a descriptor of class `cls`
 * (enum fs_trace_class_id; FILE for calls on paths): time, meta_ops, and
 * `counter` if ok. */
void fs_count_meta(int rec, int cls, int op, enum fs_meta_counter counter, int ok, uint64_t t0,
		   uint64_t t1, int64_t off, int64_t ret, int layer);

/* One call on a descriptor with no file record (socket, pipe, device,
 * other: class `cls`): only the class counters (and no op ring entry).
 * op: FS_TRACE_OP_READ, _WRITE, _FSYNC or _CLOSE; ret: bytes, or < 0;
 * flags: FS_C_NOPROC for the second half of a two-descriptor call. */
void fs_count_class(int cls, int op, int64_t ret, uint64_t t0, uint64_t t1, unsigned flags);

/* One read- or write-like call (op FS_TRACE_OP_READ or _WRITE) on socket
 * fd (entry e) in its endpoint pair's entry of the peers table (peers.c
 * finds it, once per socket); flags: FS_C_NOCLASS as above. errno kept. */
void fs_count_peer(struct fs_fd *e, int fd, int op, int64_t ret, uint64_t t0, uint64_t t1, unsigned flags);

/* A data call on a descriptor with no file record, through entry e: its
 * class counters, and for a socket its peers entry too (a pipe or device
 * pays one comparison more). */
FS_INLINE void fs_count_nofile(struct fs_fd *e, int fd, int op, int64_t ret, uint64_t t0, uint64_t t1,
			       unsigned flags)
{
	int cls = fs_fd_cls(e);
	fs_count_class(cls, op, ret, t0, t1, flags);
	if (cls == FS_TRACE_CLASS_SOCKET && (op == FS_TRACE_OP_READ || op == FS_TRACE_OP_WRITE))
		fs_count_peer(e, fd, op, ret, t0, t1, flags);
}

/* The size histogram's bucket: 0 below 512 bytes, then one per power of
 * two ([2^(i+8), 2^(i+9)) in bucket i), the last one open-ended. */
FS_INLINE int fs_hist_bucket(uint64_t bytes)
{
	if (bytes < 512)
		return 0;
	int b = 63 - __builtin_clzll(bytes) - 8;
	return b < FS_TRACE_HIST ? b : FS_TRACE_HIST - 1;
}

#endif
