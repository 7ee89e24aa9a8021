/* diff_text.c - two runs side by side, the headline last (render/diff.h). */
#include <math.h>
#include <string.h>

#include "render/diff.h"
#include "util/fmt.h"
#include "util/text.h"

/* Run-file strings (paths, loader names, meta values) go through
 * fs_text_escape: 4 bytes out per byte in at most. */
enum { ESC_CAP = 4 * FS_DIFF_VALUE_CAP + 1 };

const char *const fs_diff_bucket_label[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "busy", [FS_BUCKET_INPUT] = "input wait", [FS_BUCKET_HOST_IO] = "host I/O",
	[FS_BUCKET_RANKS] = "other ranks", [FS_BUCKET_EPOCH] = "epoch starts", [FS_BUCKET_OTHER] = "other",
};

static const char *pct(char *out, size_t cap, double share)
{
	return fs_fmt_fixed(out, cap, 100 * share, 0, "%");
}

/* A row of the side-by-side table: label, A, B, and a note. */
static void row(FILE *out, const char *label, const char *a, const char *b, const char *note)
{
	fputs("  ", out);
	fs_text_cell(out, label, 21);
	fs_text_cell(out, a, 25);
	if (note && note[0]) {
		fs_text_cell(out, b, 25);
		fprintf(out, "%s\n", note);
	} else {
		fprintf(out, "%s\n", b);
	}
}

const char *fs_diff_ratio_note(char *out, size_t cap, double r)
{
	char n[32];
	if (isfinite(r))
		snprintf(out, cap, "B/A %s", fs_fmt_sig3(n, sizeof n, r));
	else
		out[0] = '\0';
	return out;
}

static void verdicts(FILE *out, const struct fs_diff *d)
{
	char a[64], b[64];
	row(out, "", "A", "B", NULL);
	row(out, "verdict", fs_verdict_name(d->a.verdict), fs_verdict_name(d->b.verdict),
	    d->a.verdict == d->b.verdict ? "same" : "changed");
	row(out, "input-bound", pct(a, sizeof a, d->a.input_bound), pct(b, sizeof b, d->b.input_bound), NULL);
	row(out, "confidence", fs_fmt_fixed(a, sizeof a, d->a.confidence, 2, ""),
	    fs_fmt_fixed(b, sizeof b, d->b.confidence, 2, ""), NULL);
	row(out, "predicted speedup", fs_fmt_fixed(a, sizeof a, d->a.predicted_speedup, 2, "x"),
	    fs_fmt_fixed(b, sizeof b, d->b.predicted_speedup, 2, "x"), NULL);
	if (d->a.incomplete || d->b.incomplete)
		row(out, "incomplete", d->a.incomplete ? "yes (no end record)" : "no",
		    d->b.incomplete ? "yes (no end record)" : "no", NULL);
}

static void speed(FILE *out, const struct fs_diff *d)
{
	char a[80], b[80], n[64], la[ESC_CAP], lb[ESC_CAP];
	snprintf(a, sizeof a, "%ld", d->a.steps);
	snprintf(b, sizeof b, "%ld", d->b.steps);
	row(out, "trainer's steps", a, b, NULL);
	row(out, "main loader", d->a.loader[0] ? fs_text_escape(la, sizeof la, d->a.loader) : "none",
	    d->b.loader[0] ? fs_text_escape(lb, sizeof lb, d->b.loader) : "none", NULL);
	row(out, "step time", isfinite(d->a.step_s) ? fs_fmt_time(a, sizeof a, d->a.step_s) : "unknown",
	    isfinite(d->b.step_s) ? fs_fmt_time(b, sizeof b, d->b.step_s) : "unknown",
	    fs_diff_ratio_note(n, sizeof n, d->step_ratio));
	char sa[32], sb[32];
	fs_fmt_sig(sa, sizeof sa, d->a.samples_per_s, 3, "");
	fs_fmt_sig(sb, sizeof sb, d->b.samples_per_s, 3, "");
	if (d->a.batch_size > 0)
		snprintf(a, sizeof a, "%s (batch %d)", sa, d->a.batch_size);
	else
		snprintf(a, sizeof a, "unknown (no batch_size)");
	if (d->b.batch_size > 0)
		snprintf(b, sizeof b, "%s (batch %d)", sb, d->b.batch_size);
	else
		snprintf(b, sizeof b, "unknown (no batch_size)");
	row(out, "samples/s", a, b, fs_diff_ratio_note(n, sizeof n, d->samples_ratio));
}

static void buckets(FILE *out, const struct fs_diff *d)
{
	char a[32], b[32], n[48];
	if (!d->a.acct_valid && !d->b.acct_valid) {
		fprintf(out, "  where the loop's time went: unknown in both (no steps, no accelerator signal)\n");
		return;
	}
	fprintf(out, "  where the loop's time went (A from %s, B from %s):\n", d->a.acct_valid ? d->a.acct_basis : "nothing",
		d->b.acct_valid ? d->b.acct_basis : "nothing");
	for (int i = 0; i < FS_BUCKET__N; i++) {
		double c = d->bucket_change[i];
		if (isfinite(c) && fabs(100 * c) < 0.5)
			snprintf(n, sizeof n, "0 points"); /* not "-0" */
		else if (isfinite(c))
			snprintf(n, sizeof n, "%+.0f points%s", 100 * c, i == d->largest_bucket && d->bucket_moved ? "  <" : "");
		else
			n[0] = '\0';
		char label[32];
		snprintf(label, sizeof label, "  %s", fs_diff_bucket_label[i]);
		row(out, label, pct(a, sizeof a, d->a.share[i]), pct(b, sizeof b, d->b.share[i]), n);
	}
}

static void pairs(FILE *out, const char *title, const struct fs_diff_pair *p, int n)
{
	char k[ESC_CAP], a[ESC_CAP], b[ESC_CAP];
	if (n == 0)
		return;
	fprintf(out, "  %s:\n", title);
	for (int i = 0; i < n; i++) {
		fs_text_escape(k, sizeof k, p[i].key);
		const char *va = p[i].in_a ? fs_text_escape(a, sizeof a, p[i].a) : "(not in A)";
		const char *vb = p[i].in_b ? fs_text_escape(b, sizeof b, p[i].b) : "(not in B)";
		if (strlen(va) + strlen(vb) <= 60) /* short: one line */
			fprintf(out, "    %s: %s → %s\n", k, va, vb);
		else /* a command line: one line each */
			fprintf(out, "    %s:\n      A: %s\n      B: %s\n", k, va, vb);
	}
}

static void meta(FILE *out, const struct fs_diff *d)
{
	char la[ESC_CAP], lb[ESC_CAP], title[2 * ESC_CAP + 64];
	snprintf(title, sizeof title, "loader knobs that differ (main loader %s in A, %s in B; others by their key)",
		 d->a.loader[0] ? fs_text_escape(la, sizeof la, d->a.loader) : "none",
		 d->b.loader[0] ? fs_text_escape(lb, sizeof lb, d->b.loader) : "none");
	pairs(out, title, d->knobs, d->nknobs);
	pairs(out, "environment that differs", d->env, d->nenv);
	if (!d->nknobs && !d->nenv)
		fprintf(out, "  loader knobs and environment: the same\n");
	if (d->pairs_cut)
		fprintf(out, "  (more meta keys than are compared: the rest not shown)\n");
}

const char *fs_diff_value(char *out, size_t cap, double v, const char *unit)
{
	char n[32];
	if (!isfinite(v))
		snprintf(out, cap, "unknown");
	else if (!strcmp(unit, "%"))
		snprintf(out, cap, "%.1f%%", v);
	else if (!strcmp(unit, "B/s"))
		fs_fmt_rate(out, cap, v);
	else if (!strcmp(unit, "bytes"))
		fs_fmt_bytes(out, cap, v);
	else if (!strcmp(unit, "ms"))
		fs_fmt_time(out, cap, v / 1000);
	else if (!strcmp(unit, "1/s"))
		snprintf(out, cap, "%s/s", fs_fmt_sig3(n, sizeof n, v));
	else
		snprintf(out, cap, "%s %s", fs_fmt_sig3(n, sizeof n, v), unit);
	return out;
}

static void figures(FILE *out, const struct fs_diff *d)
{
	char a[64], b[64], n[64], label[4 * 136 + 64], key[4 * 136 + 1];
	if (d->nchanged == 0) {
		fprintf(out, "  resources: none of the %d figures compared changed by %.0f%% of its scale\n", d->nfig,
			100 * FS_DIFF_CHANGED);
		return;
	}
	fprintf(out, "  resources that changed (by %.0f%% of their scale or more, over each trainer's loop):\n",
		100 * FS_DIFF_CHANGED);
	for (int i = 0; i < d->nfig; i++) {
		const struct fs_diff_figure *F = &d->fig[i];
		if (!F->changed)
			continue;
		if (!strcmp(F->unit, "%"))
			snprintf(n, sizeof n, "%+.1f points", F->b - F->a);
		else
			fs_diff_ratio_note(n, sizeof n, F->ratio);
		snprintf(label, sizeof label, "%s%s%s", F->name, F->key[0] ? " " : "",
			 fs_text_escape(key, sizeof key, F->key));
		fputs("    ", out);
		fs_text_cell(out, label, 37);
		fs_text_cell(out, fs_diff_value(a, sizeof a, F->a, F->unit), 12);
		fputs("→ ", out);
		fs_text_cell(out, fs_diff_value(b, sizeof b, F->b, F->unit), 12);
		fprintf(out, "%s\n", n);
	}
	if (d->nfig > d->nchanged)
		fprintf(out, "    (%d other figures did not change; --json lists every one)\n", d->nfig - d->nchanged);
}

/* Like phases side by side, where a run's verdict changed during it. */
static void phases(FILE *out, const struct fs_diff *d)
{
	char a[32], b[32], la[32], lb[32];
	if (d->nphases == 0)
		return;
	fprintf(out, "\nphases (like phases side by side; input-bound, length)\n");
	for (int i = 0; i < d->nphases; i++) {
		const struct fs_diff_phase *p = &d->phase[i];
		fprintf(out, "  %-20s A %-16s B %s\n", fs_verdict_name(p->primary),
			p->a >= 0 ? (snprintf(la, sizeof la, "%s, %s", fs_fmt_fixed(a, 32, 100 * p->input_bound_a, 0, "%"),
					      fs_fmt_time(b, 32, p->length_a)), la) : "-",
			p->b >= 0 ? (snprintf(lb, sizeof lb, "%s, %s", fs_fmt_fixed(a, 32, 100 * p->input_bound_b, 0, "%"),
					      fs_fmt_time(b, 32, p->length_b)), lb) : "-");
	}
}

void fs_diff_render_text(FILE *out, const struct fs_diff *d, const char *pa, const char *pb)
{
	char a[ESC_CAP], b[ESC_CAP];
	fprintf(out, "feedscope diff\n  A  %s\n  B  %s\n\n", fs_text_escape(a, sizeof a, pa), fs_text_escape(b, sizeof b, pb));
	verdicts(out, d);
	speed(out, d);
	buckets(out, d);
	phases(out, d);
	meta(out, d);
	figures(out, d);
	fprintf(out, "\n%s\n", d->headline);
}
