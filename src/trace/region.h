/* region.h - the shared-memory region through which the I/O tracer
 * (libfeedscope-trace.so, inside every job process) hands its counters to
 * the recorder. Both sides include this header; it is the format's one
 * definition (docs/tracer.md).
 *
 * One region per process image: the tracer creates
 *   $FEEDSCOPE_TRACE_DIR/<pid>          (or <pid>.1, <pid>.2 after exec)
 * with O_CREAT|O_EXCL, mode 0400, sizes it, allocates the blocks of the
 * header and record 0 (posix_fallocate; the op ring's too with
 * --trace-ops), maps it MAP_SHARED and closes the file: the job's
 * descriptors are never touched
 * after start-up, and the counters are in shared memory as soon as they are
 * counted, so nothing is lost when a process leaves through _exit() (Python
 * DataLoader workers), is killed, or when feedscope is gone. The op ring is
 * part of the file only with --trace-ops (fs_trace_region_size). The pages
 * of the other records are backed as records are claimed
 * (MADV_POPULATE_WRITE, which fails instead of raising SIGBUS): a process
 * costs the pages it uses (4 KiB for one that opens nothing), and a full
 * /dev/shm is an error the tracer sees, never a fault in the job.
 *
 * When the region cannot be made, the tracer leaves an empty marker file
 *   $FEEDSCOPE_TRACE_DIR/untraced.<pid>.<stage>.<errno>
 * (no blocks needed) and stays off in that process.
 *
 * The recorder never maps a region: it opens it, unlinks its name (so that
 * nothing in the job can find it any more), and reads what it needs with
 * pread into private copies, so a region truncated or replaced under it
 * cannot fault it. Once the process is gone it reads the region a last
 * time and closes it, which frees it.
 *
 * Counters only grow and are updated with relaxed atomic adds (the reader
 * tolerates a counter read a moment before another). Times are in the
 * region's clock units (clock_kind): TSC ticks on x86-64 (the recorder
 * converts them with its own measurement of the TSC rate, anchored at
 * tsc0/mono0_ns), else nanoseconds of CLOCK_MONOTONIC.
 */
#ifndef FS_TRACE_REGION_H
#define FS_TRACE_REGION_H

#include <stddef.h>
#include <stdint.h>

#define FS_TRACE_MAGIC 0x52545346u /* "FSTR" */
#define FS_TRACE_VERSION 4
#define FS_TRACE_FILES 1024        /* file records per process image */
#define FS_TRACE_PATH 232          /* path bytes kept (longer: the tail, and the full hash) */
#define FS_TRACE_HIST 16           /* access sizes: bucket i holds [2^(i+8), 2^(i+9)) bytes; 0 is < 512, 15 is >= 8 MiB */
#define FS_TRACE_OPS 8192          /* per-operation ring (only with --trace-ops) */
#define FS_TRACE_PEERS 256         /* socket endpoint pairs per process image; entry 0 is "(other peers)" */
#define FS_TRACE_PEERS_EXACT 192   /* entries one pair of exact endpoints may claim; the rest are kept
                                    * for pairs folded over their local port (many short connections) */
#define FS_TRACE_ADDR 56           /* address bytes kept: IPv4 4, IPv6 16, a Unix path its first 55 */

enum fs_trace_clock { FS_TRACE_CLOCK_NS = 0, FS_TRACE_CLOCK_TSC = 1 };

/* What a descriptor is, from fstat's st_mode when it was opened or first
 * used (a directory is a file here; a block device is a device even though
 * it also has a file record). Calls on paths (stat, access, a failed open)
 * are FS_TRACE_CLASS_FILE. */
enum fs_trace_class_id {
	FS_TRACE_CLASS_FILE = 0,   /* regular file or directory */
	FS_TRACE_CLASS_SOCKET = 1,
	FS_TRACE_CLASS_PIPE = 2,   /* pipe or FIFO */
	FS_TRACE_CLASS_DEVICE = 3, /* character or block device */
	FS_TRACE_CLASS_OTHER = 4,  /* eventfd, epoll, timerfd, inotify... */
	FS_TRACE_CLASSES = 5
};
/* Which threads: the process's main thread (tid == pid) or any other. */
enum { FS_TRACE_MAIN = 0, FS_TRACE_OTHER_THREADS = 1, FS_TRACE_THREADS = 2 };

/* Time and bytes of one (thread kind, descriptor class) in a process.
 * Times are exclusive: read_time covers read-like calls (read, pread,
 * readv, recv*, the source of sendfile), write_time write-like ones
 * (write, pwrite, writev, send*), sync_time fsync/fdatasync/msync,
 * meta_time metadata calls (open, close, stat, seek, mmap, readdir...). */
struct fs_trace_class {
	uint64_t read_time, read_bytes, write_time, write_bytes, sync_time, meta_time;
	uint64_t calls;            /* every call counted above, failed ones too */
};

/* Blind spots the tracer noticed (flags in region.blind). */
enum {
	FS_TRACE_BLIND_IO_URING = 1u << 0,  /* io_uring_setup was called: its I/O is not seen */
	FS_TRACE_BLIND_FILES_FULL = 1u << 1, /* more than FS_TRACE_FILES files: the rest in record 0 */
	FS_TRACE_BLIND_OPS_LOST = 1u << 2,  /* the op ring wrapped before the recorder read it */
	FS_TRACE_BLIND_NO_SPACE = 1u << 3,  /* no room to back more records: the rest in record 0 */
	FS_TRACE_BLIND_PEERS_FULL = 1u << 4, /* more endpoint pairs than entries: the rest in peer entry 0 */
};

/* A socket's address family as the peers table keeps it. An IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d, a dual-stack socket) is kept as IPv4, so
 * that both ends of one connection name it alike. */
enum fs_trace_family {
	FS_TRACE_FAM_NONE = 0,  /* unknown, or no peer (a datagram socket never connected) */
	FS_TRACE_FAM_INET = 1,
	FS_TRACE_FAM_INET6 = 2,
	FS_TRACE_FAM_UNIX = 3,  /* addr: the path, "@name" if abstract; addr_len 0: unnamed */
	FS_TRACE_FAM_OTHER = 4, /* netlink, packet, vsock...: no address kept */
};

/* One end of a connection: address (network byte order for IP) and port
 * (host order; 0 for Unix and, in a folded entry, for the varying end). */
struct fs_trace_endpoint {
	uint8_t family;            /* enum fs_trace_family */
	uint8_t pad;
	uint16_t port;
	uint32_t addr_len;         /* bytes of addr in use */
	uint8_t addr[FS_TRACE_ADDR];
};

/* What an entry of the peers table is. */
enum fs_trace_peer_kind {
	FS_TRACE_PEER_CONNECTED = 1, /* (local, peer) of sockets the job did I/O on */
	FS_TRACE_PEER_FOLDED = 2,    /* the same over every local port (local.port 0), or for an accepted
	                              * socket every peer port (peer.port 0): the table was filling */
	FS_TRACE_PEER_LISTEN = 3,    /* a socket the job listen()ed on (local only; no counters) */
};

/* Per thread kind, the data calls on sockets of one endpoint pair. */
struct fs_trace_peer_count {
	uint64_t read_bytes, write_bytes, read_time, write_time;
	uint64_t calls;            /* read- and write-like calls, failed ones too */
};

/* One (local endpoint, peer endpoint) of a process image. Claimed like a
 * file record (CAS FREE -> CLAIMING, key written, READY with release).
 * Entry 0 is "(other peers)": pairs that found no room, and sockets whose
 * endpoints could not be read. */
struct fs_trace_peer {
	/* what every call writes first, on a cache line of its own: a call
	 * from the main thread touches one line of the entry */
	_Alignas(64) uint64_t first; /* clock at the first call (0: none yet) */
	uint64_t last;             /* and at the end of the latest */
	struct fs_trace_peer_count cnt[2]; /* [FS_TRACE_MAIN], [FS_TRACE_OTHER_THREADS] */
	uint32_t state;            /* enum fs_trace_file_state */
	uint32_t kind;             /* enum fs_trace_peer_kind */
	uint64_t hash;             /* FNV-1a of local and peer */
	struct fs_trace_endpoint local, peer;
};

enum fs_trace_file_state { FS_TRACE_FREE = 0, FS_TRACE_CLAIMING = 1, FS_TRACE_READY = 2 };

/* Counters of one (process image, file). Record 0 is "(other files)": what
 * did not fit, excluded paths (the system's and the interpreter's own files,
 * FEEDSCOPE_TRACE_EXCLUDE), failed calls on paths, and I/O on descriptors
 * whose path is unknown. */
struct fs_trace_file {
	uint32_t state;            /* enum fs_trace_file_state; READY once path is written */
	uint32_t path_len;         /* the full path's length */
	uint64_t path_hash;        /* FNV-1a 64 of the full path */
	char path[FS_TRACE_PATH];  /* NUL-terminated; its last bytes when longer */
	uint64_t opens, reads, read_bytes, writes, write_bytes, seeks, stats, mmaps, fsyncs;
	uint64_t meta_ops;         /* metadata calls, failed ones too (open, close, stat, seek,
	                            * mmap, directory reads...): the calls meta_time covers */
	uint64_t seq_reads;        /* reads starting at or after the previous read's end (Darshan) */
	uint64_t consec_reads;     /* reads starting exactly at it (a subset of seq_reads) */
	uint64_t max_offset;       /* highest byte offset read or written + 1 */
	uint64_t read_time, write_time, meta_time; /* clock units inside those calls */
	uint64_t first, last;      /* clock at the first and last access (0: none yet) */
	uint64_t stdio_ops;        /* of the above, calls made through stdio (fread/fwrite/...) */
	uint64_t hist[FS_TRACE_HIST]; /* read and write sizes */
	uint64_t sync_time;        /* of write_time, inside fsync/fdatasync/msync */
	uint64_t main_write_time;  /* of write_time, the main thread's (tid == pid) */
	uint64_t main_sync_time;   /* of sync_time, the main thread's */
	uint64_t main_meta_time;   /* of meta_time, the main thread's (open, close...) */
};

/* One operation (--trace-ops). seq is written last: an entry is complete
 * when seq equals its position + 1. */
struct fs_trace_op {
	uint64_t seq;
	uint64_t start, duration;  /* clock units */
	int64_t offset;            /* where it started (read/write: the tracked file offset); -1: none or unknown */
	uint64_t length;           /* bytes asked for */
	int64_t result;            /* what the call returned */
	int32_t tid;
	uint16_t file;             /* record index */
	uint8_t op;                /* enum fs_trace_op_kind */
	uint8_t layer;             /* 0 POSIX, 1 stdio */
};

enum fs_trace_op_kind {
	FS_TRACE_OP_READ = 1, FS_TRACE_OP_WRITE, FS_TRACE_OP_OPEN, FS_TRACE_OP_CLOSE, FS_TRACE_OP_STAT,
	FS_TRACE_OP_SEEK, FS_TRACE_OP_FSYNC, FS_TRACE_OP_MMAP, FS_TRACE_OP_OTHER,
};

/* The region's header: everything before the file records. Spelled once
 * (FS_TRACE_HEAD_FIELDS) for both the region and the reader's private copy
 * of the header (struct fs_trace_head: one pread of its size at offset 0). */
#define FS_TRACE_HEAD_FIELDS \
	uint32_t magic;            /* FS_TRACE_MAGIC, written last at creation */ \
	uint32_t version;          /* FS_TRACE_VERSION */ \
	int32_t pid, ppid; \
	uint32_t clock_kind;       /* enum fs_trace_clock */ \
	uint32_t ops_enabled;      /* --trace-ops: the file holds the op ring */ \
	uint64_t tsc0, mono0_ns;   /* the clock and CLOCK_MONOTONIC read together at creation */ \
	char exe[128];             /* /proc/self/exe's tail at creation */ \
	/* per process: cumulative */ \
	uint64_t io_time;          /* clock units inside intercepted I/O calls (all threads) */ \
	uint64_t read_bytes, write_bytes; \
	uint64_t data_ops, meta_ops; /* read/write-like calls and fsyncs; open/stat/close/seek-like calls */ \
	uint64_t blind;            /* FS_TRACE_BLIND_* */ \
	uint32_t nfiles;           /* records in use, record 0 included */ \
	uint32_t npeers;           /* peer entries claimed (entry 0 not counted) */ \
	uint64_t ops_head;         /* next op position (mod FS_TRACE_OPS) */ \
	uint64_t used[FS_TRACE_FILES / 64]; /* bit i: record i was claimed (set once READY) */ \
	/* per process, cumulative: every descriptor class, sockets and pipes \
	 * included (io_time and the totals above are file records only) */ \
	struct fs_trace_class cls[FS_TRACE_THREADS][FS_TRACE_CLASSES];

struct fs_trace_head {
	FS_TRACE_HEAD_FIELDS
};

struct fs_trace_region {
	FS_TRACE_HEAD_FIELDS
	struct fs_trace_file files[FS_TRACE_FILES];
	struct fs_trace_peer peers[FS_TRACE_PEERS]; /* sparse: a page is backed when an entry in it is claimed */
	struct fs_trace_op ops[FS_TRACE_OPS]; /* in the file only when ops_enabled */
};

_Static_assert(sizeof(struct fs_trace_head) == offsetof(struct fs_trace_region, files),
	       "the header copy is the region's first bytes");
_Static_assert(offsetof(struct fs_trace_head, used) == offsetof(struct fs_trace_region, used),
	       "one header layout");
_Static_assert(sizeof(struct fs_trace_peer) == 256, "a peers entry is 4 cache lines");


/* Bytes of a region file: the op ring only with --trace-ops (about 625 KiB
 * without, 1.05 MiB with). */
static inline size_t fs_trace_region_size(int ops_enabled)
{
	return ops_enabled ? sizeof(struct fs_trace_region) : offsetof(struct fs_trace_region, ops);
}

/* A process image whose region could not be made leaves an empty file
 * "untraced.<pid>.<stage>.<errno>", stage one of these. */
#define FS_TRACE_UNTRACED_PREFIX "untraced."
#define FS_TRACE_STAGE_CREATE "create" /* the file could not be created */
#define FS_TRACE_STAGE_SPACE "space"   /* its blocks could not be allocated */
#define FS_TRACE_STAGE_MAP "map"       /* it could not be mapped */

/* FNV-1a, 64 bits: the path hash (also what --hash-paths stores). */
static inline uint64_t fs_trace_hash(const char *s, uint64_t len)
{
	uint64_t h = 14695981039346656037ull; /* the FNV-1a 64 offset basis */
	for (uint64_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

#endif
