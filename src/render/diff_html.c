/* diff_html.c - the diff as one self-contained HTML document
 * (render/diff.h): the headline first, then the verdicts and the speed side
 * by side, each run's accounting as the report's stacked bar (A above B,
 * the same width, so the same scale, and the same colours), the buckets'
 * change in points, the loader knobs and environment that differ, and
 * every resource figure with the changed ones marked. The report's pieces
 * (render/html.h) give it the report's look. No script and no URL: the
 * page is a table of figures, nothing on it moves. Every string from a run
 * file goes through fs_html_escape. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/diff.h"
#include "render/html.h"
#include "util/fmt.h"

/* What the report's stylesheet lacks: a bar with its run's letter before
 * it, and a changed row marked. */
static const char more_style[] =
	"<style>\n"
	".runbar{display:flex;align-items:center;max-width:1040px;margin:3px 0}.runbar>b{width:40px;flex:none}\n"
	".runbar>svg{flex:1}.runbar>span{color:#999}\n"
	"p.verdict#headline{font-size:20px}tr.changed td{background:#fff3cd}td.mark{color:#b00;font-weight:600}\n"
	"table.side td:first-child{color:#555}\n"
	"</style>\n";

/* A cell: run-file text (escaped) in a <td>, right-aligned when numeric. */
static void cell(FILE *out, const char *s, bool numeric)
{
	fputs(numeric ? "<td class=\"n\">" : "<td>", out);
	fs_html_escape(out, s);
	fputs("</td>", out);
}

/* A row of a side-by-side table: label, A, B, a note (feedscope's words). */
static void row(FILE *out, const char *label, const char *a, const char *b, const char *note, bool numeric)
{
	fprintf(out, "<tr><td>%s</td>", label);
	cell(out, a, numeric);
	cell(out, b, numeric);
	fprintf(out, "<td>%s</td></tr>\n", note ? note : "");
}

static const char *pct(char *out, size_t cap, double share)
{
	return fs_fmt_fixed(out, cap, 100 * share, 0, "%");
}

static const char *time_or_unknown(char *out, size_t cap, double s)
{
	if (isfinite(s))
		return fs_fmt_time(out, cap, s);
	snprintf(out, cap, "unknown");
	return out;
}

static void head(FILE *out, const struct fs_diff *d, const char *pa, const char *pb)
{
	fputs("<p class=\"meta\">A <code id=\"file-a\">", out);
	fs_html_escape(out, pa);
	fputs("</code> · B <code id=\"file-b\">", out);
	fs_html_escape(out, pb);
	fputs("</code></p>\n<p class=\"verdict\" id=\"headline\">", out);
	fs_html_entities(out, d->headline); /* the run files' strings in it are escaped already */
	fputs("</p>\n", out);
}

static void verdicts(FILE *out, const struct fs_diff *d)
{
	char a[64], b[64];
	row(out, "verdict", fs_verdict_name(d->a.verdict), fs_verdict_name(d->b.verdict),
	    d->a.verdict == d->b.verdict ? "same" : "<b>changed</b>", false);
	row(out, "input-bound", pct(a, sizeof a, d->a.input_bound), pct(b, sizeof b, d->b.input_bound), NULL, true);
	row(out, "confidence", fs_fmt_fixed(a, sizeof a, d->a.confidence, 2, ""),
	    fs_fmt_fixed(b, sizeof b, d->b.confidence, 2, ""), NULL, true);
	row(out, "predicted speedup", fs_fmt_fixed(a, sizeof a, d->a.predicted_speedup, 2, "x"),
	    fs_fmt_fixed(b, sizeof b, d->b.predicted_speedup, 2, "x"), NULL, true);
	row(out, "verdict from", d->a.basis, d->b.basis, NULL, false);
	if (d->a.incomplete || d->b.incomplete)
		row(out, "incomplete", d->a.incomplete ? "yes (no end record)" : "no",
		    d->b.incomplete ? "yes (no end record)" : "no", NULL, false);
}

static void speed(FILE *out, const struct fs_diff *d)
{
	char a[64], b[64], n[64];
	snprintf(a, sizeof a, "%ld", d->a.steps);
	snprintf(b, sizeof b, "%ld", d->b.steps);
	row(out, "trainer's steps", a, b, NULL, true);
	row(out, "main loader", d->a.loader[0] ? d->a.loader : "none", d->b.loader[0] ? d->b.loader : "none", NULL, false);
	row(out, "step time", time_or_unknown(a, sizeof a, d->a.step_s), time_or_unknown(b, sizeof b, d->b.step_s),
	    fs_diff_ratio_note(n, sizeof n, d->step_ratio), true);
	const struct fs_diff_side *s[2] = {&d->a, &d->b};
	char v[2][64], num[32];
	for (int i = 0; i < 2; i++)
		if (s[i]->batch_size > 0)
			snprintf(v[i], sizeof v[i], "%s (batch %d)", fs_fmt_sig(num, sizeof num, s[i]->samples_per_s, 3, ""),
				 s[i]->batch_size);
		else
			snprintf(v[i], sizeof v[i], "unknown (no batch_size)");
	row(out, "samples/s", v[0], v[1], fs_diff_ratio_note(n, sizeof n, d->samples_ratio), true);
}

/* The verdicts and the speed, A and B side by side. */
static void sides(FILE *out, const struct fs_diff *d)
{
	fputs("<h3>Verdicts and speed</h3>\n<table class=\"side\" id=\"verdicts\"><tr><th></th><th>A</th><th>B</th>"
	      "<th></th></tr>\n", out);
	verdicts(out, d);
	speed(out, d);
	fputs("</table>\n", out);
}

/* One run's bar, its letter before it; a run without an accounting says so. */
static void run_bar(FILE *out, const char *which, const struct fs_diff_side *s)
{
	fprintf(out, "<div class=\"runbar\" id=\"bar-%c\"><b>%s</b>", which[0] == 'A' ? 'a' : 'b', which);
	if (s->acct_valid)
		fs_html_bucket_bar(out, s->share, 1000, 30);
	else
		fputs("<span>unknown: neither steps nor an accelerator signal were recorded</span>\n", out);
	fputs("</div>\n", out);
}

static void buckets(FILE *out, const struct fs_diff *d)
{
	fputs("<h3>Where the loop's time went</h3>\n<p class=\"meta\">each trainer's loop, 100% wide; A from ", out);
	fs_html_escape(out, d->a.acct_valid ? d->a.acct_basis : "nothing");
	fputs(", B from ", out);
	fs_html_escape(out, d->b.acct_valid ? d->b.acct_basis : "nothing");
	fputs("</p>\n", out);
	run_bar(out, "A", &d->a);
	run_bar(out, "B", &d->b);
	fs_html_bucket_legend(out, NULL);
	fputs("<table id=\"buckets\"><tr><th>bucket</th><th>A</th><th>B</th><th>change</th><th></th></tr>\n", out);
	for (int i = 0; i < FS_BUCKET__N; i++) {
		char a[32], b[32], c[48];
		double ch = d->bucket_change[i];
		bool most = i == d->largest_bucket && d->bucket_moved;
		if (!isfinite(ch))
			snprintf(c, sizeof c, "unknown");
		else if (fabs(100 * ch) < 0.5)
			snprintf(c, sizeof c, "0 points"); /* not "-0" */
		else
			snprintf(c, sizeof c, "%+.0f points", 100 * ch);
		fprintf(out, "<tr%s data-bucket=\"%s\"><td>%s</td>", most ? " class=\"changed\"" : "",
			fs_bucket_name((enum fs_bucket)i), fs_diff_bucket_label[i]);
		cell(out, d->a.acct_valid ? pct(a, sizeof a, d->a.share[i]) : "unknown", true);
		cell(out, d->b.acct_valid ? pct(b, sizeof b, d->b.share[i]) : "unknown", true);
		cell(out, c, true);
		fprintf(out, "<td class=\"mark\">%s</td></tr>\n", most ? "moved most" : "");
	}
	fputs("</table>\n", out);
}

/* Meta keys that differ: key, A's value, B's ("not in A" when absent). */
static void pairs(FILE *out, const char *id, const char *title, const struct fs_diff_pair *p, int n)
{
	fprintf(out, "<h4>%s</h4>\n", title);
	if (n == 0) {
		fprintf(out, "<p class=\"meta\" id=\"%s\">the same in both</p>\n", id);
		return;
	}
	fprintf(out, "<table id=\"%s\"><tr><th>key</th><th>A</th><th>B</th><th></th></tr>\n", id);
	for (int i = 0; i < n; i++) {
		fputs("<tr>", out);
		cell(out, p[i].key, false);
		cell(out, p[i].in_a ? p[i].a : "(not in A)", false);
		cell(out, p[i].in_b ? p[i].b : "(not in B)", false);
		fprintf(out, "<td>%s</td></tr>\n", p[i].main_knob ? "main loader" : "");
	}
	fputs("</table>\n", out);
}

static void meta(FILE *out, const struct fs_diff *d)
{
	fputs("<h3>What differs</h3>\n<p class=\"meta\">main loader ", out);
	fs_html_escape(out, d->a.loader[0] ? d->a.loader : "none");
	fputs(" in A, ", out);
	fs_html_escape(out, d->b.loader[0] ? d->b.loader : "none");
	fputs(" in B: its knobs by their name, the others by their key</p>\n", out);
	pairs(out, "knobs", "Loader knobs", d->knobs, d->nknobs);
	pairs(out, "environment", "Environment (meta feedscope writes; never user.*)", d->env, d->nenv);
	if (d->pairs_cut)
		fputs("<p class=\"warn\">more meta keys differ than are compared: the rest are not shown</p>\n", out);
}

/* Every figure compared; the changed ones marked (FS_DIFF_CHANGED of their
 * scale, docs/verdicts.md section 9). */
static void figures(FILE *out, const struct fs_diff *d)
{
	fprintf(out, "<h3>Resources</h3>\n<p class=\"meta\">over each trainer's loop; %d of %d figures changed by %.0f%%"
		     " of their scale or more (marked)</p>\n", d->nchanged, d->nfig, 100 * FS_DIFF_CHANGED);
	fputs("<table id=\"resources\"><tr><th>figure</th><th>device</th><th>A</th><th>B</th><th>change</th><th></th></tr>\n",
	      out);
	for (int i = 0; i < d->nfig; i++) {
		const struct fs_diff_figure *F = &d->fig[i];
		char a[64], b[64], n[64];
		if (!strcmp(F->unit, "%") && isfinite(F->b - F->a))
			snprintf(n, sizeof n, "%+.1f points", F->b - F->a);
		else
			fs_diff_ratio_note(n, sizeof n, F->ratio);
		fprintf(out, "<tr%s><td>%s</td>", F->changed ? " class=\"changed\"" : "", F->name);
		cell(out, F->key, false);
		cell(out, fs_diff_value(a, sizeof a, F->a, F->unit), true);
		cell(out, fs_diff_value(b, sizeof b, F->b, F->unit), true);
		cell(out, n, true);
		fprintf(out, "<td class=\"mark\">%s</td></tr>\n", F->changed ? "changed" : "");
	}
	fputs("</table>\n", out);
}

void fs_diff_render_html(FILE *out, const struct fs_diff *d, const char *pa, const char *pb)
{
	fs_html_begin(out, "diff", d->identical ? "A and B do not differ" : "two runs compared", more_style);
	head(out, d, pa, pb);
	sides(out, d);
	buckets(out, d);
	meta(out, d);
	figures(out, d);
	fputs("</body></html>\n", out);
}
