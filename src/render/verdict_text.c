#include <math.h>
#include <string.h>

#include "render/verdict.h"
#include "util/fmt.h"
#include "util/text.h"

/* Strings in the verdict carry run-file text (disk, loader and file names,
 * meta values): each is printed through fs_text_escape (util/text.h). The
 * buffers hold the longest escape of the fields (4 bytes out per byte in). */
enum { ESC_CAP = 4 * 512 + 1 };

static const char *degree(const struct fs_verdict *v)
{
	double f = v->input_bound_fraction;
	if (!isfinite(f))
		return "input-bound: unknown";
	if (f >= 0.20)
		return "highly input-bound";
	if (f >= 0.05)
		return "moderately input-bound";
	return "not input-bound";
}

static void head(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	char a[32], basis[ESC_CAP];
	fprintf(out, "\nverdict: %s", fs_verdict_name(v->primary));
	if (isfinite(v->input_bound_fraction))
		fprintf(out, " — %s (%.0f%% of the time waiting for data)", degree(v), 100 * v->input_bound_fraction);
	fprintf(out, ", confidence %s (from %s)\n", fs_fmt_fixed(a, 32, v->confidence, 2, ""),
		fs_text_escape(basis, sizeof basis, v->basis));
	if (m->incomplete)
		fprintf(out, "  incomplete: the recording stopped at %s without an end record (the recorder was"
			     " killed, or is still recording); this verdict covers what was recorded\n",
			isfinite(m->recorded_until_s) ? fs_fmt_time(a, 32, m->recorded_until_s) : "t unknown");
}

static void evidence(FILE *out, const struct fs_verdict *v)
{
	char text[ESC_CAP], src[ESC_CAP];
	if (!v->nev)
		return;
	fprintf(out, "  evidence:\n");
	for (int i = 0; i < v->nev; i++)
		fprintf(out, "    · %s  [%s]\n", fs_text_escape(text, sizeof text, v->ev[i].text),
			fs_text_escape(src, sizeof src, v->ev[i].source));
}

static void recommendations(FILE *out, const struct fs_verdict *v)
{
	char knob[ESC_CAP], cur[ESC_CAP], sug[ESC_CAP], why[ESC_CAP];
	if (!v->nrec)
		return;
	fprintf(out, "  what to change:\n");
	for (int i = 0; i < v->nrec; i++) {
		const struct fs_recommendation *r = &v->rec[i];
		fprintf(out, "    · %s: %s → %s", fs_text_escape(knob, sizeof knob, r->knob),
			fs_text_escape(cur, sizeof cur, r->current), fs_text_escape(sug, sizeof sug, r->suggested));
		if (r->why[0])
			fprintf(out, "\n      (%s)", fs_text_escape(why, sizeof why, r->why));
		fputc('\n', out);
	}
}

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	char text[ESC_CAP];
	head(out, m, v);
	evidence(out, v);
	recommendations(out, v);
	if (isfinite(v->predicted_speedup))
		fprintf(out, "  predicted speedup if fixed: %.2fx%s%s\n", v->predicted_speedup,
			v->speedup_cap[0] ? " — " : "", fs_text_escape(text, sizeof text, v->speedup_cap));
	for (int i = 0; i < v->nfind; i++) {
		const struct fs_finding *f = &v->find[i];
		if (f->id == v->primary)
			continue;
		if (isfinite(f->fraction_of_time))
			fprintf(out, "  also: %s, %.0f%% of the time\n", fs_verdict_name(f->id), 100 * f->fraction_of_time);
		else
			fprintf(out, "  also: %s\n", fs_verdict_name(f->id));
	}
	if (v->nmissing) {
		fprintf(out, "  signals missing:\n");
		for (int i = 0; i < v->nmissing; i++)
			fprintf(out, "    · %s\n", fs_text_escape(text, sizeof text, v->missing[i]));
	}
}
