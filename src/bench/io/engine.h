/* engine.h - how `bench` and `probe` read and write: psync (pread/pwrite),
 * io_uring (liburing, with a queue depth) and mmap, each with or without
 * O_DIRECT. One context per thread; requests are queued with submit() and
 * collected with reap(), so one loop serves every engine. Like fio's io
 * engines: one ops struct each, listed in one const array (engine.c). */
#ifndef FS_BENCH_ENGINE_H
#define FS_BENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fs_io_kind { FS_IO_READ, FS_IO_WRITE, FS_IO_FSYNC };

struct fs_io_req {
	enum fs_io_kind kind;
	int fd;
	void *buf;          /* 4096-aligned when the file is open with O_DIRECT */
	size_t len;
	uint64_t offset;
	void *user;         /* the caller's */
	int64_t result;     /* set by the engine: bytes, or -errno */
	uint64_t start_ns;  /* CLOCK_MONOTONIC at submit, set by the engine */
	uint64_t end_ns;    /* at completion */
};

struct fs_io_ctx;

#define FS_IO_ENGINE_ABI 1

struct fs_io_engine_ops {
	int abi;               /* FS_IO_ENGINE_ABI */
	const char *name;      /* "psync", "io_uring", "mmap" */
	bool supports_direct;  /* O_DIRECT makes sense (not for mmap) */
	bool queues;           /* more than one request in flight (io_uring) */
	/* A context for one thread with up to qd requests in flight (engines
	 * that do not queue run each request inside submit). Returns NULL with
	 * a reason in why. */
	struct fs_io_ctx *(*create)(unsigned qd, char *why, size_t whylen);
	/* Queue r. Returns 0, or -1 when qd requests are already in flight
	 * (reap first). The request must stay valid until reaped. */
	int (*submit)(struct fs_io_ctx *c, struct fs_io_req *r);
	/* Collect finished requests into done[max], waiting until at least
	 * min have finished (min is at most the number in flight). Returns how
	 * many, or -1 with errno on a failure of the engine itself. */
	int (*reap)(struct fs_io_ctx *c, struct fs_io_req **done, int max, int min);
	/* Requests submitted and not reaped yet. */
	unsigned (*inflight)(const struct fs_io_ctx *c);
	void (*destroy)(struct fs_io_ctx *c);
};

/* Every engine, NULL-terminated; and the one named name, or NULL. */
extern const struct fs_io_engine_ops *const fs_io_engines[];
const struct fs_io_engine_ops *fs_io_engine_find(const char *name);

/* open(2) for an engine: with O_DIRECT when direct (EINVAL from a file
 * system without it is reported in why). Returns the fd or -1. */
int fs_io_open(const char *path, int flags, int mode, bool direct, char *why, size_t whylen);

/* A buffer of len bytes aligned to 4096 (for O_DIRECT); from 2 MiB on
 * aligned to 2 MiB and in transparent huge pages where the kernel allows
 * them (fewer segments per request: engine.c). free() it. NULL on ENOMEM. */
void *fs_io_buf(size_t len);

#endif
