/* http.c - the HTTP/1.x request-head parser (http.h). Pure: bytes in, a
 * request or a status out. */
#include "util/http.h"

#include <string.h>
#include <strings.h>

#define MAX_HEADER_LINES 64

/* RFC 9110 tchar: what a method or a header name is made of. */
static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The end of the line starting at p (the '\n'), or NULL if buf has none yet. */
static const char *line_end(const char *p, const char *end)
{
	return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
}

/* The line [p, nl) without its CR. */
static size_t line_len(const char *p, const char *nl)
{
	size_t len = (size_t)(nl - p);
	return len && p[len - 1] == '\r' ? len - 1 : len;
}

/* Can the bytes so far start a request line? Only the method is checked
 * before the line is complete: garbage is refused at its first byte. */
static bool plausible_start(const char *p, const char *end)
{
	for (; p < end && *p != ' '; p++)
		if (!is_tchar((unsigned char)*p))
			return false;
	return true;
}

/* "METHOD SP /target SP HTTP/1.x": 0, or a negative status. */
static long request_line(const char *p, size_t len, struct fs_http_req *r)
{
	const char *end = p + len, *sp1 = memchr(p, ' ', len);
	if (!sp1 || sp1 == p)
		return -400;
	for (const char *c = p; c < sp1; c++)
		if (!is_tchar((unsigned char)*c))
			return -400;
	size_t mlen = (size_t)(sp1 - p);
	r->method = mlen == 3 && !memcmp(p, "GET", 3) ? FS_HTTP_GET : mlen == 4 && !memcmp(p, "HEAD", 4) ? FS_HTTP_HEAD
										: FS_HTTP_OTHER;
	const char *target = sp1 + 1, *sp2 = memchr(target, ' ', (size_t)(end - target));
	if (!sp2 || sp2 == target || *target != '/')
		return -400;
	for (const char *c = target; c < sp2; c++)
		if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f)
			return -400;
	const char *q = memchr(target, '?', (size_t)(sp2 - target));
	size_t plen = (size_t)((q ? q : sp2) - target);
	if ((size_t)(sp2 - target) >= FS_HTTP_PATH_MAX)
		return -414;
	memcpy(r->path, target, plen);
	r->path[plen] = 0;
	const char *v = sp2 + 1;
	size_t vlen = (size_t)(end - v);
	if (vlen == 8 && !memcmp(v, "HTTP/1.1", 8))
		r->http11 = true;
	else if (vlen == 8 && !memcmp(v, "HTTP/1.0", 8))
		r->http11 = false;
	else if (vlen == 8 && !memcmp(v, "HTTP/", 5) && v[5] >= '0' && v[5] <= '9' && v[6] == '.' && v[7] >= '0' &&
		 v[7] <= '9')
		return -505;
	else
		return -400;
	return 0;
}

/* Does the comma-separated list value[0..len) hold token (no case)? */
static bool list_has(const char *value, size_t len, const char *token)
{
	size_t tl = strlen(token);
	for (size_t i = 0; i + tl <= len; i++)
		if (!strncasecmp(value + i, token, tl) && (i == 0 || value[i - 1] == ',' || value[i - 1] == ' ') &&
		    (i + tl == len || value[i + tl] == ',' || value[i + tl] == ' ' || value[i + tl] == ';'))
			return true;
	return false;
}

/* One header line: 0, or a negative status. */
static long header_line(const char *p, size_t len, struct fs_http_req *r, bool *conn_close, bool *conn_keep)
{
	const char *colon = memchr(p, ':', len);
	if (!colon || colon == p)
		return -400; /* also an obs-fold line, which starts with a blank */
	for (const char *c = p; c < colon; c++)
		if (!is_tchar((unsigned char)*c))
			return -400;
	size_t nlen = (size_t)(colon - p);
	const char *v = colon + 1, *end = p + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (const char *c = v; c < end; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			return -400;
	size_t vlen = (size_t)(end - v);
#define IS(name) (nlen == sizeof name - 1 && !strncasecmp(p, name, nlen))
	if (IS("Content-Length")) {
		if (!vlen)
			return -400;
		for (const char *c = v; c < end; c++)
			if (*c < '0' || *c > '9')
				return -400;
		for (const char *c = v; c < end; c++)
			if (*c != '0')
				return -413;
	} else if (IS("Transfer-Encoding")) {
		return -413;
	} else if (IS("Connection")) {
		*conn_close |= list_has(v, vlen, "close");
		*conn_keep |= list_has(v, vlen, "keep-alive");
	} else if (IS("Accept")) {
		r->openmetrics |= list_has(v, vlen, "application/openmetrics-text");
	}
#undef IS
	return 0;
}

long fs_http_parse(const char *buf, size_t n, size_t max_head, struct fs_http_req *r)
{
	memset(r, 0, sizeof *r);
	const char *p = buf, *end = buf + (n < max_head ? n : max_head);
	/* RFC 9112 2.2: empty lines before a request line are ignored */
	while (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')))
		p += *p == '\n' ? 1 : 2;
	if (end - p == 1 && *p == '\r') /* an empty line's CR: its LF is still to come */
		return n >= max_head ? -400 : 0;
	const char *nl = line_end(p, end);
	if (!nl) {
		if (!plausible_start(p, end))
			return -400;
		return n >= max_head ? (memchr(p, ' ', (size_t)(end - p)) ? -414 : -400) : 0;
	}
	long rc = request_line(p, line_len(p, nl), r);
	if (rc < 0)
		return rc;
	bool conn_close = false, conn_keep = false;
	for (int lines = 0;; lines++) {
		p = nl + 1;
		if (!(nl = line_end(p, end)))
			return n >= max_head ? -431 : 0;
		size_t len = line_len(p, nl);
		if (len == 0)
			break;
		if (lines == MAX_HEADER_LINES)
			return -431;
		if ((rc = header_line(p, len, r, &conn_close, &conn_keep)) < 0)
			return rc;
	}
	r->keep_alive = r->http11 ? !conn_close : conn_keep && !conn_close;
	return (long)(nl + 1 - buf);
}

const char *fs_http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return "";
	}
}
