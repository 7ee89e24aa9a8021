/* The HTTP request-head parser (util/http.c): whole, partial, pipelined,
 * garbage and oversize heads; and the exporter's address forms. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "check.h"
#include "serve/httpd.h"
#include "util/http.h"

static long parse(const char *s, struct fs_http_req *r)
{
	return fs_http_parse(s, strlen(s), 8192, r);
}

static void test_whole(void)
{
	struct fs_http_req r;
	const char *get = "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n";
	CHECK_INT(parse(get, &r), (long)strlen(get));
	CHECK_INT(r.method, FS_HTTP_GET);
	CHECK_STR(r.path, "/metrics");
	CHECK(r.http11 && r.keep_alive && r.openmetrics);
	/* bare LF lines, HTTP/1.0: closes unless asked to keep it */
	const char *head = "HEAD / HTTP/1.0\nAccept: text/plain\n\n";
	CHECK_INT(parse(head, &r), (long)strlen(head));
	CHECK_INT(r.method, FS_HTTP_HEAD);
	CHECK(!r.http11 && !r.keep_alive && !r.openmetrics);
	CHECK(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r) > 0 && r.keep_alive);
	CHECK(parse("GET / HTTP/1.1\r\nconnection: Close\r\n\r\n", &r) > 0 && !r.keep_alive);
	/* another method parses: the server answers it 405 */
	CHECK(parse("DELETE /metrics HTTP/1.1\r\n\r\n", &r) > 0 && r.method == FS_HTTP_OTHER);
	CHECK(parse("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", &r) > 0);
	/* leading empty lines are skipped (RFC 9112 2.2) */
	CHECK_INT(parse("\r\nGET / HTTP/1.1\r\n\r\n", &r), 20);
	/* ... also when the first read holds only the CR of one (found by
	 * tests/fuzz/fuzz_http.c: it was refused with 400) */
	CHECK_INT(parse("\r", &r), 0);
	CHECK_INT(parse("\r\n\r", &r), 0);
}

static void test_partial(void)
{
	struct fs_http_req r;
	const char *get = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
	/* every prefix of a valid head is "more, please", never an error */
	for (size_t n = 0; n < strlen(get); n++)
		CHECK_INT(fs_http_parse(get, n, 8192, &r), 0);
	CHECK_INT(fs_http_parse(get, strlen(get), 8192, &r), (long)strlen(get));
}

static void test_pipelined(void)
{
	struct fs_http_req r;
	const char *two = "GET /a HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\nGET";
	long n = parse(two, &r);
	CHECK_INT(n, 19);
	CHECK_STR(r.path, "/a");
	long m = parse(two + n, &r);
	CHECK_INT(m, 44);
	CHECK_STR(r.path, "/metrics");
	CHECK(!r.keep_alive);
	CHECK_INT(parse(two + n + m, &r), 0); /* the third is not whole yet */
}

static void test_garbage(void)
{
	struct fs_http_req r;
	/* refused at the first bytes that cannot start a request */
	CHECK_INT(fs_http_parse("\x16\x03\x01\x02", 4, 8192, &r), -400); /* a TLS hello */
	CHECK_INT(parse("{\"json\": 1}", &r), -400);
	CHECK_INT(parse("GET\x01", &r), -400);
	CHECK_INT(parse("GET metrics HTTP/1.1\r\n\r\n", &r), -400);  /* not origin-form */
	CHECK_INT(parse("GET / HTTP/1.1 x\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET  / HTTP/1.1\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / FTP/1.1\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/2.0\r\n\r\n", &r), -505);
	CHECK_INT(parse("GET / HTTP/1.1\r\nNo colon\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/1.1\r\n folded: x\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/1.1\r\nX: a\x01z\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &r), -413);
	CHECK_INT(parse("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &r), -400);
	CHECK_INT(parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r), -413);
	CHECK_INT(fs_http_parse("GET /\0 HTTP/1.1\r\n\r\n", 20, 8192, &r), -400);
}

static void test_oversize(void)
{
	struct fs_http_req r;
	static char big[20000];
	/* a header that never ends: 431 once max_head bytes are held */
	strcpy(big, "GET / HTTP/1.1\r\nX: ");
	memset(big + strlen(big), 'a', sizeof big - 1 - strlen(big));
	CHECK_INT(fs_http_parse(big, 8191, 8192, &r), 0);
	CHECK_INT(fs_http_parse(big, 8192, 8192, &r), -431);
	CHECK_INT(fs_http_parse(big, sizeof big - 1, 8192, &r), -431);
	/* a long target */
	memset(big, 0, sizeof big);
	strcpy(big, "GET /");
	memset(big + 5, 'p', 300);
	strcat(big, " HTTP/1.1\r\n\r\n");
	CHECK_INT(parse(big, &r), -414);
	/* too many header lines */
	strcpy(big, "GET / HTTP/1.1\r\n");
	for (int i = 0; i < 70; i++)
		strcat(big, "A: b\r\n");
	strcat(big, "\r\n");
	CHECK_INT(parse(big, &r), -431);
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
	test_whole();
	test_partial();
	test_pipelined();
	test_garbage();
	test_oversize();
	test_addr();
	return check_exit("test_http");
}
