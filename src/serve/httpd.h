/* httpd.h - the exporter's HTTP server: libmicrohttpd (Debian's
 * libmicrohttpd-dev) on a socket bound here, with the limits below; this
 * file keeps only what is the exporter's own: the address forms --listen
 * takes, the routing to one handler, a per-address connection limit that
 * counts what it refuses, and the server's counters.
 *
 * What the library does (docs/exporter.md, "HTTP"): parsing, keep-alive
 * and pipelining, HEAD, the total connection limit (past it new
 * connections wait in the kernel's backlog, they are not cut), the
 * inactivity timeout, a request head larger than the connection's memory
 * (431, 414), versions other than 1.0 and 1.1 (505), malformed requests
 * (400), running out of descriptors (accepting pauses until a connection
 * closes). */
#ifndef FS_HTTPD_H
#define FS_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Chosen by measurement (docs/exporter.md, "HTTP": the figures). */
struct fs_httpd_limits {
	unsigned max_conns;  /* connections held at once; more wait in the backlog */
	unsigned per_client; /* of them from one address; more are refused (closed) */
	unsigned timeout_s;  /* a connection idle this long is closed */
	unsigned threads;    /* 1: one thread, epoll; more: a pool of that many */
	size_t conn_memory;  /* per connection: the request head must fit in half */
};
#define FS_HTTPD_LIMITS_DEFAULT ((struct fs_httpd_limits){64, 16, 5, 1, 16384})

enum fs_http_method { FS_HTTP_GET, FS_HTTP_HEAD, FS_HTTP_OTHER };

#define FS_HTTP_PATH_MAX 256     /* a longer target: 414 */
#define FS_HTTP_MAX_HEADERS 64   /* more header lines: 431 */

struct fs_http_req {
	enum fs_http_method method;
	const char *path;  /* the target without its query */
	bool openmetrics;  /* Accept names application/openmetrics-text */
};

/* What the handler answers; body is malloc'd and the server frees it (NULL
 * with len 0: no body). */
struct fs_http_resp {
	int status;
	const char *content_type; /* a constant string */
	const char *allow;        /* for 405: "GET, HEAD"; else NULL */
	char *body;
	size_t len;
};

/* Called for each request on a server thread (several at once with a
 * pool); must fill resp. */
typedef void (*fs_httpd_handler)(void *arg, const struct fs_http_req *req, struct fs_http_resp *resp);

/* Counters of what the server saw, for its own metrics. */
struct fs_httpd_stats {
	uint64_t connections;  /* accepted */
	uint64_t refused;      /* closed at once: over the per-client limit */
	uint64_t timed_out;    /* closed at the timeout with a request unanswered */
	uint64_t requests;     /* answered by the handler, errors included */
	uint64_t bad_requests; /* answered 4xx/5xx (here, or by the library when the handler saw the request) */
};

struct fs_httpd;

/* Parse ADDR as the exporter takes it: "HOST:PORT", "[V6]:PORT", or PORT /
 * ":PORT" alone (127.0.0.1). HOST is a numeric IPv4 or IPv6 address or
 * "localhost" (127.0.0.1); no name is looked up. PORT 0..65535 (0: any free
 * port). Returns 0, or -1 with why in err. */
int fs_httpd_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t errlen);

/* Bind and listen on addr (parsed as above). Returns the server (not
 * serving yet), or NULL with why in err ("127.0.0.1:9464: Address already
 * in use"). */
struct fs_httpd *fs_httpd_listen(const char *addr, const struct fs_httpd_limits *lim, char *err, size_t errlen);

/* The address it listens on, "127.0.0.1:9464" (the port found for 0). */
const char *fs_httpd_addr(const struct fs_httpd *h);

/* Serve on the library's own thread(s), fn answering each request; they
 * start with the caller's signal mask. Returns 0, or -1 with why in err. */
int fs_httpd_start(struct fs_httpd *h, fs_httpd_handler fn, void *arg, char *err, size_t errlen);

/* A snapshot of the counters (any thread). */
void fs_httpd_stats(const struct fs_httpd *h, struct fs_httpd_stats *out);

/* Stop serving (if started), close the socket and every connection, free h
 * (NULL: no-op). */
void fs_httpd_free(struct fs_httpd *h);

/* The reason phrase of status ("Not Found"). */
const char *fs_http_reason(int status);

#endif
