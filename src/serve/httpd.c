/* httpd.c - the exporter's HTTP server (httpd.h): libmicrohttpd on a socket
 * bound here; the address forms, the routing, the per-client limit and the
 * counters are this file's. */
#include "serve/httpd.h"

#include <arpa/inet.h>
#include <time.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

/* One address and how many of its connections are held. */
struct peer {
	struct sockaddr_storage a;
	unsigned n;
};

/* A connection held (MHD's socket_context), for the per-address count and
 * the request deadline. */
struct conn {
	int fd;
	bool counted;     /* in its peer's n */
	bool in_request;  /* a request line was read, its answer not done */
	bool cut;         /* shut down at the deadline */
	uint64_t ready_ns; /* accepted, or its last request done */
	struct conn *next;
};

enum { ST_CONNECTIONS, ST_REFUSED, ST_TIMED_OUT, ST_REQUESTS, ST_BAD, ST__N };

struct fs_httpd {
	int lfd;
	struct fs_httpd_limits lim;
	char addr[64];
	struct MHD_Daemon *d;
	fs_httpd_handler fn;
	void *arg;
	pthread_mutex_t mu; /* peers, conns */
	struct peer *peers;
	unsigned npeers, cap;
	struct conn *conns;
	pthread_t sweeper;
	bool sweeping, stop_sweep;
	pthread_cond_t cv;
	uint64_t st[ST__N]; /* __atomic */
};

/* Per request (MHD's con_cls): the request line was read; its head was
 * seen by the handler; the handler answered it. */
static char seen_tag, head_tag, answered_tag;

static void count(struct fs_httpd *h, int k)
{
	__atomic_add_fetch(&h->st[k], 1, __ATOMIC_RELAXED);
}

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

struct fs_httpd *fs_httpd_listen(const char *addr, const struct fs_httpd_limits *lim, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	if (fs_httpd_parse_addr(addr, &ss, &sslen, err, errlen) < 0)
		return NULL;
	struct fs_httpd *h = calloc(1, sizeof *h);
	if (!h || !(h->peers = calloc(lim->max_conns + 1, sizeof *h->peers))) {
		free(h);
		snprintf(err, errlen, "%s: out of memory", addr);
		return NULL;
	}
	h->lim = *lim;
	h->cap = lim->max_conns + 1;
	pthread_mutex_init(&h->mu, NULL);
	int one = 1;
	/* the backlog: where connections wait while max_conns are held */
	h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0 || setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(h->lfd, (struct sockaddr *)&ss, sslen) < 0 || listen(h->lfd, 1024) < 0) {
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

void fs_httpd_stats(const struct fs_httpd *h, struct fs_httpd_stats *out)
{
	uint64_t v[ST__N];
	for (int k = 0; k < ST__N; k++)
		v[k] = __atomic_load_n(&h->st[k], __ATOMIC_RELAXED);
	*out = (struct fs_httpd_stats){v[ST_CONNECTIONS], v[ST_REFUSED], v[ST_TIMED_OUT], v[ST_REQUESTS], v[ST_BAD]};
}

/* The same address (the port aside)? */
static bool same_host(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static struct peer *peer_of(struct fs_httpd *h, const struct sockaddr *a)
{
	for (unsigned i = 0; i < h->npeers; i++)
		if (same_host(a, &h->peers[i].a))
			return &h->peers[i];
	return NULL;
}

/* The library asks before it takes a connection: refused when its address
 * holds per_client already (counted when the library says it started,
 * uncounted when it says it closed: always in pairs). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *a, socklen_t alen)
{
	struct fs_httpd *h = cls;
	(void)alen;
	pthread_mutex_lock(&h->mu);
	struct peer *p = peer_of(h, a);
	bool ok = !p || p->n < h->lim.per_client;
	pthread_mutex_unlock(&h->mu);
	if (!ok)
		count(h, ST_REFUSED);
	return ok ? MHD_YES : MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
	struct fs_httpd *h = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *a = ci ? ci->client_addr : NULL;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		count(h, ST_CONNECTIONS);
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct conn *k = calloc(1, sizeof *k);
		*socket_context = k;
		if (!k)
			return;
		k->fd = fi ? fi->connect_fd : -1;
		k->ready_ns = fs_now_ns();
		pthread_mutex_lock(&h->mu);
		k->next = h->conns;
		h->conns = k;
		if (a && (a->sa_family == AF_INET || a->sa_family == AF_INET6)) {
			struct peer *p = peer_of(h, a);
			if (!p && h->npeers < h->cap) {
				p = &h->peers[h->npeers++];
				memset(p, 0, sizeof *p);
				memcpy(&p->a, a, a->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
			}
			if (p) {
				p->n++;
				k->counted = true;
			}
		}
		pthread_mutex_unlock(&h->mu);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
		/* the library says so before it closes the socket: the sweeper
		 * never sees a descriptor that is no longer this connection's */
		struct conn *k = *socket_context;
		pthread_mutex_lock(&h->mu);
		struct peer *p = k->counted && a ? peer_of(h, a) : NULL;
		if (p && --p->n == 0)
			*p = h->peers[--h->npeers];
		for (struct conn **pp = &h->conns; *pp; pp = &(*pp)->next)
			if (*pp == k) {
				*pp = k->next;
				break;
			}
		pthread_mutex_unlock(&h->mu);
		free(k);
		*socket_context = NULL;
	}
}

/* The conn of c (NULL: none). */
static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

/* The deadline (the library's timeout is of inactivity only: a client
 * sending a byte a second would hold a connection for ever): a request
 * must arrive, and its answer be taken, within timeout_s of the moment the
 * connection became ready for it (accepted, or its previous request done);
 * past it the socket is shut down and the library closes the connection. */
static void *sweep(void *arg)
{
	struct fs_httpd *h = arg;
	uint64_t limit = (uint64_t)h->lim.timeout_s * FS_NS_PER_S;
	pthread_mutex_lock(&h->mu);
	while (!h->stop_sweep) {
		uint64_t now = fs_now_ns();
		for (struct conn *k = h->conns; k; k = k->next)
			if (!k->cut && k->fd >= 0 && now - k->ready_ns > limit) {
				k->cut = true;
				if (k->in_request)
					count(h, ST_TIMED_OUT);
				shutdown(k->fd, SHUT_RDWR);
			}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->cv, &h->mu, &ts);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* A request line was read: from now on the library says how it ended. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct fs_httpd *h = cls;
	(void)uri;
	struct conn *k = conn_of(c);
	if (k) {
		pthread_mutex_lock(&h->mu);
		k->in_request = true;
		pthread_mutex_unlock(&h->mu);
	}
	return &seen_tag;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct fs_httpd *h = cls;
	struct conn *k = conn_of(c);
	if (k) { /* done: the next request's time starts */
		pthread_mutex_lock(&h->mu);
		k->in_request = false;
		k->ready_ns = fs_now_ns();
		pthread_mutex_unlock(&h->mu);
	}
	if (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
		count(h, ST_TIMED_OUT);
	else if (toe == MHD_REQUEST_TERMINATED_WITH_ERROR && *con_cls != &answered_tag)
		count(h, ST_BAD); /* refused by the library: a head too large, a bad header */
}

/* Does the comma-separated list value hold token (no case; parameters
 * after ';' aside)? */
static bool list_has(const char *value, const char *token)
{
	size_t tl = strlen(token), len = strlen(value);
	for (size_t i = 0; i + tl <= len; i++)
		if (!strncasecmp(value + i, token, tl) && (i == 0 || value[i - 1] == ',' || value[i - 1] == ' ') &&
		    (i + tl == len || value[i + tl] == ',' || value[i + tl] == ' ' || value[i + tl] == ';'))
			return true;
	return false;
}

struct heads {
	bool openmetrics, body;
};

static enum MHD_Result on_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct heads *hd = cls;
	(void)kind;
	if (!value)
		return MHD_YES;
	if (!strcasecmp(key, "Accept"))
		hd->openmetrics |= list_has(value, "application/openmetrics-text");
	else if (!strcasecmp(key, "Transfer-Encoding"))
		hd->body = true;
	else if (!strcasecmp(key, "Content-Length"))
		hd->body |= value[strspn(value, "0")] != 0;
	return MHD_YES;
}

static char *text(const char *s, size_t *len)
{
	*len = strlen(s);
	char *b = malloc(*len + 1);
	if (b)
		memcpy(b, s, *len + 1);
	return b;
}

/* Lower the server thread's priority once: the exporter's threads run at
 * nice +10 (exporter.h). */
static void lower_priority(void)
{
	static _Thread_local bool done;
	if (!done)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	done = true;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct fs_httpd *h = cls;
	(void)version;
	(void)upload_data;
	lower_priority();
	if (*con_cls == &answered_tag) { /* a body after the answer: dropped */
		*upload_data_size = 0;
		return MHD_YES;
	}
	struct heads hd = {false, false};
	int nheads = MHD_get_connection_values(c, MHD_HEADER_KIND, on_header, &hd);
	if (*con_cls != &head_tag && !hd.body) {
		/* the head: the answer comes at the next call, once the library
		 * has the whole request (so the connection can be kept alive) */
		*con_cls = &head_tag;
		return MHD_YES;
	}
	*con_cls = &answered_tag;
	struct fs_http_resp r = {0};
	r.content_type = "text/plain; charset=utf-8";
	int bad = hd.body ? 413 : strlen(url) >= FS_HTTP_PATH_MAX ? 414 : nheads > FS_HTTP_MAX_HEADERS ? 431 : 0;
	if (bad) {
		r.status = bad;
		char msg[64];
		snprintf(msg, sizeof msg, "%s\n", fs_http_reason(bad));
		r.body = text(msg, &r.len);
	} else {
		struct fs_http_req req = {!strcmp(method, "GET") ? FS_HTTP_GET : !strcmp(method, "HEAD") ? FS_HTTP_HEAD : FS_HTTP_OTHER,
					  url, hd.openmetrics};
		h->fn(h->arg, &req, &r);
	}
	count(h, ST_REQUESTS);
	if (r.status >= 400)
		count(h, ST_BAD);
	struct MHD_Response *resp = r.body ? MHD_create_response_from_buffer(r.len, r.body, MHD_RESPMEM_MUST_FREE)
					   : MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(r.body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r.content_type ? r.content_type : "text/plain; charset=utf-8");
	if (r.allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r.allow);
	if (bad) /* what else the client sends is not read */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)r.status, resp);
	MHD_destroy_response(resp);
	return ok;
}

/* The library's own messages: none on stderr (a hostile client must not
 * fill the log); what matters is counted. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

int fs_httpd_start(struct fs_httpd *h, fs_httpd_handler fn, void *arg, char *err, size_t errlen)
{
	h->fn = fn;
	h->arg = arg;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem pool[] = {
		{h->lim.threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, (intptr_t)h->lim.threads, NULL},
		{MHD_OPTION_END, 0, NULL},
	};
	h->d = MHD_start_daemon(flags, 0, on_accept, h, on_request, h,
				MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
				MHD_OPTION_LISTEN_SOCKET, h->lfd,
				MHD_OPTION_CONNECTION_LIMIT, h->lim.max_conns,
				MHD_OPTION_CONNECTION_TIMEOUT, h->lim.timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, h->lim.conn_memory,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
				MHD_OPTION_ARRAY, pool,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "%s: the HTTP server did not start", h->addr);
		return -1;
	}
	h->lfd = -1; /* the library's now: MHD_stop_daemon closes it */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&h->sweeper, NULL, sweep, h) != 0) {
		snprintf(err, errlen, "%s: cannot start a thread", h->addr);
		return -1;
	}
	h->sweeping = true;
	return 0;
}

void fs_httpd_free(struct fs_httpd *h)
{
	if (!h)
		return;
	if (h->sweeping) {
		pthread_mutex_lock(&h->mu);
		h->stop_sweep = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->sweeper, NULL);
		pthread_cond_destroy(&h->cv);
	}
	if (h->d)
		MHD_stop_daemon(h->d); /* closes the listening socket (it is the library's) */
	if (h->lfd >= 0)
		close(h->lfd);
	pthread_mutex_destroy(&h->mu);
	free(h->peers);
	free(h);
}

const char *fs_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	default: return "";
	}
}
