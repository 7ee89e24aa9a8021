#include <math.h>
#include <string.h>

#include "render/verdict.h"
#include "util/fmt.h"

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

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	(void)m;
	fprintf(out, "\nverdict: %s", fs_verdict_name(v->primary));
	if (isfinite(v->input_bound_fraction))
		fprintf(out, " — %s (%.0f%% of the time waiting for data)", degree(v), 100 * v->input_bound_fraction);
	fprintf(out, ", confidence %.2f (from %s)\n", v->confidence, v->basis);
	if (v->nev) {
		fprintf(out, "  evidence:\n");
		for (int i = 0; i < v->nev; i++)
			fprintf(out, "    · %s  [%s]\n", v->ev[i].text, v->ev[i].source);
	}
	if (v->nrec) {
		fprintf(out, "  what to change:\n");
		for (int i = 0; i < v->nrec; i++) {
			const struct fs_recommendation *r = &v->rec[i];
			fprintf(out, "    · %s: %s → %s", r->knob, r->current, r->suggested);
			if (r->why[0])
				fprintf(out, "\n      (%s)", r->why);
			fputc('\n', out);
		}
	}
	if (isfinite(v->predicted_speedup))
		fprintf(out, "  predicted speedup if fixed: %.2fx%s%s\n", v->predicted_speedup,
			v->speedup_cap[0] ? " — " : "", v->speedup_cap);
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
			fprintf(out, "    · %s\n", v->missing[i]);
	}
}
