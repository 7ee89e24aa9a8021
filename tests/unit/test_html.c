/* Unit tests of the HTML report's renderer (src/render/html*.c): the
 * escape of run-file strings against hostile ones, and a whole document
 * rendered from a report whose every string is hostile: nothing of them
 * reaches the page as markup, the page is valid UTF-8, holds one script
 * (ours), no URL, no "nan", and its series paths follow the columns. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "render/html.h"
#include "util/text.h"

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fs_html_escape(f, s);
	fclose(f);
	return buf;
}

static void check_escape(const char *in, const char *want)
{
	char *got = escaped(in);
	CHECK_STR(got, want);
	free(got);
}

static void test_escape(void)
{
	check_escape("plain", "plain");
	check_escape("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	check_escape("a\"b'c&d", "a&quot;b&#39;c&amp;d");
	check_escape("\" onmouseover=\"x", "&quot; onmouseover=&quot;x");
	check_escape("\x1b[31mred", "\\x1b[31mred");              /* controls: the text report's visible escape */
	check_escape("line\nbreak\t", "line\\x0abreak\\x09");
	check_escape("bad \xff\xfe byte", "bad \xef\xbf\xbd\xef\xbf\xbd byte"); /* invalid UTF-8: U+FFFD each */
	check_escape("\xe2\x80\xae" "evil", "\\u202eevil");      /* a bidi override */
	check_escape("µs — ok", "µs — ok");
	check_escape("back\\slash", "back\\\\slash");
	check_escape("", "");
	fs_html_escape(stdout, NULL); /* NULL writes nothing and does not crash */
	/* longer than the escape's stack buffer */
	char big[3000];
	for (int i = 0; i < (int)sizeof big - 1; i++)
		big[i] = i % 2 ? '<' : '\x01';
	big[sizeof big - 1] = '\0';
	char *got = escaped(big);
	CHECK(got && strlen(got) == 1500 * strlen("\\x01") + 1499 * strlen("&lt;"));
	CHECK(got && !strchr(got, '<') && !strchr(got, '\x01'));
	free(got);
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = fs_text_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static const char hostile[] = "<script>alert(1)</script>\" onload=\"x()\x1b[2J\xff";

static void fill(struct fs_merged *g, struct fs_html_report *r)
{
	g->nfiles = 1;
	g->nranks = 1;
	g->straggler = -1;
	g->v.primary = FS_VERDICT_STORAGE_BANDWIDTH;
	g->v.input_bound_fraction = 0.62;
	g->v.confidence = 0.8;
	g->v.predicted_speedup = NAN;
	snprintf(g->v.basis, sizeof g->v.basis, "%s", hostile);
	g->v.nev = 1;
	snprintf(g->v.ev[0].text, sizeof g->v.ev[0].text, "%s", hostile);
	snprintf(g->v.ev[0].source, sizeof g->v.ev[0].source, "%s", hostile);
	g->v.nrec = 1;
	snprintf(g->v.rec[0].knob, sizeof g->v.rec[0].knob, "%s", hostile);
	snprintf(g->v.rec[0].why, sizeof g->v.rec[0].why, "%s", hostile);
	g->v.nacct = 1;
	g->v.trainer = 0;
	g->v.acct[0] = (struct fs_accounting){.valid = true, .pid = 7, .rank = -1, .loop_s = 10,
					      .share = {0.5, 0.3, 0.1, 0, 0.05, 0.05}};
	snprintf(g->v.acct[0].basis, sizeof g->v.acct[0].basis, "steps");
	snprintf(g->nodes[0].name, sizeof g->nodes[0].name, "%s", hostile);

	r->t0 = 0;
	r->t1 = 120;
	r->nnodes = 1;
	struct fs_html_node *n = &r->node[0];
	snprintf(n->command, sizeof n->command, "%s", hostile);
	snprintf(n->path, sizeof n->path, "%s", hostile);
	n->start_unix = n->duration_s = n->interval_s = n->end_s = NAN;
	struct fs_html_chart *c = &n->chart[FS_HC_GPU];
	c->nseries = 1;
	struct fs_html_series *s = &c->s[0];
	snprintf(s->label, sizeof s->label, "%s", hostile);
	for (int i = 0; i < FS_HTML_COLUMNS; i++)
		s->lo[i] = s->hi[i] = NAN;
	/* columns 10, 11 and 12 (a line with a spread), then 900 alone: a gap */
	s->lo[10] = 5, s->hi[10] = 50;
	s->lo[11] = s->hi[11] = 40;
	s->lo[12] = 10, s->hi[12] = 90;
	s->lo[900] = s->hi[900] = 70;
	s->points = 4;
	n->nspans = 1;
	n->span[0] = (struct fs_html_span){.t0 = 30, .t1 = 31, .kind = FS_HS_OTHER, .count = 1};
	snprintf(n->span[0].name, sizeof n->span[0].name, "%s", hostile);
	n->knobs.nrows = 1;
	snprintf(n->knobs.row[0].cell[0], sizeof n->knobs.row[0].cell[0], "%s", hostile);
}

static void test_document(void)
{
	struct fs_merged *g = calloc(1, sizeof *g);
	struct fs_html_report *r = calloc(1, sizeof *r);
	r->node = calloc(1, sizeof *r->node);
	fill(g, r);
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	fs_html_render(f, g, r);
	fclose(f);
	CHECK(len > 1000);
	CHECK(valid_utf8(doc, len));
	CHECK_INT(count(doc, "<script"), 1);   /* ours, and no other */
	CHECK_INT(count(doc, "alert(1)"), count(doc, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(count(doc, "&lt;script&gt;alert(1)") >= 8); /* every hostile field was written, escaped */
	CHECK_INT(count(doc, "onload=\""), 0);
	CHECK_INT(count(doc, "\x1b"), 0);
	CHECK_INT(count(doc, "http://") + count(doc, "https://"), 0); /* nothing fetched; inline SVG needs no namespace */
	CHECK_INT(count(doc, "nan"), 0);
	CHECK_INT(count(doc, "inf"), 0);
	CHECK_INT(count(doc, "<svg class=\"timeline\""), 1 + FS_HC__N); /* the phases strip and every chart */
	CHECK_INT(count(doc, "class=\"none\""), FS_HC__N - 1);         /* the charts without a series say so */
	/* the series: M at column 10 (x = LEFT + 10.5) with its spread, L to
	 * 11 and 12, then a new M at 900 (too far to join); its values */
	const char *d = strstr(doc, "class=\"series line\"");
	CHECK(d != NULL);
	if (d) {
		CHECK(strstr(d, "data-points=\"4\"") != NULL);
		CHECK(strstr(d, ";;;;;;;;;;5,50;40;10,90;;") != NULL);
		CHECK(strstr(d, "d=\"M94.5,") != NULL);
		CHECK(strstr(d, "L95.5,") != NULL && strstr(d, "L96.5,") != NULL);
		CHECK(strstr(d, "M984.5,") != NULL);
	}
	CHECK(strstr(doc, "data-bucket=\"input_wait\"") != NULL);
	free(doc);
	free(r->node);
	free(r);
	free(g);
}

int main(void)
{
	test_escape();
	test_document();
	return check_exit("test_html");
}
