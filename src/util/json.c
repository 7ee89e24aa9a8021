#include "util/json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util/text.h"

void fs_json_init(struct fs_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
}

/* A JSON string: always valid UTF-8. Controls (and the characters text.h
 * calls controls: C1, bidirectional overrides, U+2028/U+2029) as \uXXXX,
 * a byte that is not valid UTF-8 as \ufffd. */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n > 0) {
		uint32_t cp;
		size_t len = fs_text_utf8_decode(p, n, &cp);
		if (len == 0) {
			fputs("\\ufffd", out);
			len = 1;
		} else if (cp == '"') {
			fputs("\\\"", out);
		} else if (cp == '\\') {
			fputs("\\\\", out);
		} else if (cp == '\n') {
			fputs("\\n", out);
		} else if (cp == '\r') {
			fputs("\\r", out);
		} else if (cp == '\t') {
			fputs("\\t", out);
		} else if (fs_text_is_control(cp)) {
			fprintf(out, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(p, 1, len, out);
		}
		p += len;
		n -= len;
	}
	fputc('"', out);
}

/* The comma and key before a value. */
static void lead(struct fs_json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
	if (key) {
		put_string(j->out, key);
		fputc(':', j->out);
	}
}

static void open_(struct fs_json *j, const char *key, char open, char close)
{
	lead(j, key);
	fputc(open, j->out);
	if (j->depth + 1 < FS_JSON_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
	j->closer[j->depth] = close;
}

void fs_json_object(struct fs_json *j, const char *key)
{
	open_(j, key, '{', '}');
}

void fs_json_array(struct fs_json *j, const char *key)
{
	open_(j, key, '[', ']');
}

void fs_json_end(struct fs_json *j)
{
	if (j->depth == 0)
		return;
	fputc(j->closer[j->depth], j->out);
	j->depth--;
	if (j->depth == 0)
		fputc('\n', j->out);
}

void fs_json_string(struct fs_json *j, const char *key, const char *value)
{
	lead(j, key);
	if (value)
		put_string(j->out, value);
	else
		fputs("null", j->out);
}

void fs_json_number(struct fs_json *j, const char *key, double value)
{
	lead(j, key);
	if (isfinite(value))
		fprintf(j->out, "%.15g", value);
	else
		fputs("null", j->out);
}

void fs_json_int(struct fs_json *j, const char *key, long long value)
{
	lead(j, key);
	fprintf(j->out, "%lld", value);
}

void fs_json_bool(struct fs_json *j, const char *key, bool value)
{
	lead(j, key);
	fputs(value ? "true" : "false", j->out);
}
