/* mountinfo - the one parser of /proc/self/mountinfo (mountinfo.h). */
#include "source/mountinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pfile.h"

static int octal(char ch)
{
	return ch >= '0' && ch <= '7' ? ch - '0' : -1;
}

bool fs_mountinfo_unescape(const char *src, size_t len, char *out, size_t cap)
{
	size_t o = 0;
	if (cap == 0)
		return false;
	/* out may be src itself: o never passes i, so nothing is read after it is written */
	for (size_t i = 0; i < len; i++) {
		char ch = src[i];
		if (ch == '\\' && i + 3 < len && octal(src[i + 1]) >= 0 && octal(src[i + 2]) >= 0 &&
		    octal(src[i + 3]) >= 0) {
			int v = octal(src[i + 1]) * 64 + octal(src[i + 2]) * 8 + octal(src[i + 3]);
			if (v > 0 && v < 256) {
				ch = (char)v;
				i += 3;
			}
		}
		if (o + 1 >= cap) {
			out[o] = '\0';
			return false;
		}
		out[o++] = ch;
	}
	out[o] = '\0';
	return true;
}

/* The next space-separated field of *p, NUL-terminated in place; *p moves
 * past it. NULL at the end of the line. */
static char *field(char **p)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n')
		return NULL;
	char *start = s;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n')
		s++;
	if (*s == ' ' || *s == '\t') {
		*s++ = '\0';
	} else if (*s == '\n') {
		*s = '\0'; /* the end of the line: later calls see NUL */
	}
	*p = s;
	return start;
}

/* A field unescaped in place; NULL if absent. */
static char *text_field(char **p)
{
	char *f = field(p);
	if (f)
		fs_mountinfo_unescape(f, strlen(f), f, strlen(f) + 1);
	return f;
}

static bool parse_uint(const char *s, char stop, unsigned *out, const char **end)
{
	uint64_t v = 0;
	const char *q = s;
	while (*q >= '0' && *q <= '9' && v <= UINT32_MAX)
		v = v * 10 + (unsigned)(*q++ - '0');
	if (q == s || v > UINT32_MAX || *q != stop)
		return false;
	*out = (unsigned)v;
	*end = q;
	return true;
}

bool fs_mountinfo_parse_line(char *line, struct fs_mountinfo_entry *e)
{
	char *p = line, *id = field(&p), *parent = field(&p), *mm = field(&p);
	const char *end;
	unsigned uid, upar;
	memset(e, 0, sizeof *e);
	if (!id || !parent || !mm || !parse_uint(id, '\0', &uid, &end) ||
	    !parse_uint(parent, '\0', &upar, &end) || !parse_uint(mm, ':', &e->maj, &end) ||
	    !parse_uint(end + 1, '\0', &e->min, &end) || uid > INT_MAX || upar > INT_MAX)
		return false;
	e->id = (int)uid;
	e->parent = (int)upar;
	e->root = text_field(&p);
	e->mount = text_field(&p);
	if (!e->root || !e->mount || !field(&p)) /* mount options */
		return false;
	char *f;
	while ((f = field(&p)) && strcmp(f, "-") != 0) /* optional fields: shared:N master:N ... */
		;
	if (!f)
		return false;
	e->fstype = text_field(&p);
	e->source = text_field(&p);
	e->super = field(&p);
	if (!e->super)
		e->super = "";
	return e->fstype && e->source;
}

/* Is a the same as b or above it ("/a" of "/a/b"; "/" of everything)? */
static bool covers_path(const char *a, const char *b)
{
	size_t n = strlen(a);
	if (n == 1 && a[0] == '/')
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '/' || b[n] == '\0');
}

/* Is mount id q among the parents of mount index x (listed or not)? */
static bool mount_above(const struct fs_mountinfo *mi, const int *par, int q, int x)
{
	for (int i = x, steps = 0; i >= 0 && steps <= mi->n; i = par[i], steps++)
		if (mi->v[i].parent == q)
			return true;
	return false;
}

/* Which mount y first covers x, or -1: y came later and sits on x's mount
 * point (its parent is x), or on that point or above it inside a mount that
 * holds x. */
static int covered_by(const struct fs_mountinfo *mi, const int *par, int x)
{
	const struct fs_mountinfo_entry *e = &mi->v[x];
	for (int j = x + 1; j < mi->n; j++) {
		const struct fs_mountinfo_entry *y = &mi->v[j];
		if (!covers_path(y->mount, e->mount))
			continue;
		if ((y->parent == e->id && !strcmp(y->mount, e->mount)) ||
		    (y->parent != e->id && mount_above(mi, par, y->parent, x)))
			return j;
	}
	return -1;
}

/* Hidden: covered by a later mount (covered_by), or inside a hidden mount
 * that something other than itself covers. */
static void mark_hidden(struct fs_mountinfo *mi)
{
	int *par = malloc((size_t)mi->n * 2 * sizeof *par);
	if (!par)
		return; /* out of memory: every mount shown as visible */
	int *by = par + mi->n;
	for (int i = 0; i < mi->n; i++) {
		const struct fs_mountinfo_entry *p = fs_mountinfo_by_id(mi, mi->v[i].parent);
		par[i] = p && p != &mi->v[i] ? (int)(p - mi->v) : -1;
	}
	for (int i = 0; i < mi->n; i++) {
		by[i] = covered_by(mi, par, i);
		mi->v[i].hidden = by[i] >= 0;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < mi->n; i++) {
			int p = par[i];
			if (!mi->v[i].hidden && p >= 0 && mi->v[p].hidden && by[p] != i)
				changed = mi->v[i].hidden = true;
		}
	}
	free(par);
}

int fs_mountinfo_parse(const char *text, struct fs_mountinfo *mi)
{
	memset(mi, 0, sizeof *mi);
	size_t lines = 1;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	mi->text = strdup(text);
	mi->v = calloc(lines, sizeof *mi->v);
	if (!mi->text || !mi->v) {
		fs_mountinfo_free(mi);
		return -1;
	}
	for (char *line = mi->text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (fs_mountinfo_parse_line(line, &mi->v[mi->n]))
			mi->n++;
		line = nl ? nl + 1 : NULL;
	}
	mark_hidden(mi);
	return 0;
}

int fs_mountinfo_load(const struct fs_paths *p, struct fs_mountinfo *mi)
{
	char path[PATH_MAX];
	struct fs_buf b = {0};
	memset(mi, 0, sizeof *mi);
	if (fs_read_file(fs_proc_path(path, sizeof path, p, "self/mountinfo"), &b) < 0) {
		int e = errno;
		fs_buf_free(&b);
		errno = e;
		return -1;
	}
	int rc = fs_mountinfo_parse(b.data ? b.data : "", mi);
	fs_buf_free(&b);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

void fs_mountinfo_free(struct fs_mountinfo *mi)
{
	free(mi->v);
	free(mi->text);
	memset(mi, 0, sizeof *mi);
}

const struct fs_mountinfo_entry *fs_mountinfo_by_id(const struct fs_mountinfo *mi, int id)
{
	for (int i = 0; i < mi->n; i++)
		if (mi->v[i].id == id)
			return &mi->v[i];
	return NULL;
}

const struct fs_mountinfo_entry *fs_mountinfo_by_dev(const struct fs_mountinfo *mi, unsigned maj,
						     unsigned min)
{
	const struct fs_mountinfo_entry *hidden = NULL;
	for (int i = mi->n - 1; i >= 0; i--) {
		const struct fs_mountinfo_entry *e = &mi->v[i];
		if (e->maj != maj || e->min != min)
			continue;
		if (!e->hidden)
			return e;
		if (!hidden)
			hidden = e;
	}
	return hidden;
}

bool fs_mountinfo_has_root(const struct fs_mountinfo *mi)
{
	for (int i = 0; i < mi->n; i++)
		if (!mi->v[i].hidden && !strcmp(mi->v[i].mount, "/"))
			return true;
	return false;
}

bool fs_mountinfo_option(const struct fs_mountinfo_entry *e, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	/* split on the raw commas: an escaped one ("\054") belongs to a value */
	for (const char *o = e->super; o && *o;) {
		const char *comma = strchr(o, ',');
		size_t len = comma ? (size_t)(comma - o) : strlen(o);
		if (len > n && !strncmp(o, name, n) && o[n] == '=')
			return fs_mountinfo_unescape(o + n + 1, len - n - 1, out, cap);
		o = comma ? comma + 1 : NULL;
	}
	return false;
}
