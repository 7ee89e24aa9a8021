/* The exporter's HTTP server (serve/httpd.c, on libmicrohttpd) over real
 * sockets on 127.0.0.1: the answers the exporter promises (a page, 404,
 * 405 with Allow, 413 for a body, 414, 431 for a large head or too many
 * header lines, 505, HEAD without a body, keep-alive and pipelining, the
 * OpenMetrics negotiation handed to the handler), the per-client limit
 * (a connection past it from one address is closed at once and counted,
 * while another address is still served), the counters; and the address
 * forms --listen takes and refuses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "serve/httpd.h"

static int port;

static void handler(void *arg, const struct fs_http_req *req, struct fs_http_resp *r)
{
	(void)arg;
	char body[300];
	if (req->method == FS_HTTP_OTHER) {
		r->status = 405;
		r->allow = "GET, HEAD";
		snprintf(body, sizeof body, "no\n");
	} else if (strcmp(req->path, "/x")) {
		r->status = 404;
		snprintf(body, sizeof body, "not here\n");
	} else {
		r->status = 200;
		snprintf(body, sizeof body, "path=%s om=%d\n", req->path, req->openmetrics);
	}
	r->content_type = "text/plain; charset=utf-8";
	r->len = strlen(body);
	r->body = strdup(body);
}

/* Connect from src (an address of 127/8) to the server. */
static int conn_from(const char *src)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, src, &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
		return -1;
	a.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read until the server closes, or until want answers ("HTTP/1.1 " at a
 * line start) and their bodies are in, or 10 s: what arrived. */
static char *read_all(int fd, int want)
{
	static char buf[1 << 16];
	size_t n = 0;
	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 10000) <= 0)
			break;
		ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = 0;
		int got = 0;
		for (char *p2 = buf; (p2 = strstr(p2, "HTTP/1.1 ")); p2++)
			got++;
		if (want && got >= want && buf[n - 1] == '\n' && strstr(buf + n - (n > 4 ? 4 : n), "\n"))
			break;
	}
	buf[n] = 0;
	return buf;
}

/* Send req on a fresh connection; what came back before it closed. */
static const char *ask(const char *req, size_t len)
{
	int fd = conn_from("127.0.0.1");
	CHECK(fd >= 0);
	if (fd < 0)
		return "";
	size_t off = 0;
	while (off < len) {
		ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	const char *a = read_all(fd, 0);
	close(fd);
	return a;
}

static const char *ask_s(const char *req)
{
	return ask(req, strlen(req));
}

static bool starts(const char *a, const char *status)
{
	char want[64];
	snprintf(want, sizeof want, "HTTP/1.1 %s", status);
	if (strncmp(a, want, strlen(want))) {
		fprintf(stderr, "wanted %s, got: %.120s\n", want, a);
		return false;
	}
	return true;
}

static void test_answers(void)
{
	const char *a = ask_s("GET /x?q=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
	CHECK(starts(a, "200 OK") && strstr(a, "path=/x om=0\n"));
	a = ask_s("GET /x HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\nConnection: close\r\n\r\n");
	CHECK(starts(a, "200 ") && strstr(a, "om=1\n"));
	a = ask_s("GET /x HTTP/1.1\r\nAccept: text/plain\r\naccept: Application/OpenMetrics-Text\r\nConnection: close\r\n\r\n");
	CHECK(strstr(a, "om=1\n"));
	a = ask_s("GET /x HTTP/1.1\r\nAccept: application/openmetrics-textual\r\nConnection: close\r\n\r\n");
	CHECK(strstr(a, "om=0\n"));
	CHECK(starts(ask_s("GET /y HTTP/1.1\r\nConnection: close\r\n\r\n"), "404 "));
	a = ask_s("DELETE /x HTTP/1.1\r\nConnection: close\r\n\r\n");
	CHECK(starts(a, "405 ") && strstr(a, "\r\nAllow: GET, HEAD\r\n"));
	CHECK(starts(ask_s("GET /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"), "413 "));
	CHECK(starts(ask_s("GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), "413 "));
	CHECK(starts(ask_s("GET /x HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), "200 "));
	CHECK(starts(ask_s("GET /x HTTP/3.0\r\n\r\n"), "505 "));
	/* HEAD: the length said, no body */
	a = ask_s("HEAD /x HTTP/1.1\r\nConnection: close\r\n\r\n");
	CHECK(starts(a, "200 ") && strstr(a, "Content-Length: 13\r\n") && !strcmp(a + strlen(a) - 4, "\r\n\r\n"));
	/* a target of FS_HTTP_PATH_MAX bytes or more: 414, short or long */
	static char big[70000];
	snprintf(big, sizeof big, "GET /%0*d HTTP/1.1\r\n\r\n", FS_HTTP_PATH_MAX, 0);
	CHECK(starts(ask_s(big), "414 "));
	memset(big, 'p', sizeof big);
	memcpy(big, "GET /", 5);
	memcpy(big + 60000, " HTTP/1.1\r\n\r\n", 14);
	CHECK(starts(ask(big, 60014), "414 "));
	/* too many header lines, or one too large: 431 */
	strcpy(big, "GET /x HTTP/1.1\r\n");
	for (int i = 0; i <= FS_HTTP_MAX_HEADERS; i++)
		strcat(big, "A: b\r\n");
	strcat(big, "\r\n");
	CHECK(starts(ask_s(big), "431 "));
	int n = snprintf(big, sizeof big, "GET /x HTTP/1.1\r\nX-Big: ");
	memset(big + n, 'a', 30000);
	memcpy(big + n + 30000, "\r\n\r\n", 5);
	CHECK(starts(ask_s(big), "431 "));
	/* garbage with line ends: 400 */
	CHECK(starts(ask_s("\x01\x02 nonsense\r\n\r\n"), "400 "));
	/* pipelined on a kept-alive connection: answered in order */
	a = ask_s("GET /x HTTP/1.1\r\n\r\nGET /y HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\nAccept: application/openmetrics-text\r\nConnection: close\r\n\r\n");
	const char *p1 = strstr(a, "200 OK"), *p2 = strstr(a, "404 "), *p3 = p2 ? strstr(p2, "om=1") : NULL;
	CHECK(p1 && p2 && p3 && p1 < p2);
}

/* More than per_client connections from one address: the extra one is
 * closed unanswered and counted; another address is still served. */
static void test_per_client(struct fs_httpd *h, unsigned per_client)
{
	struct fs_httpd_stats s0, s1;
	fs_httpd_stats(h, &s0);
	int held[64], n = 0;
	for (unsigned i = 0; i < per_client; i++)
		if ((held[n] = conn_from("127.0.0.3")) >= 0)
			n++;
	CHECK_INT(n, (int)per_client);
	/* wait until the server has taken them all */
	for (int k = 0; k < 200; k++) {
		fs_httpd_stats(h, &s1);
		if (s1.connections - s0.connections >= per_client)
			break;
		usleep(10000);
	}
	int extra = conn_from("127.0.0.3");
	CHECK(extra >= 0);
	const char *a = read_all(extra, 0); /* closed, no answer */
	CHECK_STR(a, "");
	close(extra);
	fs_httpd_stats(h, &s1);
	CHECK(s1.refused == s0.refused + 1);
	int other = conn_from("127.0.0.4");
	CHECK(other >= 0);
	const char *req = "GET /x HTTP/1.1\r\nConnection: close\r\n\r\n";
	CHECK(send(other, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
	CHECK(starts(read_all(other, 0), "200 "));
	close(other);
	/* one held connection goes: that address may connect again */
	close(held[--n]);
	int again = -1;
	for (int k = 0; k < 100; k++) {
		usleep(20000);
		again = conn_from("127.0.0.3");
		CHECK(again >= 0);
		if (send(again, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req) && strstr(read_all(again, 0), "200 OK"))
			break;
		close(again);
		again = -1;
	}
	CHECK(again >= 0);
	if (again >= 0)
		close(again);
	while (n > 0)
		close(held[--n]);
}

static void test_addr(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
	CHECK_INT(fs_httpd_parse_addr("9464", &ss, &len, err, sizeof err), 0);
	CHECK(ss.ss_family == AF_INET && ntohs(s4->sin_port) == 9464 && s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	CHECK_INT(fs_httpd_parse_addr(":9464", &ss, &len, err, sizeof err), 0);
	CHECK(s4->sin_addr.s_addr == htonl(INADDR_LOOPBACK));
	CHECK_INT(fs_httpd_parse_addr("0.0.0.0:1", &ss, &len, err, sizeof err), 0);
	CHECK(s4->sin_addr.s_addr == 0 && ntohs(s4->sin_port) == 1);
	CHECK_INT(fs_httpd_parse_addr("localhost:0", &ss, &len, err, sizeof err), 0);
	CHECK_INT(fs_httpd_parse_addr("[::1]:9464", &ss, &len, err, sizeof err), 0);
	CHECK(ss.ss_family == AF_INET6);
	const char *bad[] = {"", ":", "x", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "example.com:80",
			     "::1:9464", "[::1]9464", "[zz]:1", "1.2.3:9", "127.0.0.1:123456", "127.0.0.1: 80"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		CHECK_INT(fs_httpd_parse_addr(bad[i], &ss, &len, err, sizeof err), -1);
		CHECK(err[0] != 0);
	}
}

int main(void)
{
	char err[256];
	struct fs_httpd_limits lim = FS_HTTPD_LIMITS_DEFAULT;
	lim.per_client = 4;
	struct fs_httpd *h = fs_httpd_listen("127.0.0.1:0", &lim, err, sizeof err);
	CHECK(h != NULL);
	if (!h) {
		fprintf(stderr, "%s\n", err);
		return check_exit("test_http");
	}
	port = atoi(strrchr(fs_httpd_addr(h), ':') + 1);
	CHECK(fs_httpd_start(h, handler, NULL, err, sizeof err) == 0);
	test_answers();
	struct fs_httpd_stats s;
	fs_httpd_stats(h, &s);
	CHECK(s.requests >= 15 && s.bad_requests >= 8 && s.connections >= 17);
	test_per_client(h, lim.per_client);
	fs_httpd_free(h);
	/* the same port again: in use while another listens */
	struct fs_httpd *h1 = fs_httpd_listen("127.0.0.1:0", &lim, err, sizeof err);
	char addr[64];
	snprintf(addr, sizeof addr, "%s", h1 ? fs_httpd_addr(h1) : "");
	CHECK(h1 && !fs_httpd_listen(addr, &lim, err, sizeof err) && strstr(err, "in use"));
	fs_httpd_free(h1);
	test_addr();
	return check_exit("test_http");
}
