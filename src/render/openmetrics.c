/* openmetrics.c - Prometheus text 0.0.4 and OpenMetrics 1.0 (openmetrics.h). */
#include "render/openmetrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

void fs_om_init(struct fs_om *o, bool openmetrics, size_t max_bytes)
{
	memset(o, 0, sizeof *o);
	o->openmetrics = openmetrics;
	o->max = max_bytes;
}

/* Append a whole line, or nothing (truncated) once max is reached. */
static void put_line(struct fs_om *o, const char *s, size_t n)
{
	if (o->truncated)
		return;
	if (o->len + n + 1 > o->max) {
		o->truncated = true;
		return;
	}
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 16384;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *b = realloc(o->buf, cap > o->max ? o->max : cap);
		if (!b) {
			o->truncated = true;
			return;
		}
		o->buf = b;
		o->cap = cap > o->max ? o->max : cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

static bool name_chars(const char *s, bool colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (colon && *s == ':')))
			return false;
	return true;
}

bool fs_om_name_ok(const char *name)
{
	return name_chars(name, true) && strncmp(name, "__", 2);
}

bool fs_om_label_name_ok(const char *name)
{
	return name_chars(name, false) && strncmp(name, "__", 2);
}

char *fs_om_escape(char *out, size_t cap, const char *v)
{
	size_t o = 0, n = v ? strlen(v) : 0;
	for (size_t i = 0; i < n;) {
		char tmp[4];
		size_t tl;
		uint32_t cp;
		size_t l = fs_text_utf8_decode((const unsigned char *)v + i, n - i, &cp);
		if (l == 0) {
			memcpy(tmp, "\xef\xbf\xbd", tl = 3); /* U+FFFD */
			l = 1;
		} else if (v[i] == '\\' || v[i] == '"') {
			tmp[0] = '\\', tmp[1] = v[i], tl = 2;
		} else if (v[i] == '\n') {
			tmp[0] = '\\', tmp[1] = 'n', tl = 2;
		} else {
			memcpy(tmp, v + i, tl = l);
		}
		if (o + tl + 1 > cap)
			break;
		memcpy(out + o, tmp, tl);
		o += tl;
		i += l;
	}
	if (cap)
		out[o] = 0;
	return out;
}

static const char *suffix(const struct fs_om *o)
{
	return o->type == FS_OM_COUNTER ? "_total" : o->type == FS_OM_INFO ? "_info" : "";
}

void fs_om_family(struct fs_om *o, const char *name, enum fs_om_type type, const char *unit, const char *help)
{
	char line[1024], h[600];
	snprintf(o->family, sizeof o->family, "%s", name);
	o->type = type;
	/* HELP text: backslash and newline escaped (both formats); the text is
	 * ours, but the escape keeps a line a line whatever it holds */
	size_t k = 0;
	for (const char *c = help; *c && k + 3 < sizeof h; c++) {
		if (*c == '\\' || *c == '\n')
			h[k++] = '\\';
		h[k++] = *c == '\n' ? 'n' : *c;
	}
	h[k] = 0;
	const char *sfx = o->openmetrics ? "" : suffix(o);
	const char *tname = type == FS_OM_COUNTER ? "counter" : type == FS_OM_INFO && o->openmetrics ? "info" : "gauge";
	int n = snprintf(line, sizeof line, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, h, name, sfx, tname);
	if (n > 0 && (size_t)n < sizeof line)
		put_line(o, line, (size_t)n);
	if (o->openmetrics && unit) {
		n = snprintf(line, sizeof line, "# UNIT %s %s\n", name, unit);
		if (n > 0 && (size_t)n < sizeof line)
			put_line(o, line, (size_t)n);
	}
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v. */
static void fmt_value(char *out, size_t cap, double v)
{
	if (isnan(v)) {
		snprintf(out, cap, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(out, cap, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

void fs_om_sample(struct fs_om *o, const struct fs_om_label *labels, int n, double value)
{
	char line[4096], esc[1024], val[40];
	size_t k = (size_t)snprintf(line, sizeof line, "%s%s", o->family, suffix(o));
	int shown = 0;
	for (int i = 0; i < n; i++) {
		if (!labels[i].value || !labels[i].value[0])
			continue;
		fs_om_escape(esc, sizeof esc, labels[i].value);
		int w = snprintf(line + k, sizeof line - k, "%c%s=\"%s\"", shown++ ? ',' : '{', labels[i].name, esc);
		if (w < 0 || (size_t)w >= sizeof line - k)
			return; /* cannot happen with labels of at most 1 KiB each and a few of them */
		k += (size_t)w;
	}
	fmt_value(val, sizeof val, value);
	int w = snprintf(line + k, sizeof line - k, "%s %s\n", shown ? "}" : "", val);
	if (w < 0 || (size_t)w >= sizeof line - k)
		return;
	put_line(o, line, k + (size_t)w);
}

char *fs_om_finish(struct fs_om *o, size_t *len)
{
	if (o->openmetrics) {
		/* # EOF must fit: it was kept out of max's reach */
		o->max += 7;
		o->truncated = false;
		put_line(o, "# EOF\n", 6);
	}
	if (!o->buf && (o->buf = malloc(1)))
		o->buf[0] = 0; /* nothing fitted: an empty page */
	*len = o->len;
	char *b = o->buf;
	o->buf = NULL;
	return b;
}

const char *fs_om_content_type(bool openmetrics)
{
	return openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			   : "text/plain; version=0.0.4; charset=utf-8";
}
