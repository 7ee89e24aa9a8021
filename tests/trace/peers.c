/* peers.c - a job for the tracer's per-socket accounting (the peers table):
 * known bytes over known endpoints, and the calls' results and errno.
 *
 *   peers DIR          the exchange below; endpoints into DIR/ports (one
 *                      "name port" a line), results on stdout (the same
 *                      traced or not: the transparency check)
 *   peers many N       N TCP connections in turn to a listener of its own,
 *                      10 bytes each way (more pairs than the tracer keeps)
 *   peers bench N      the tracer's cost per socket call: 64-byte UDP send +
 *                      recv on loopback, the C library's and the interposed
 *                      functions alternately (printed, not asserted)
 *
 * The exchange (every byte count is a constant the test checks):
 *   TCP 127.0.0.1: the client (main thread) send()s TCP_UP bytes and
 *     read()s TCP_DOWN; the server (a second thread) accept()s, recv()s
 *     TCP_UP and write()s TCP_DOWN.
 *   UDP 127.0.0.1: socket a connect()s to b and send()s UDP_N datagrams of
 *     UDP_LEN bytes; b (never connected) recvfrom()s them.
 *   Unix, a path under DIR: the client sendmsg()s UNIX_UP bytes, the
 *     accepted socket recvmsg()s them and send()s UNIX_DOWN back.
 *   Failing calls: recv on an empty non-blocking socket (EAGAIN), send on
 *     a socket never connected (EPIPE or ENOTCONN), read of a closed fd
 *     (EBADF); and errno left as it was by successful calls (a recvfrom on
 *     the unconnected b makes the tracer's getpeername fail with ENOTCONN).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define TCP_UP 123457
#define TCP_DOWN 654321
#define UDP_N 3
#define UDP_LEN 1000
#define UNIX_UP 7777
#define UNIX_DOWN 555

#define SENTINEL 4242 /* errno before a call that must not change it */

static void die(const char *what)
{
	fprintf(stderr, "peers: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	if (getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		die("getsockname");
	return ntohs(a.sin_port);
}

static int tcp_listener(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0)
		die("tcp listener");
	return fd;
}

static char buf[1 << 20];
static char server_buf[1 << 20]; /* the server thread's: two threads, two buffers */

/* Move exactly n bytes with the call given (short transfers repeated). */
static void all_send(int fd, long n)
{
	while (n > 0) {
		ssize_t k = send(fd, buf, n < (long)sizeof buf ? (size_t)n : sizeof buf, 0);
		if (k <= 0)
			die("send");
		n -= k;
	}
}

static void all_recv(int fd, char *into, long n)
{
	while (n > 0) {
		ssize_t k = recv(fd, into, n < (long)sizeof buf ? (size_t)n : sizeof buf, 0);
		if (k <= 0)
			die("recv");
		n -= k;
	}
}

static void all_write(int fd, const char *from, long n)
{
	while (n > 0) {
		ssize_t k = write(fd, from, n < (long)sizeof buf ? (size_t)n : sizeof buf);
		if (k <= 0)
			die("write");
		n -= k;
	}
}

static void all_read(int fd, long n)
{
	while (n > 0) {
		ssize_t k = read(fd, buf, n < (long)sizeof buf ? (size_t)n : sizeof buf);
		if (k <= 0)
			die("read");
		n -= k;
	}
}

static void *tcp_server(void *arg)
{
	int lfd = *(int *)arg;
	int c = accept(lfd, NULL, NULL);
	if (c < 0)
		die("accept");
	all_recv(c, server_buf, TCP_UP);
	all_write(c, server_buf, TCP_DOWN);
	close(c);
	return NULL;
}

static void tcp_case(FILE *ports)
{
	int lfd = tcp_listener();
	pthread_t th;
	if (pthread_create(&th, NULL, tcp_server, &lfd) != 0)
		die("pthread_create");
	int c = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons((uint16_t)port_of(lfd))};
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0)
		die("connect");
	fprintf(ports, "tcp_server %d\ntcp_client %d\n", port_of(lfd), port_of(c));
	all_send(c, TCP_UP);
	all_read(c, TCP_DOWN);
	pthread_join(th, NULL);
	close(c);
	close(lfd);
	printf("tcp up=%d down=%d\n", TCP_UP, TCP_DOWN);
}

static void udp_case(FILE *ports)
{
	int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (a < 0 || b < 0 || bind(a, (struct sockaddr *)&lo, sizeof lo) != 0 ||
	    bind(b, (struct sockaddr *)&lo, sizeof lo) != 0)
		die("udp sockets");
	lo.sin_port = htons((uint16_t)port_of(b));
	if (connect(a, (struct sockaddr *)&lo, sizeof lo) != 0)
		die("udp connect");
	fprintf(ports, "udp_a %d\nudp_b %d\n", port_of(a), port_of(b));
	for (int i = 0; i < UDP_N; i++)
		if (send(a, buf, UDP_LEN, 0) != UDP_LEN)
			die("udp send");
	long got = 0;
	int errno_kept = 1;
	for (int i = 0; i < UDP_N; i++) {
		struct sockaddr_in from;
		socklen_t len = sizeof from;
		errno = SENTINEL;
		ssize_t k = recvfrom(b, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
		errno_kept &= errno == SENTINEL;
		if (k < 0)
			die("recvfrom");
		got += k;
	}
	printf("udp sent=%d got=%ld errno_kept=%d\n", UDP_N * UDP_LEN, got, errno_kept);
	close(a);
	close(b);
}

static void unix_case(const char *dir, FILE *ports)
{
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	snprintf(u.sun_path, sizeof u.sun_path, "%s/sock", dir);
	unlink(u.sun_path);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&u, sizeof u) != 0 || listen(l, 1) != 0 ||
	    connect(c, (struct sockaddr *)&u, sizeof u) != 0)
		die("unix sockets");
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("unix accept");
	fprintf(ports, "unix_path %s\n", u.sun_path);
	struct iovec iov = {buf, UNIX_UP};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (sendmsg(c, &m, 0) != UNIX_UP)
		die("sendmsg");
	long got = 0;
	while (got < UNIX_UP) {
		iov.iov_len = (size_t)(UNIX_UP - got);
		ssize_t k = recvmsg(s, &m, 0);
		if (k <= 0)
			die("recvmsg");
		got += k;
	}
	if (send(s, buf, UNIX_DOWN, 0) != UNIX_DOWN)
		die("unix send");
	all_recv(c, buf, UNIX_DOWN);
	printf("unix up=%ld down=%d\n", got, UNIX_DOWN);
	close(s);
	close(c);
	close(l);
	unlink(u.sun_path);
}

/* Results and errno of calls that fail: the same with the tracer. */
static void failing_case(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		die("socketpair");
	errno = 0;
	ssize_t r = recv(sv[0], buf, 10, 0);
	printf("recv empty: %zd %s\n", r, strerror(errno));
	int t = socket(AF_INET, SOCK_STREAM, 0);
	errno = 0;
	r = send(t, buf, 10, MSG_NOSIGNAL);
	printf("send unconnected: %zd %s\n", r, errno == EPIPE || errno == ENOTCONN ? "EPIPE/ENOTCONN" : strerror(errno));
	errno = 0;
	r = read(t, buf, 10);
	printf("read unconnected: %zd %s\n", r, strerror(errno));
	close(t);
	errno = 0;
	r = read(t, buf, 10);
	printf("read closed: %zd %s\n", r, strerror(errno));
	errno = SENTINEL;
	r = write(sv[1], buf, 10);
	printf("write pair: %zd errno_kept=%d\n", r, errno == SENTINEL);
	errno = SENTINEL;
	r = read(sv[0], buf, 100);
	printf("read pair: %zd errno_kept=%d\n", r, errno == SENTINEL);
	close(sv[0]);
	close(sv[1]);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);

/* Seconds for n times: 64 bytes sent on a, received on b, through the
 * functions given. */
static double udp_loop(int a, int b, long n, send_fn snd, recv_fn rcv)
{
	char m[64] = {0};
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		if (snd(a, m, sizeof m, 0) != (ssize_t)sizeof m || rcv(b, m, sizeof m, 0) != (ssize_t)sizeof m)
			die("send/recv");
	return now_s() - t0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The tracer's cost per socket call, as bench/trace_cost.c measures file
 * calls: in one process and one thread (no wakeups between threads: their
 * noise is 100 times the cost), 21 rounds of the same loop through the C
 * library's send/recv (looked up in libc.so.6, past any LD_PRELOAD) and
 * through the interposed ones, alternately; the medians per call. */
static void bench(long n)
{
	int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (a < 0 || b < 0 || bind(b, (struct sockaddr *)&lo, sizeof lo) != 0)
		die("udp sockets");
	lo.sin_port = htons((uint16_t)port_of(b));
	if (connect(a, (struct sockaddr *)&lo, sizeof lo) != 0)
		die("udp connect");
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	send_fn lsend = libc ? (send_fn)dlsym(libc, "send") : NULL;
	recv_fn lrecv = libc ? (recv_fn)dlsym(libc, "recv") : NULL;
	if (!lsend || !lrecv)
		die("libc.so.6's send/recv");
	enum { ROUNDS = 21 };
	double plain[ROUNDS], traced[ROUNDS];
	udp_loop(a, b, n / 10, send, recv); /* warm: the endpoints are read here */
	for (int r = 0; r < ROUNDS; r++) {
		plain[r] = udp_loop(a, b, n, lsend, lrecv) / (double)n / 2 * 1e9;
		traced[r] = udp_loop(a, b, n, send, recv) / (double)n / 2 * 1e9;
	}
	qsort(plain, ROUNDS, sizeof plain[0], cmp_double);
	qsort(traced, ROUNDS, sizeof traced[0], cmp_double);
	printf("send+recv of 64 bytes, medians of %d rounds of %ld: libc %.1f ns per call, interposed %.1f (+%.1f)\n",
	       ROUNDS, n, plain[ROUNDS / 2], traced[ROUNDS / 2], traced[ROUNDS / 2] - plain[ROUNDS / 2]);
	close(a);
	close(b);
}

/* N connections one after the other to a listener of this process, 10
 * bytes each way (more pairs than the tracer's table has entries: they
 * are folded, none lost). */
static long many_n;

static void *many_server(void *arg)
{
	int lfd = *(int *)arg;
	for (long i = 0; i < many_n; i++) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			die("accept");
		all_recv(c, server_buf, 10);
		all_write(c, server_buf, 10);
		close(c);
	}
	return NULL;
}

static void many(long n)
{
	int lfd = tcp_listener();
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons((uint16_t)port_of(lfd))};
	many_n = n;
	pthread_t th;
	if (pthread_create(&th, NULL, many_server, &lfd) != 0)
		die("pthread_create");
	for (long i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0)
			die("connect");
		all_send(c, 10);
		all_read(c, 10);
		close(c);
	}
	pthread_join(th, NULL);
	close(lfd);
	printf("many connections=%ld port=%d\n", n, ntohs(a.sin_port));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "bench")) {
		bench(atol(argv[2]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "many")) {
		memset(buf, 'x', sizeof buf);
		many(atol(argv[2]));
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: peers DIR | peers many N | peers bench N\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/ports", argv[1]);
	FILE *ports = fopen(path, "w");
	if (!ports)
		die(path);
	memset(buf, 'x', sizeof buf);
	tcp_case(ports);
	udp_case(ports);
	unix_case(argv[1], ports);
	failing_case();
	fclose(ports);
	return 0;
}
