/* siphash.c - SipHash-2-4, written from the paper's description: the state
 * v0..v3 is initialised from the key and four constants, each 8-byte
 * little-endian message word m is absorbed (v3 ^= m; 2 SipRounds; v0 ^= m),
 * the last word carries the message length in its top byte, and the
 * finalisation is v2 ^= 0xff, 4 SipRounds, v0 ^ v1 ^ v2 ^ v3. */
#include "util/siphash.h"

static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t le64(const uint8_t *p, size_t n)
{
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void absorb(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

uint64_t fs_siphash24(const uint8_t key[FS_SIPHASH_KEY_BYTES], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = le64(key, 8), k1 = le64(key + 8, 8);
	struct sip s = {
		.v0 = k0 ^ 0x736f6d6570736575ull, /* "somepseu" */
		.v1 = k1 ^ 0x646f72616e646f6dull, /* "dorandom" */
		.v2 = k0 ^ 0x6c7967656e657261ull, /* "lygenera" */
		.v3 = k1 ^ 0x7465646279746573ull, /* "tedbytes" */
	};
	size_t full = len - len % 8;
	for (size_t i = 0; i < full; i += 8)
		absorb(&s, le64(p + i, 8));
	uint64_t last = len % 8 ? le64(p + full, len % 8) : 0;
	absorb(&s, last | (uint64_t)(len & 0xff) << 56);
	s.v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
