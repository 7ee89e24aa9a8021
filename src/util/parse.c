#include "util/parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

bool fs_scan_u64(const char **pp, uint64_t *out)
{
	const char *p = skip_blank(*pp);
	if (*p < '0' || *p > '9')
		return false;
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false; /* does not fit: rejected, *pp left where it was */
		v = v * 10 + d;
	}
	*out = v;
	*pp = p;
	return true;
}

bool fs_scan_i64(const char **pp, int64_t *out)
{
	const char *p = skip_blank(*pp);
	bool neg = *p == '-';
	if (neg)
		p++;
	if (*p < '0' || *p > '9') /* a digit right after the sign */
		return false;
	uint64_t v;
	if (!fs_scan_u64(&p, &v))
		return false;
	/* |INT64_MIN| = INT64_MAX + 1 fits only on the negative side; it is
	 * built without negating INT64_MIN's magnitude as an int64_t. */
	if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
		return false;
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	*pp = p;
	return true;
}

void fs_skip_word(const char **pp)
{
	const char *p = skip_blank(*pp);
	while (*p && !isspace((unsigned char)*p))
		p++;
	*pp = p;
}

size_t fs_next_word(const char **pp, const char **tok)
{
	const char *s = skip_blank(*pp);
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t' && *e != '\n')
		e++;
	*tok = s;
	*pp = e;
	return (size_t)(e - s);
}

bool fs_find_u64(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, klen) == 0) {
			const char *p = line + klen;
			if (*p == ':' || *p == '=' || *p == ' ' || *p == '\t') {
				if (*p == ':' || *p == '=')
					p++;
				return fs_scan_u64(&p, out);
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

uint64_t fs_counter_delta(uint64_t prev, uint64_t curr)
{
	if (curr >= prev)
		return curr - prev;
	/* A 32-bit counter (as on 32-bit kernels) that wrapped: it was in the
	 * upper half of its range and is now in the lower half. */
	if (prev <= UINT32_MAX && prev > (UINT32_MAX >> 1) && curr <= (UINT32_MAX >> 1))
		return (UINT32_MAX - prev) + curr + 1;
	return 0;
}

bool fs_parse_seconds(const char *s, double *out)
{
	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	if (strcmp(end, "ms") == 0)
		v /= 1000;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		v *= 60;
	else if (strcmp(end, "h") == 0)
		v *= 3600;
	else if (strcmp(end, "") != 0 && strcmp(end, "s") != 0)
		return false;
	*out = v;
	return true;
}

bool fs_parse_pos_int(const char *s, int *out)
{
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

int fs_scan_keyed(const char *text, const char *const *keys, int n, uint64_t *vals, bool *found)
{
	int hits = 0;
	for (int i = 0; i < n; i++)
		found[i] = false;
	for (const char *line = text; line && *line;) {
		size_t klen = strcspn(line, ": \t\n");
		for (int i = 0; i < n; i++) {
			if (!found[i] && strncmp(line, keys[i], klen) == 0 && keys[i][klen] == '\0') {
				const char *p = line + klen;
				if (*p == ':')
					p++;
				if (fs_scan_u64(&p, &vals[i])) {
					found[i] = true;
					hits++;
				}
				break;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return hits;
}
