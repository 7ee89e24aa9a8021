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
	if (f >= fs_thresholds.input_bound_high)
		return "highly input-bound";
	if (f >= fs_thresholds.input_bound_min)
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

static const char *const bucket_label[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "busy", [FS_BUCKET_INPUT] = "input wait", [FS_BUCKET_HOST_IO] = "host I/O",
	[FS_BUCKET_RANKS] = "other ranks", [FS_BUCKET_EPOCH] = "epoch starts", [FS_BUCKET_OTHER] = "other",
};

static void bucket_line(FILE *out, const struct fs_accounting *a)
{
	for (int b = 0; b < FS_BUCKET__N; b++)
		fprintf(out, "%s%s %.0f%%", b ? ", " : "", bucket_label[b], 100 * a->share[b]);
}

/* Where the loop's time went: the trainer's buckets, then a line per
 * training process when there are several. */
static void accounting(FILE *out, const struct fs_verdict *v)
{
	const struct fs_accounting *A = fs_verdict_trainer(v);
	char why[ESC_CAP];
	if (!A || !A->valid)
		return;
	fprintf(out, "  where the loop's time went (from %s): ", A->basis);
	bucket_line(out, A);
	fputc('\n', out);
	if (v->nacct < 2)
		return;
	char who[48];
	if (A->rank >= 0)
		snprintf(who, sizeof who, "rank %d, pid %d", A->rank, A->pid);
	else
		snprintf(who, sizeof who, "pid %d", A->pid);
	fprintf(out, "  per process (* the verdict speaks for %s, the one that %s):\n", who,
		fs_text_escape(why, sizeof why, v->trainer_why));
	for (int i = 0; i < v->nacct; i++) {
		const struct fs_accounting *a = &v->acct[i];
		if (a->rank >= 0)
			fprintf(out, "    %c rank %-3d pid %-7d ", i == v->trainer ? '*' : ' ', a->rank, a->pid);
		else
			fprintf(out, "    %c pid %-7d          ", i == v->trainer ? '*' : ' ', a->pid);
		if (a->valid)
			bucket_line(out, a);
		else
			fprintf(out, "no steps and no accelerator signal");
		fputc('\n', out);
	}
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
		if (r->relieves[0])
			fprintf(out, "\n      relieves: %s", fs_text_escape(why, sizeof why, r->relieves));
		fputc('\n', out);
	}
}

void fs_verdict_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	char text[ESC_CAP];
	head(out, m, v);
	accounting(out, v);
	if (v->runner_up[0])
		fprintf(out, "  runner-up: %s (%.0f%%), close to the verdict's cause\n", v->runner_up,
			100 * v->runner_up_share);
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
