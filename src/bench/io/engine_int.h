/* engine_int.h - what the io engines share (not for their users): every
 * engine's private context starts with this header, so a struct fs_io_ctx *
 * handed out by one engine's create() is its own struct, cast back. */
#ifndef FS_BENCH_ENGINE_INT_H
#define FS_BENCH_ENGINE_INT_H

#include "bench/io/engine.h"

struct fs_io_ctx {
	const struct fs_io_engine_ops *ops;
	unsigned qd; /* most requests in flight at once */
};

extern const struct fs_io_engine_ops fs_io_psync;
extern const struct fs_io_engine_ops fs_io_uring;
extern const struct fs_io_engine_ops fs_io_mmap;

/* A fixed ring of finished requests waiting to be reaped (psync, mmap: they
 * run each request inside submit). */
struct fs_io_done_ring {
	struct fs_io_req **r;
	unsigned cap, head, n;
};

int fs_io_ring_init(struct fs_io_done_ring *q, unsigned cap);
void fs_io_ring_free(struct fs_io_done_ring *q);
/* Take up to max finished requests into done; returns how many. */
int fs_io_ring_take(struct fs_io_done_ring *q, struct fs_io_req **done, int max);

#endif
