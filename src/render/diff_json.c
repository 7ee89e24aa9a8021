/* diff_json.c - the diff as one JSON document (docs/verdicts.md, "diff"). */
#include <math.h>

#include "render/diff.h"
#include "util/json.h"

static void buckets(struct fs_json *j, const char *key, const double *share, bool valid)
{
	fs_json_object(j, key);
	for (int b = 0; b < FS_BUCKET__N; b++)
		fs_json_number(j, fs_bucket_name((enum fs_bucket)b), valid ? share[b] : NAN);
	fs_json_end(j);
}

static void side(struct fs_json *j, const char *key, const struct fs_diff_side *s, const char *path)
{
	fs_json_object(j, key);
	fs_json_string(j, "file", path);
	fs_json_string(j, "verdict", fs_verdict_name(s->verdict));
	fs_json_number(j, "input_bound_fraction", s->input_bound);
	fs_json_number(j, "confidence", s->confidence);
	fs_json_number(j, "predicted_speedup", s->predicted_speedup);
	fs_json_string(j, "basis", s->basis);
	fs_json_bool(j, "incomplete", s->incomplete);
	fs_json_string(j, "loader", s->loader[0] ? s->loader : NULL);
	fs_json_int(j, "steps", s->steps);
	fs_json_number(j, "loop_s", s->loop_s);
	fs_json_number(j, "step_s", s->step_s);
	if (s->batch_size > 0)
		fs_json_int(j, "batch_size", s->batch_size);
	else
		fs_json_string(j, "batch_size", NULL);
	fs_json_number(j, "samples_per_s", s->samples_per_s);
	fs_json_string(j, "accounting_basis", s->acct_valid ? s->acct_basis : NULL);
	buckets(j, "buckets", s->share, s->acct_valid);
	fs_json_end(j);
}

static void pairs(struct fs_json *j, const char *key, const struct fs_diff_pair *p, int n)
{
	fs_json_array(j, key);
	for (int i = 0; i < n; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "key", p[i].key);
		fs_json_string(j, "a", p[i].in_a ? p[i].a : NULL);
		fs_json_string(j, "b", p[i].in_b ? p[i].b : NULL);
		fs_json_bool(j, "main_loader", p[i].main_knob);
		fs_json_end(j);
	}
	fs_json_end(j);
}

static void figures(struct fs_json *j, const struct fs_diff *d)
{
	fs_json_array(j, "resources");
	for (int i = 0; i < d->nfig; i++) {
		const struct fs_diff_figure *F = &d->fig[i];
		fs_json_object(j, NULL);
		fs_json_string(j, "metric", F->name);
		fs_json_string(j, "key", F->key[0] ? F->key : NULL);
		fs_json_string(j, "unit", F->unit);
		fs_json_number(j, "a", F->a);
		fs_json_number(j, "b", F->b);
		fs_json_number(j, "ratio", F->ratio);
		fs_json_bool(j, "changed", F->changed);
		fs_json_end(j);
	}
	fs_json_end(j);
}

void fs_diff_render_json(FILE *out, const struct fs_diff *d, const char *pa, const char *pb)
{
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	side(&j, "a", &d->a, pa);
	side(&j, "b", &d->b, pb);
	fs_json_bool(&j, "same_verdict", d->a.verdict == d->b.verdict);
	fs_json_number(&j, "step_time_ratio", d->step_ratio);
	fs_json_number(&j, "samples_per_s_ratio", d->samples_ratio);
	fs_json_bool(&j, "by_samples", d->by_samples);
	fs_json_bool(&j, "step_time_changed", d->step_changed);
	buckets(&j, "bucket_change", d->bucket_change, d->a.acct_valid && d->b.acct_valid);
	fs_json_string(&j, "largest_bucket_change",
		       d->largest_bucket >= 0 ? fs_bucket_name((enum fs_bucket)d->largest_bucket) : NULL);
	fs_json_bool(&j, "bucket_moved", d->bucket_moved);
	fs_json_array(&j, "phases");
	for (int i = 0; i < d->nphases; i++) {
		const struct fs_diff_phase *p = &d->phase[i];
		fs_json_object(&j, NULL);
		fs_json_string(&j, "primary", fs_verdict_name(p->primary));
		if (p->a >= 0)
			fs_json_int(&j, "a", p->a);
		else
			fs_json_string(&j, "a", NULL);
		if (p->b >= 0)
			fs_json_int(&j, "b", p->b);
		else
			fs_json_string(&j, "b", NULL);
		fs_json_number(&j, "input_bound_a", p->input_bound_a);
		fs_json_number(&j, "input_bound_b", p->input_bound_b);
		fs_json_number(&j, "length_a_s", p->length_a);
		fs_json_number(&j, "length_b_s", p->length_b);
		fs_json_end(&j);
	}
	fs_json_end(&j);
	pairs(&j, "knobs", d->knobs, d->nknobs);
	pairs(&j, "environment", d->env, d->nenv);
	fs_json_bool(&j, "meta_cut", d->pairs_cut);
	fs_json_number(&j, "changed_threshold", FS_DIFF_CHANGED);
	figures(&j, d);
	fs_json_int(&j, "resources_changed", d->nchanged);
	fs_json_bool(&j, "identical", d->identical);
	fs_json_string(&j, "headline", d->headline);
	fs_json_end(&j); /* the document's last newline */
}
