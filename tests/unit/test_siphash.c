/* SipHash-2-4 against the paper's own example and against a reference
 * written here in Python from the paper's description (64 messages of
 * growing length, two keys, a long message), and the keyed path hash:
 * it depends on the key, on the whole of a long path, and --hash-paths'
 * word rewriting leaves no '/' behind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/pathhash.h"
#include "util/siphash.h"

/* Python 3, stdlib only: prints one hex digest per line for the messages
 * msg(n) = bytes 0..n-1 (n = 0..63) under key 00..0f, then the same under
 * key k[i] = (7*i + 3) & 0xff, then 1000 bytes (i*31 & 0xff) under key 00..0f. */
static const char py_ref[] =
	"M = (1 << 64) - 1\n"
	"def rotl(x, b): return ((x << b) | (x >> (64 - b))) & M\n"
	"def rnd(v):\n"
	"    v0, v1, v2, v3 = v\n"
	"    v0 = (v0 + v1) & M; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)\n"
	"    v2 = (v2 + v3) & M; v3 = rotl(v3, 16) ^ v2\n"
	"    v0 = (v0 + v3) & M; v3 = rotl(v3, 21) ^ v0\n"
	"    v2 = (v2 + v1) & M; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)\n"
	"    return [v0, v1, v2, v3]\n"
	"def sip(key, m):\n"
	"    k0 = int.from_bytes(key[:8], 'little'); k1 = int.from_bytes(key[8:], 'little')\n"
	"    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]\n"
	"    b = m + bytes((8 - (len(m) + 1) % 8) % 8) + bytes([len(m) & 0xff])\n"
	"    for i in range(0, len(b), 8):\n"
	"        w = int.from_bytes(b[i:i + 8], 'little')\n"
	"        v[3] ^= w; v = rnd(rnd(v)); v[0] ^= w\n"
	"    v[2] ^= 0xff\n"
	"    for _ in range(4): v = rnd(v)\n"
	"    return v[0] ^ v[1] ^ v[2] ^ v[3]\n"
	"k = bytes(range(16)); k2 = bytes((7 * i + 3) & 0xff for i in range(16))\n"
	"for key in (k, k2):\n"
	"    for n in range(64): print('%016x' % sip(key, bytes(range(n))))\n"
	"print('%016x' % sip(k, bytes((i * 31) & 0xff for i in range(1000))))\n";

static void test_paper_example(void)
{
	uint8_t key[16], msg[15];
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 15; i++)
		msg[i] = (uint8_t)i;
	/* "SipHash: a fast short-input PRF", Appendix A */
	CHECK(fs_siphash24(key, msg, sizeof msg) == 0xa129ca6149be45e5ull);
}

static void test_python_reference(void)
{
	FILE *py = fopen("/tmp/fs-siphash-ref.py", "w");
	CHECK(py != NULL);
	if (!py)
		return;
	fputs(py_ref, py);
	fclose(py);
	FILE *p = popen("python3 /tmp/fs-siphash-ref.py", "r");
	CHECK(p != NULL);
	if (!p)
		return;
	uint8_t key[16], key2[16], msg[1000];
	for (int i = 0; i < 16; i++) {
		key[i] = (uint8_t)i;
		key2[i] = (uint8_t)((7 * i + 3) & 0xff);
	}
	for (int i = 0; i < 1000; i++)
		msg[i] = (uint8_t)((i * 31) & 0xff);
	uint8_t seq[64];
	for (int i = 0; i < 64; i++)
		seq[i] = (uint8_t)i;
	char line[64];
	int lines = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long long want = strtoull(line, NULL, 16);
		uint64_t got;
		if (lines < 64)
			got = fs_siphash24(key, seq, (size_t)lines);
		else if (lines < 128)
			got = fs_siphash24(key2, seq, (size_t)(lines - 64));
		else
			got = fs_siphash24(key, msg, sizeof msg);
		if (got != want)
			fprintf(stderr, "vector %d: got %016llx, python says %016llx\n", lines,
				(unsigned long long)got, want);
		CHECK(got == want);
		lines++;
	}
	CHECK_INT(pclose(p), 0);
	CHECK_INT(lines, 129); /* python3 ran and printed every vector */
	unlink("/tmp/fs-siphash-ref.py");
}

static void test_path_hash(void)
{
	uint8_t k1[16] = {1}, k2[16] = {2};
	const char *p = "/data/imagenet/train/n01440764/x.JPEG";
	fs_pathhash_set_key(k1);
	uint64_t a = fs_pathhash_str(p, strlen(p));
	CHECK(a == fs_pathhash_str(p, strlen(p)));
	fs_pathhash_set_key(k2);
	CHECK(a != fs_pathhash_str(p, strlen(p))); /* the key matters */

	/* two long paths with the same last 300 bytes hash apart */
	char l1[600], l2[600];
	memset(l1, 'a', sizeof l1);
	memset(l2, 'a', sizeof l2);
	l1[0] = '/';
	l2[0] = '/';
	l2[10] = 'b';
	l1[599] = l2[599] = '\0';
	CHECK(fs_pathhash_str(l1, strlen(l1)) != fs_pathhash_str(l2, strlen(l2)));

	/* FEEDSCOPE_HASH_KEY: 32 hex digits, anything else refused */
	char why[200];
	uint8_t k3[16];
	for (int i = 0; i < 16; i++)
		k3[i] = (uint8_t)(0x01 + 0x22 * (i % 8));
	fs_pathhash_set_key(k3);
	uint64_t with_k3 = fs_pathhash_str(p, strlen(p));
	fs_pathhash_set_key(k1);
	setenv(FS_PATHHASH_ENV, "0123456789abcdef0123456789ABCDEF", 1);
	CHECK_INT(fs_pathhash_init(why, sizeof why), 0);
	CHECK(fs_pathhash_str(p, strlen(p)) == with_k3); /* bytes 01 23 45 ... ef, twice */
	const char *bad[] = {"0123", "0123456789abcdef0123456789abcdeg", "0123456789abcdef0123456789abcdef00"};
	for (size_t i = 0; i < 3; i++) {
		setenv(FS_PATHHASH_ENV, bad[i], 1);
		CHECK_INT(fs_pathhash_init(why, sizeof why), -1);
		CHECK(strstr(why, FS_PATHHASH_ENV) != NULL);
	}
	CHECK(fs_pathhash_str(p, strlen(p)) == with_k3); /* a bad key changes nothing */
	unsetenv(FS_PATHHASH_ENV);
	CHECK_INT(fs_pathhash_init(why, sizeof why), 0); /* keeps the key it has */
	CHECK(fs_pathhash_str(p, strlen(p)) == with_k3);
}

static void test_words(void)
{
	uint8_t k[16] = {9};
	fs_pathhash_set_key(k);
	char *w = fs_pathhash_words("on, paths hashed");
	CHECK_STR(w, "on, paths hashed");
	free(w);
	w = fs_pathhash_words("dd if=/secret/in.bin of=/secret/out bs=4096");
	CHECK(w && !strchr(w, '/') && !strstr(w, "secret"));
	CHECK(w && !strncmp(w, "dd if=", 6) && strstr(w, " of=") && strstr(w, " bs=4096"));
	char h[FS_PATHHASH_TEXT];
	fs_pathhash_text(fs_pathhash_str("/secret/in.bin", 14), h, sizeof h);
	CHECK(w && strstr(w, h) == w + 6);
	free(w);
	w = fs_pathhash_words("/");
	CHECK(w && strlen(w) == 16);
	free(w);
}

int main(void)
{
	test_paper_example();
	test_python_reference();
	test_path_hash();
	test_words();
	return check_exit("test_siphash");
}
