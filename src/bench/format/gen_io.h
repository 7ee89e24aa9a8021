/* gen_io.h - what the dataset writers share: the two CRCs their formats
 * need, a seeded pseudo-random stream, and a buffered output that counts
 * bytes, runs the CRCs over what passes through it, and reports progress. */
#ifndef FS_BENCH_GEN_IO_H
#define FS_BENCH_GEN_IO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CRC-32 (zip, gzip: polynomial 0xEDB88320 reflected) and CRC-32C
 * (Castagnoli, 0x82F63B78 reflected; SSE4.2 when the CPU has it). Start
 * with crc = 0 and feed the previous result back to continue. */
uint32_t fs_crc32(uint32_t crc, const void *p, size_t n);
uint32_t fs_crc32c(uint32_t crc, const void *p, size_t n);

/* TFRecord's masked CRC-32C: ((crc >> 15) | (crc << 17)) + 0xa282ead8. */
uint32_t fs_crc32c_mask(uint32_t crc);

/* splitmix64: the next value of the stream *state. */
uint64_t fs_rng_next(uint64_t *state);

/* A stream seeded from (seed, a, b): independent streams per file and use. */
uint64_t fs_rng_seed(uint64_t seed, uint64_t a, uint64_t b);

/* A standard normal deviate (Box-Muller) from the stream. */
double fs_rng_normal(uint64_t *state);

/* A sample size: mean + stdev * N(0,1), rounded, at least 1. */
uint64_t fs_rng_size(uint64_t *state, uint64_t mean, uint64_t stdev);

struct fs_gen_out {
	int fd;
	uint8_t *buf;
	size_t used, cap;
	uint64_t pos;             /* bytes emitted so far: the offset of the next one */
	uint64_t rng;             /* the payload's random stream */
	uint32_t crc32, crc32c;   /* running over what passes while on */
	bool crc32_on, crc32c_on;
	int err;                  /* the first errno of a failed write, 0 if none */
	_Atomic uint64_t *done_bytes; /* progress counter (may be NULL) */
};

/* An output on fd with a buffer of cap bytes (owned by the caller) and a
 * payload stream seeded with rng. */
void fs_gen_out_init(struct fs_gen_out *o, int fd, uint8_t *buf, size_t cap, uint64_t rng,
		     _Atomic uint64_t *done_bytes);

void fs_gen_out_bytes(struct fs_gen_out *o, const void *p, size_t n);
void fs_gen_out_zeros(struct fs_gen_out *o, uint64_t n);
void fs_gen_out_random(struct fs_gen_out *o, uint64_t n);
void fs_gen_out_u32le(struct fs_gen_out *o, uint32_t v);
void fs_gen_out_u64le(struct fs_gen_out *o, uint64_t v);

/* Write out what is buffered. Returns 0, or -1 with o->err set. */
int fs_gen_out_flush(struct fs_gen_out *o);

/* Little-endian stores into a byte array. */
void fs_put_le16(uint8_t *p, uint16_t v);
void fs_put_le32(uint8_t *p, uint32_t v);
void fs_put_le64(uint8_t *p, uint64_t v);

#endif
