/* http.h - the request side of HTTP/1.x for the exporter: a pure parser of
 * a request head, fed whatever bytes have arrived so far. It never
 * allocates and never reads past the bytes it is given; the server
 * (serve/httpd.c) holds the buffer and its limit.
 *
 * Accepted: a request line "METHOD SP TARGET SP HTTP/1.0|1.1", header lines
 * "Name: value", lines ending in CRLF or a bare LF, a blank line at the
 * end. No body (a GET has none): a Content-Length other than 0, or any
 * Transfer-Encoding, is refused. Pipelined requests are parsed one at a
 * time: the return value says where the next one starts. */
#ifndef FS_HTTP_H
#define FS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

enum fs_http_method { FS_HTTP_GET, FS_HTTP_HEAD, FS_HTTP_OTHER };

#define FS_HTTP_PATH_MAX 256

struct fs_http_req {
	enum fs_http_method method;
	char path[FS_HTTP_PATH_MAX]; /* the target up to '?' (the query is ignored) */
	bool http11;                 /* HTTP/1.1 (else 1.0) */
	bool keep_alive;             /* the connection may carry another request */
	bool openmetrics;            /* Accept names application/openmetrics-text */
};

/* Parse the request head at buf[0..n). Returns the head's length in bytes
 * (> 0: r is filled; the next request, if any, starts there); 0 when buf
 * holds the start of a valid head but not its end yet and fewer than
 * max_head bytes; or a negative HTTP status for what to answer before
 * closing: -400 (malformed, also as soon as the first bytes cannot start a
 * request), -414 (target longer than FS_HTTP_PATH_MAX - 1), -431 (no end
 * of head within max_head bytes, or more than 64 header lines), -413 (a
 * body announced), -505 (not HTTP/1.0 or 1.1). */
long fs_http_parse(const char *buf, size_t n, size_t max_head, struct fs_http_req *r);

/* The reason phrase of status ("Not Found"), "" for one this server never
 * sends. */
const char *fs_http_reason(int status);

#endif
