/* text.c - UTF-8 decoding and the visible escape of text.h. */
#include "util/text.h"

#include <stdio.h>
#include <string.h>

size_t fs_text_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (n == 0)
		return 0;
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0; /* a continuation byte, 0xc0/0xc1 (overlong) or 0xf5.. */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0; /* overlong, beyond Unicode, or a surrogate */
	*cp = v;
	return len;
}

bool fs_text_is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The escaped form of the character at s into piece[16]; returns the number
 * of input bytes it stands for (>= 1). */
static size_t escape_one(const unsigned char *s, size_t n, char piece[16])
{
	uint32_t cp;
	size_t len = fs_text_utf8_decode(s, n, &cp);
	if (len == 0) {
		memcpy(piece, "\xef\xbf\xbd", 4); /* U+FFFD */
		return 1;
	}
	if (cp < 0x80 && fs_text_is_control(cp))
		snprintf(piece, 16, "\\x%02x", (unsigned)cp);
	else if (fs_text_is_control(cp))
		snprintf(piece, 16, "\\u%04x", (unsigned)cp);
	else if (cp == '\\')
		memcpy(piece, "\\\\", 3);
	else {
		memcpy(piece, s, len);
		piece[len] = '\0';
	}
	return len;
}

char *fs_text_escape(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	out[0] = '\0';
	if (!s)
		return out;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n > 0) {
		char piece[16];
		size_t used = escape_one(p, n, piece);
		size_t plen = strlen(piece);
		if (o + plen >= cap)
			break;
		memcpy(out + o, piece, plen + 1);
		o += plen;
		p += used;
		n -= used;
	}
	return out;
}

void fs_text_cell(FILE *out, const char *s, int width)
{
	int chars = 0;
	for (const char *p = s; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	fprintf(out, "%s%*s", s, chars < width ? width - chars : 0, "");
}
