/* fuzz_http - libFuzzer target: the exporter's HTTP request-head parser
 * (src/util/http.h, fs_http_parse), the one piece of feedscope that reads
 * bytes from the network.
 *
 * The input is what a client sent. Besides not crashing, the parser must
 * keep its contract (http.h), checked here on every input:
 * - the result is a head length within the bytes given, 0 (need more), or
 *   one of the statuses it documents;
 * - 0 only while fewer than max_head bytes have arrived;
 * - a parsed head has a NUL-terminated path starting with '/' and a known
 *   method;
 * - bytes arriving in pieces change nothing: every prefix of a head that
 *   parses is "need more" (or the same answer once the head is whole), and
 *   the head alone parses to the same length;
 * - pipelined requests: the rest after a head parses on its own.
 * Built and run by `make fuzz` (tests/fuzz/run.sh); its seeds are replayed
 * by tests/integration/fuzz_seeds.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/http.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

#define MAX_HEAD 2048 /* small, so that the fuzzer reaches the limit */

static void die(const char *what, long got, size_t n)
{
	fprintf(stderr, "fuzz_http: %s (result %ld, %zu bytes)\n", what, got, n);
	abort();
}

static bool known_status(long r)
{
	return r == -400 || r == -413 || r == -414 || r == -431 || r == -505;
}

static long check(const char *buf, size_t n, int depth)
{
	struct fs_http_req req;
	memset(&req, 0x5a, sizeof req); /* whatever the parser leaves unset shows */
	long r = fs_http_parse(buf, n, MAX_HEAD, &req);
	if (r > (long)n)
		die("head longer than the bytes given", r, n);
	if (r < 0 && !known_status(r))
		die("a status the parser does not document", r, n);
	if (r == 0 && n >= MAX_HEAD)
		die("need more past max_head", r, n);
	if (r <= 0)
		return r;
	if (!memchr(req.path, 0, sizeof req.path) || req.path[0] != '/')
		die("the path is not a NUL-terminated absolute path", r, n);
	if (req.method != FS_HTTP_GET && req.method != FS_HTTP_HEAD && req.method != FS_HTTP_OTHER)
		die("an unknown method", r, n);
	if (depth > 0)
		return r;
	/* the head alone: the same length */
	if (check(buf, (size_t)r, 1) != r)
		die("the head alone parses differently", r, n);
	/* its prefixes: need more */
	size_t cuts[] = {1, (size_t)r / 3, (size_t)r / 2, (size_t)r - 1};
	for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
		if (cuts[i] == 0 || cuts[i] >= (size_t)r)
			continue;
		struct fs_http_req pr;
		long p = fs_http_parse(buf, cuts[i], MAX_HEAD, &pr);
		if (p != 0)
			die("a prefix of a head that parses is not 'need more'", p, cuts[i]);
	}
	/* pipelined: what follows is a request of its own */
	if ((size_t)r < n)
		check(buf + r, n - (size_t)r, 1);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: ASan sees any read past them */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check(buf, size, 0);
	free(buf);
	return 0;
}
