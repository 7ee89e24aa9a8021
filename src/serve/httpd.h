/* httpd.h - a small bounded HTTP/1.1 server for the exporter: one thread,
 * epoll, a fixed number of connection slots, a deadline per request.
 *
 * Limits (struct fs_httpd_limits): a request head longer than
 * max_head_bytes is answered 431 and closed; at most max_conns connections
 * are held, and one more evicts the oldest that is still reading its request
 * (a flood of idle connections cannot lock a scraper out); every request
 * must arrive, and its answer be taken, within deadline_ms of the moment the
 * connection became ready for it (accept, or the previous answer sent): a
 * slow client is closed then. Memory is the slots' buffers and the
 * answer being written, nothing per byte received. */
#ifndef FS_HTTPD_H
#define FS_HTTPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/http.h"

struct fs_httpd_limits {
	size_t max_head_bytes; /* 8192 */
	int max_conns;         /* 16 */
	int deadline_ms;       /* 5000 */
};
#define FS_HTTPD_LIMITS_DEFAULT ((struct fs_httpd_limits){8192, 16, 5000})

/* What the handler answers; body is malloc'd and the server frees it (NULL
 * with len 0: no body). */
struct fs_http_resp {
	int status;
	const char *content_type; /* a constant string */
	const char *allow;        /* for 405: "GET, HEAD"; else NULL */
	char *body;
	size_t len;
};

/* Called on the server's thread for each request parsed; must fill resp. */
typedef void (*fs_httpd_handler)(void *arg, const struct fs_http_req *req, struct fs_http_resp *resp);

/* Counters of what the server saw, for its own metrics. Written only by
 * the server's thread (read them from the handler). */
struct fs_httpd_stats {
	uint64_t connections;     /* accepted */
	uint64_t evicted;         /* closed to make room for a new one */
	uint64_t timed_out;       /* closed at the deadline (not counting a kept-alive one left idle) */
	uint64_t requests;        /* answered, errors included */
	uint64_t bad_requests;    /* answered 4xx/5xx by the parser */
};

struct fs_httpd;

/* Parse ADDR as the exporter takes it: "HOST:PORT", "[V6]:PORT", or PORT /
 * ":PORT" alone (127.0.0.1). HOST is a numeric IPv4 or IPv6 address or
 * "localhost" (127.0.0.1); no name is looked up. PORT 0..65535 (0: any free
 * port). Returns 0, or -1 with why in err. */
int fs_httpd_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t errlen);

/* Bind and listen on addr (parsed as above). Returns the server, or NULL
 * with why in err ("127.0.0.1:9464: Address already in use"). */
struct fs_httpd *fs_httpd_listen(const char *addr, const struct fs_httpd_limits *lim, char *err, size_t errlen);

/* The address it listens on, "127.0.0.1:9464" (the port found for 0). */
const char *fs_httpd_addr(const struct fs_httpd *h);

/* Serve until fs_httpd_stop; fn answers each request. */
void fs_httpd_run(struct fs_httpd *h, fs_httpd_handler fn, void *arg);

/* Make fs_httpd_run return soon; safe from any thread or a signal handler. */
void fs_httpd_stop(struct fs_httpd *h);

const struct fs_httpd_stats *fs_httpd_stats(const struct fs_httpd *h);

/* Close the socket and every connection, free h (NULL: no-op). */
void fs_httpd_free(struct fs_httpd *h);

#endif
