/* gen_io.c - CRCs, random streams and the buffered output of the dataset
 * writers (gen_io.h). */
#include "bench/format/gen_io.h"
#include "bench/format/gen_int.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* ---- CRC-32 and CRC-32C, table-driven eight bytes at a time ---- */

static uint32_t tab32[8][256], tab32c[8][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static bool have_sse42;

static void make_table(uint32_t t[8][256], uint32_t poly)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
		t[0][i] = c;
	}
	for (int s = 1; s < 8; s++)
		for (uint32_t i = 0; i < 256; i++)
			t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
}

static void make_tables(void)
{
	make_table(tab32, 0xEDB88320u);
	make_table(tab32c, 0x82F63B78u);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

/* c is the raw (inverted) register. */
static uint32_t crc_soft(uint32_t t[8][256], uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		v = __builtin_bswap64(v);
#endif
		v ^= c;
		c = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^
		    t[4][(v >> 24) & 0xff] ^ t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^
		    t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
	return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t fs_crc32(uint32_t crc, const void *p, size_t n)
{
	pthread_once(&tables_once, make_tables);
	return ~crc_soft(tab32, ~crc, p, n);
}

uint32_t fs_crc32c(uint32_t crc, const void *p, size_t n)
{
	pthread_once(&tables_once, make_tables);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (have_sse42)
		return ~crc32c_hw(~crc, p, n);
#endif
	return ~crc_soft(tab32c, ~crc, p, n);
}

uint32_t fs_crc32c_mask(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* ---- random streams ---- */

uint64_t fs_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t fs_rng_seed(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t s = seed;
	uint64_t x = fs_rng_next(&s) ^ a;
	x = fs_rng_next(&x) ^ b;
	return fs_rng_next(&x);
}

double fs_rng_normal(uint64_t *state)
{
	/* uniforms in (0, 1]: 53 random bits, never 0 (log) */
	double u1 = ((double)(fs_rng_next(state) >> 11) + 1.0) / 9007199254740992.0;
	double u2 = (double)(fs_rng_next(state) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t fs_rng_size(uint64_t *state, uint64_t mean, uint64_t stdev)
{
	if (stdev == 0)
		return mean ? mean : 1;
	double x = (double)mean + (double)stdev * fs_rng_normal(state);
	if (!(x >= 1.0))
		return 1;
	if (x >= 9.2e18) /* beyond llround's range; the workload's bounds keep sizes far below */
		return INT64_MAX;
	return (uint64_t)llround(x);
}

/* ---- buffered output ---- */

void fs_gen_out_init(struct fs_gen_out *o, int fd, uint8_t *buf, size_t cap, uint64_t rng,
		     _Atomic uint64_t *done_bytes)
{
	memset(o, 0, sizeof *o);
	o->fd = fd;
	o->buf = buf;
	o->cap = cap;
	o->rng = rng;
	o->done_bytes = done_bytes;
}

int fs_gen_out_flush(struct fs_gen_out *o)
{
	size_t off = 0;
	if (fs_gen_interrupted && !o->err) /* Ctrl-C: stop within one buffer, not after the file */
		o->err = EINTR;
	while (off < o->used && !o->err) {
		ssize_t w = write(o->fd, o->buf + off, o->used - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->err = w < 0 ? errno : EIO;
		else
			off += (size_t)w;
	}
	if (o->done_bytes)
		atomic_fetch_add_explicit(o->done_bytes, o->used, memory_order_relaxed);
	o->used = 0;
	return o->err ? -1 : 0;
}

/* Account for n bytes just placed at buf + used. */
static void passed(struct fs_gen_out *o, size_t n)
{
	const uint8_t *p = o->buf + o->used;
	if (o->crc32_on)
		o->crc32 = fs_crc32(o->crc32, p, n);
	if (o->crc32c_on)
		o->crc32c = fs_crc32c(o->crc32c, p, n);
	o->used += n;
	o->pos += n;
}

static size_t room(struct fs_gen_out *o)
{
	if (o->used == o->cap)
		fs_gen_out_flush(o);
	return o->cap - o->used;
}

void fs_gen_out_bytes(struct fs_gen_out *o, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n && !o->err) {
		size_t k = room(o);
		if (k > n)
			k = n;
		memcpy(o->buf + o->used, b, k);
		passed(o, k);
		b += k;
		n -= k;
	}
}

void fs_gen_out_zeros(struct fs_gen_out *o, uint64_t n)
{
	while (n && !o->err) {
		size_t k = room(o);
		if (k > n)
			k = (size_t)n;
		memset(o->buf + o->used, 0, k);
		passed(o, k);
		n -= k;
	}
}

void fs_gen_out_random(struct fs_gen_out *o, uint64_t n)
{
	while (n && !o->err) {
		size_t k = room(o);
		if (k > n)
			k = (size_t)n;
		uint8_t *p = o->buf + o->used;
		size_t i = 0;
		for (; i + 8 <= k; i += 8) {
			uint64_t v = fs_rng_next(&o->rng);
			memcpy(p + i, &v, 8);
		}
		if (i < k) {
			uint64_t v = fs_rng_next(&o->rng);
			memcpy(p + i, &v, k - i);
		}
		passed(o, k);
		n -= k;
	}
}

void fs_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void fs_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void fs_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void fs_gen_out_u32le(struct fs_gen_out *o, uint32_t v)
{
	uint8_t b[4];
	fs_put_le32(b, v);
	fs_gen_out_bytes(o, b, 4);
}

void fs_gen_out_u64le(struct fs_gen_out *o, uint64_t v)
{
	uint8_t b[8];
	fs_put_le64(b, v);
	fs_gen_out_bytes(o, b, 8);
}
