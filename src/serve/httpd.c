/* httpd.c - the exporter's bounded HTTP server (httpd.h): one thread, epoll,
 * fixed slots, a deadline per request, the parser of util/http.c. */
#include "serve/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/clock.h"

enum conn_state { C_FREE, C_READ, C_WRITE, C_DRAIN };

struct conn {
	int fd;
	enum conn_state state;
	uint64_t since_ns, deadline_ns; /* ready for this request; must be done by */
	char *in;                       /* max_head_bytes */
	size_t inlen;
	char head[384];                 /* the answer's status line and headers */
	size_t headlen, off;            /* off: bytes of head + body sent */
	char *body;
	size_t bodylen;
	int close_after;
	bool answered;                  /* a request was answered on it (keep-alive) */
};

struct fs_httpd {
	int lfd, efd, ep;
	struct fs_httpd_limits lim;
	struct conn *c;
	int nconns;
	char addr[64];
	struct fs_httpd_stats st;
	fs_httpd_handler fn;
	void *arg;
};

#define ID_LISTEN UINT64_MAX
#define ID_STOP (UINT64_MAX - 1)

static int set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -1;
}

int fs_httpd_parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sslen, char *err, size_t errlen)
{
	char host[64] = "";
	const char *port = addr;
	memset(ss, 0, sizeof *ss);
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - addr - 1) >= sizeof host)
			return set_err(err, errlen, "%s: an IPv6 address is written [ADDR]:PORT%s", addr, "");
		snprintf(host, sizeof host, "%.*s", (int)(rb - addr - 1), addr + 1);
		port = rb + 2;
	} else if (strchr(addr, ':')) {
		const char *colon = strrchr(addr, ':');
		if (colon != strchr(addr, ':'))
			return set_err(err, errlen, "%s: an IPv6 address is written [ADDR]:PORT%s", addr, "");
		if ((size_t)(colon - addr) >= sizeof host)
			return set_err(err, errlen, "%s: not a numeric address%s", addr, "");
		snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
		port = colon + 1;
	}
	long p = 0;
	if (!*port || strlen(port) > 5)
		return set_err(err, errlen, "%s: no port (HOST:PORT, e.g. 127.0.0.1:9464)%s", addr, "");
	for (const char *c = port; *c; c++) {
		if (*c < '0' || *c > '9')
			return set_err(err, errlen, "%s: bad port '%s' (0-65535)", addr, port);
		p = p * 10 + (*c - '0');
	}
	if (p > 65535)
		return set_err(err, errlen, "%s: bad port '%s' (0-65535)", addr, port);
	if (addr[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return set_err(err, errlen, "%s: '%s' is not a numeric IPv6 address", addr, host);
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		*sslen = sizeof *s6;
		return 0;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	if (!host[0] || !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
		return set_err(err, errlen, "%s: '%s' is not a numeric IPv4 address (names are not looked up)", addr, host);
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)p);
	*sslen = sizeof *s4;
	return 0;
}

static void name_of(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof ip);
		snprintf(out, cap, "[%s]:%u", ip, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof ip);
		snprintf(out, cap, "%s:%u", ip, ntohs(s4->sin_port));
	}
}

static int ep_ctl(struct fs_httpd *h, int op, int fd, uint32_t events, uint64_t id)
{
	struct epoll_event ev = {.events = events, .data.u64 = id};
	return epoll_ctl(h->ep, op, fd, &ev);
}

struct fs_httpd *fs_httpd_listen(const char *addr, const struct fs_httpd_limits *lim, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	if (fs_httpd_parse_addr(addr, &ss, &sslen, err, errlen) < 0)
		return NULL;
	struct fs_httpd *h = calloc(1, sizeof *h);
	if (!h || !(h->c = calloc((size_t)lim->max_conns, sizeof *h->c))) {
		free(h);
		snprintf(err, errlen, "%s: out of memory", addr);
		return NULL;
	}
	h->lim = *lim;
	h->efd = h->ep = -1;
	int one = 1;
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0 || setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(h->lfd, (struct sockaddr *)&ss, sslen) < 0 || listen(h->lfd, 64) < 0 ||
	    (h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 || (h->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    ep_ctl(h, EPOLL_CTL_ADD, h->lfd, EPOLLIN, ID_LISTEN) < 0 || ep_ctl(h, EPOLL_CTL_ADD, h->efd, EPOLLIN, ID_STOP) < 0) {
		snprintf(err, errlen, "%s: %s", addr, strerror(errno));
		fs_httpd_free(h);
		return NULL;
	}
	sslen = sizeof ss;
	getsockname(h->lfd, (struct sockaddr *)&ss, &sslen);
	name_of(&ss, h->addr, sizeof h->addr);
	return h;
}

const char *fs_httpd_addr(const struct fs_httpd *h)
{
	return h->addr;
}

const struct fs_httpd_stats *fs_httpd_stats(const struct fs_httpd *h)
{
	return &h->st;
}

static void conn_close(struct fs_httpd *h, struct conn *c)
{
	close(c->fd); /* also takes it out of the epoll set */
	free(c->in);
	free(c->body);
	memset(c, 0, sizeof *c);
	h->nconns--;
}

static void conn_ready(struct fs_httpd *h, struct conn *c)
{
	c->since_ns = fs_now_ns();
	c->deadline_ns = c->since_ns + (uint64_t)h->lim.deadline_ms * 1000000u;
}

/* A new connection: a free slot, else the oldest one not writing an answer. */
static void on_accept(struct fs_httpd *h)
{
	for (int k = 0; k < 64; k++) {
		int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or out of descriptors: the backlog waits */
		h->st.connections++;
		struct conn *slot = NULL, *oldest = NULL;
		for (int i = 0; i < h->lim.max_conns && !slot; i++)
			if (h->c[i].state == C_FREE)
				slot = &h->c[i];
			else if (h->c[i].state != C_WRITE && (!oldest || h->c[i].since_ns < oldest->since_ns))
				oldest = &h->c[i];
		if (!slot && oldest) {
			conn_close(h, oldest);
			h->st.evicted++;
			slot = oldest;
		}
		if (!slot || !(slot->in = malloc(h->lim.max_head_bytes))) {
			close(fd);
			h->st.evicted++;
			continue;
		}
		slot->fd = fd;
		slot->state = C_READ;
		conn_ready(h, slot);
		h->nconns++;
		if (ep_ctl(h, EPOLL_CTL_ADD, fd, EPOLLIN, (uint64_t)(slot - h->c)) < 0)
			conn_close(h, slot);
	}
}

/* Send what is left of the answer; 1 when done, 0 to wait, -1 on error. */
static int send_some(struct conn *c)
{
	while (c->off < c->headlen + c->bodylen) {
		struct iovec iov[2];
		int n = 0;
		if (c->off < c->headlen)
			iov[n++] = (struct iovec){c->head + c->off, c->headlen - c->off};
		size_t boff = c->off > c->headlen ? c->off - c->headlen : 0;
		if (c->bodylen > boff)
			iov[n++] = (struct iovec){c->body + boff, c->bodylen - boff};
		struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
		ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->off += (size_t)w;
	}
	return 1;
}

static void process_input(struct fs_httpd *h, struct conn *c);

/* After the answer: close (error, Connection: close), or the next request. */
static void answered(struct fs_httpd *h, struct conn *c)
{
	free(c->body);
	c->body = NULL;
	c->bodylen = c->headlen = c->off = 0;
	if (c->close_after) {
		/* Half-close and drop what else arrives until the peer closes (or
		 * the deadline): closing with unread bytes would send a reset that
		 * can destroy the answer before the client reads it. */
		shutdown(c->fd, SHUT_WR);
		c->state = C_DRAIN;
		c->inlen = 0;
		ep_ctl(h, EPOLL_CTL_MOD, c->fd, EPOLLIN, (uint64_t)(c - h->c));
		return;
	}
	c->state = C_READ;
	c->answered = true;
	conn_ready(h, c);
	ep_ctl(h, EPOLL_CTL_MOD, c->fd, EPOLLIN, (uint64_t)(c - h->c));
	process_input(h, c); /* a pipelined request may be there already */
}

static void start_answer(struct fs_httpd *h, struct conn *c, struct fs_http_resp *r, bool head_only, bool close_after)
{
	h->st.requests++;
	if (head_only) {
		free(r->body); /* HEAD: the length is said, the body not sent */
		r->body = NULL;
	}
	c->close_after = close_after || r->status >= 400;
	int n = snprintf(c->head, sizeof c->head,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%sConnection: %s\r\n\r\n",
			 r->status, fs_http_reason(r->status), r->content_type ? r->content_type : "text/plain; charset=utf-8",
			 r->len, r->allow ? "Allow: " : "", r->allow ? r->allow : "", r->allow ? "\r\n" : "",
			 c->close_after ? "close" : "keep-alive");
	c->headlen = n > 0 && (size_t)n < sizeof c->head ? (size_t)n : 0;
	c->body = r->body;
	c->bodylen = r->body ? r->len : 0;
	c->off = 0;
	c->state = C_WRITE;
	int s = send_some(c);
	if (s < 0)
		conn_close(h, c);
	else if (s > 0)
		answered(h, c);
	else
		ep_ctl(h, EPOLL_CTL_MOD, c->fd, EPOLLOUT, (uint64_t)(c - h->c));
}

static void error_answer(struct fs_httpd *h, struct conn *c, int status)
{
	const char *reason = fs_http_reason(status);
	size_t len = strlen(reason) + 1;
	char *body = malloc(len + 1);
	if (body)
		snprintf(body, len + 1, "%s\n", reason);
	h->st.bad_requests++;
	start_answer(h, c, &(struct fs_http_resp){status, NULL, NULL, body, body ? len : 0}, false, true);
}

static void process_input(struct fs_httpd *h, struct conn *c)
{
	if (c->state != C_READ || !c->inlen)
		return;
	struct fs_http_req req;
	long rc = fs_http_parse(c->in, c->inlen, h->lim.max_head_bytes, &req);
	if (rc == 0)
		return;
	if (rc < 0) {
		error_answer(h, c, (int)-rc);
		return;
	}
	memmove(c->in, c->in + rc, c->inlen - (size_t)rc);
	c->inlen -= (size_t)rc;
	struct fs_http_resp r = {0};
	h->fn(h->arg, &req, &r);
	start_answer(h, c, &r, req.method == FS_HTTP_HEAD, !req.keep_alive);
}

static void on_conn(struct fs_httpd *h, struct conn *c, uint32_t events)
{
	if (c->state == C_WRITE) {
		int s = send_some(c);
		if (s < 0 || (events & (EPOLLERR | EPOLLHUP)))
			conn_close(h, c);
		else if (s > 0)
			answered(h, c);
		return;
	}
	char sink[4096];
	char *dst = c->state == C_DRAIN ? sink : c->in + c->inlen;
	size_t room = c->state == C_DRAIN ? sizeof sink : h->lim.max_head_bytes - c->inlen;
	ssize_t r = read(c->fd, dst, room);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		conn_close(h, c);
		return;
	}
	if (r > 0 && c->state == C_READ) {
		c->inlen += (size_t)r;
		process_input(h, c);
	}
}

static void expire(struct fs_httpd *h, uint64_t now, int *timeout_ms)
{
	uint64_t next = 0;
	for (int i = 0; i < h->lim.max_conns; i++) {
		struct conn *c = &h->c[i];
		if (c->state == C_FREE)
			continue;
		if (now >= c->deadline_ns) {
			/* a kept-alive connection with nothing new is idle, not slow */
			if (c->state != C_DRAIN && !(c->state == C_READ && c->answered && !c->inlen))
				h->st.timed_out++;
			conn_close(h, c);
		} else if (!next || c->deadline_ns < next) {
			next = c->deadline_ns;
		}
	}
	*timeout_ms = next ? (int)((next - now) / 1000000u) + 1 : -1;
}

void fs_httpd_run(struct fs_httpd *h, fs_httpd_handler fn, void *arg)
{
	h->fn = fn;
	h->arg = arg;
	int timeout = -1;
	for (;;) {
		struct epoll_event ev[32];
		int n = epoll_wait(h->ep, ev, 32, timeout);
		if (n < 0 && errno != EINTR)
			return;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.u64 == ID_STOP)
				return;
			if (ev[i].data.u64 == ID_LISTEN)
				on_accept(h);
			else if (h->c[ev[i].data.u64].state != C_FREE)
				on_conn(h, &h->c[ev[i].data.u64], ev[i].events);
		}
		expire(h, fs_now_ns(), &timeout);
	}
}

void fs_httpd_stop(struct fs_httpd *h)
{
	uint64_t one = 1;
	if (write(h->efd, &one, sizeof one) < 0) {
		/* the counter is already non-zero: a stop is pending */
	}
}

void fs_httpd_free(struct fs_httpd *h)
{
	if (!h)
		return;
	for (int i = 0; h->c && i < h->lim.max_conns; i++)
		if (h->c[i].state != C_FREE)
			conn_close(h, &h->c[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->efd >= 0)
		close(h->efd);
	if (h->ep >= 0)
		close(h->ep);
	free(h->c);
	free(h);
}
