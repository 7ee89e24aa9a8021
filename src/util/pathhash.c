#include "util/pathhash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "trace/region.h"
#include "util/siphash.h"

static uint8_t key[FS_SIPHASH_KEY_BYTES];
static bool have_key;

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int key_from_env(const char *v, char *why, size_t whylen)
{
	uint8_t k[FS_SIPHASH_KEY_BYTES];
	if (strlen(v) != 2 * sizeof k) {
		snprintf(why, whylen, "%s must be 32 hex digits (a 128-bit key), not %zu characters",
			 FS_PATHHASH_ENV, strlen(v));
		return -1;
	}
	for (size_t i = 0; i < sizeof k; i++) {
		int hi = hexval(v[2 * i]), lo = hexval(v[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			snprintf(why, whylen, "%s must be 32 hex digits (a 128-bit key)", FS_PATHHASH_ENV);
			return -1;
		}
		k[i] = (uint8_t)(hi << 4 | lo);
	}
	fs_pathhash_set_key(k);
	return 0;
}

static int key_from_kernel(char *why, size_t whylen)
{
	uint8_t k[FS_SIPHASH_KEY_BYTES];
	size_t got = 0;
	while (got < sizeof k) {
		ssize_t n = getrandom(k + got, sizeof k - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(why, whylen, "getrandom: %s", n < 0 ? strerror(errno) : "no bytes");
			return -1;
		}
		got += (size_t)n;
	}
	fs_pathhash_set_key(k);
	return 0;
}

int fs_pathhash_init(char *why, size_t whylen)
{
	const char *v = getenv(FS_PATHHASH_ENV);
	if (v && *v)
		return key_from_env(v, why, whylen);
	return have_key ? 0 : key_from_kernel(why, whylen);
}

void fs_pathhash_set_key(const uint8_t k[16])
{
	memcpy(key, k, sizeof key);
	have_key = true;
}

uint64_t fs_pathhash_parts(uint64_t len, uint64_t fnv, const char *tail, size_t tail_len)
{
	if (!have_key) {
		char why[128];
		if (key_from_kernel(why, sizeof why) < 0)
			abort(); /* never store an unkeyed hash */
	}
	uint8_t msg[16 + FS_TRACE_PATH];
	if (tail_len > FS_TRACE_PATH)
		tail_len = FS_TRACE_PATH;
	for (int i = 0; i < 8; i++) {
		msg[i] = (uint8_t)(len >> (8 * i));
		msg[8 + i] = (uint8_t)(fnv >> (8 * i));
	}
	memcpy(msg + 16, tail, tail_len);
	return fs_siphash24(key, msg, 16 + tail_len);
}

uint64_t fs_pathhash_str(const char *s, size_t len)
{
	size_t keep = FS_TRACE_PATH - 1;
	size_t tail_len = len < keep ? len : keep;
	return fs_pathhash_parts(len, fs_trace_hash(s, len), s + len - tail_len, tail_len);
}

void fs_pathhash_text(uint64_t h, char *out, size_t cap)
{
	snprintf(out, cap, "%016llx", (unsigned long long)h);
}

bool fs_pathhash_pathlike(const char *s, size_t len)
{
	return memchr(s, '/', len) != NULL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

char *fs_pathhash_words(const char *text)
{
	size_t n = strlen(text);
	/* a word of 1 byte ("/") becomes 16: at most 16 times as long */
	char *out = malloc(n * 16 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (blank(text[i])) {
			out[o++] = text[i++];
			continue;
		}
		size_t w = i;
		while (i < n && !blank(text[i]))
			i++;
		if (!fs_pathhash_pathlike(text + w, i - w)) {
			memcpy(out + o, text + w, i - w);
			o += i - w;
			continue;
		}
		const char *eq = memchr(text + w, '=', i - w);
		const char *slash = memchr(text + w, '/', i - w);
		size_t keep = eq && eq < slash ? (size_t)(eq - (text + w)) + 1 : 0;
		memcpy(out + o, text + w, keep);
		o += keep;
		fs_pathhash_text(fs_pathhash_str(text + w + keep, i - w - keep), out + o, FS_PATHHASH_TEXT);
		o += FS_PATHHASH_TEXT - 1;
	}
	out[o] = '\0';
	return out;
}
