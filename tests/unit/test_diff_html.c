/* Unit tests of the diff's HTML (src/render/diff_html.c) on a comparison
 * built by hand, where the recorded runs of tests/integration/diff_html.sh
 * cannot go: a side without an accounting (no bar, "unknown"), numbers
 * that are not known (never "nan" or "inf" on the page), hostile strings
 * in every place a run file reaches (paths, loader, knob and environment
 * keys and values, a figure's device) and a headline whose run-file text
 * is escaped already (entities only, its backslashes not doubled). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/diff.h"

static void side(struct fs_diff_side *s, bool known)
{
	s->verdict = known ? FS_VERDICT_LOADER_PARALLELISM : FS_VERDICT_UNDETERMINED;
	s->input_bound = s->confidence = s->predicted_speedup = s->loop_s = s->step_s = s->samples_per_s = NAN;
	s->batch_size = -1;
	snprintf(s->basis, sizeof s->basis, "%s", known ? "steps" : "<i>nothing</i>");
	if (!known)
		return;
	s->acct_valid = true;
	snprintf(s->acct_basis, sizeof s->acct_basis, "steps");
	s->share[FS_BUCKET_BUSY] = 0.25;
	s->share[FS_BUCKET_INPUT] = 0.75;
	s->steps = 40;
	s->loop_s = 4;
	s->step_s = 0.1;
	s->batch_size = 8;
	s->samples_per_s = 80;
	snprintf(s->loader, sizeof s->loader, "<img src=x onerror=alert(1)>");
}

static void hostile(struct fs_diff *d)
{
	memset(d, 0, sizeof *d);
	side(&d->a, true);
	side(&d->b, false);
	d->step_ratio = d->samples_ratio = NAN;
	for (int b = 0; b < FS_BUCKET__N; b++)
		d->bucket_change[b] = NAN;
	d->largest_bucket = -1;
	d->nknobs = 1;
	d->knobs[0] = (struct fs_diff_pair){.key = "num_workers\"><script>", .a = "2' onclick='x", .b = "",
					    .in_a = true, .in_b = false, .main_knob = true};
	d->nenv = 1;
	d->env[0] = (struct fs_diff_pair){.key = "command", .a = "run \x1b[31m <svg onload=alert(2)>",
					  .b = "run & done", .in_a = true, .in_b = true};
	d->nfig = 2;
	d->fig[0] = (struct fs_diff_figure){.name = "disk_util_pct", .unit = "%", .key = "<b>vda</b>",
					    .a = 50, .b = NAN, .ratio = NAN};
	d->fig[1] = (struct fs_diff_figure){.name = "disk_read_bytes_per_s", .unit = "B/s", .key = "vda",
					    .a = INFINITY, .b = 1e6, .ratio = NAN, .changed = true};
	d->nchanged = 1;
	/* as fs_diff writes it: the loader's name through the visible escape */
	snprintf(d->headline, sizeof d->headline, "step time unknown (B without steps): after loader \\x1b<img> → x");
}

static char *page(const struct fs_diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fs_diff_render_html(f, d, "a\"<b>.db", "b'&.db");
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

int main(void)
{
	struct fs_diff *d = malloc(sizeof *d);
	hostile(d);
	char *p = page(d);
	CHECK(p != NULL);
	if (!p)
		return check_exit("test_diff_html");
	/* no run-file string as markup */
	static const char *const bad[] = {"<img", "<script", "<svg onload", "<b>vda", "<i>nothing", "\x1b",
					  "' onclick", "\"><script"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(!strstr(p, bad[i]));
	CHECK(strstr(p, "&lt;img src=x onerror=alert(1)&gt;") != NULL);           /* the loader */
	CHECK(strstr(p, "num_workers&quot;&gt;&lt;script&gt;") != NULL);           /* a knob's key */
	CHECK(strstr(p, "2&#39; onclick=&#39;x") != NULL);                          /* its value */
	CHECK(strstr(p, "(not in B)") != NULL);                                     /* the knob B lacks */
	CHECK(strstr(p, "run \\x1b[31m &lt;svg onload=alert(2)&gt;") != NULL);     /* visible escape, then entities */
	CHECK(strstr(p, "run &amp; done") != NULL);
	CHECK(strstr(p, "a&quot;&lt;b&gt;.db") != NULL && strstr(p, "b&#39;&amp;.db") != NULL); /* the paths */
	/* the headline: entities only, so its one backslash stays one */
	CHECK(strstr(p, "after loader \\x1b&lt;img&gt; → x</p>") != NULL);
	CHECK(!strstr(p, "\\\\x1b&lt;img"));
	/* A has a bar, B (no accounting) says so instead */
	CHECK_INT(count(p, "<svg"), 1);
	CHECK(strstr(p, "<div class=\"runbar\" id=\"bar-a\"><b>A</b><svg") != NULL);
	CHECK(strstr(p, "<div class=\"runbar\" id=\"bar-b\"><b>B</b><span>unknown") != NULL);
	CHECK_INT(count(p, "<rect class=\"bucket\""), 2); /* busy and input wait; the empty buckets drawn as nothing */
	/* numbers not known: "unknown", never nan or inf */
	CHECK(!strstr(p, "nan") && !strstr(p, "inf") && !strstr(p, "NaN"));
	CHECK(count(p, ">unknown<") >= 6);
	/* every figure a row; the changed one marked, the other not */
	CHECK_INT(count(p, "<tr class=\"changed\"><td>disk_read_bytes_per_s</td>"), 1);
	CHECK_INT(count(p, "<tr><td>disk_util_pct</td>"), 1);
	CHECK_INT(count(p, ">changed</td>"), 1);
	/* no script, no URL: the page is self-contained */
	CHECK(!strstr(p, "http") && !strstr(p, "src=\"") && !strstr(p, "href="));
	CHECK(strstr(p, "</body></html>\n") != NULL);
	free(p);
	free(d);
	return check_exit("test_diff_html");
}
