/* tune.c (render) - `feedscope tune`'s table and JSON (render/tune.h). */
#include "render/tune.h"

#include <math.h>
#include <string.h>

#include "analysis/tune/knobs.h"
#include "analysis/tune/window.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/text.h"

static const char *knob_cell(char *out, size_t cap, const struct fs_tune_trial *t, int k)
{
	int v = t->eff.v[k] >= 0 ? t->eff.v[k] : t->asked.v[k];
	if (v < 0)
		return "-";
	if (k == FS_KNOB_PIN_MEMORY || k == FS_KNOB_PERSISTENT_WORKERS)
		return v ? "yes" : "no";
	snprintf(out, cap, "%d", v);
	return out;
}

static const char *pct(char *out, size_t cap, double x)
{
	return fs_fmt_fixed(out, cap, isfinite(x) ? 100 * x : NAN, 0, "%");
}

static const char *speedup_text(char *out, size_t cap, double x)
{
	if (!isfinite(x))
		return "-";
	snprintf(out, cap, "%.2f×", x);
	return out;
}

/* A step time's standard error, as a share: "±0.6%" ("-" unknown). */
static const char *noise(char *out, size_t cap, double x)
{
	if (!isfinite(x))
		return "-";
	snprintf(out, cap, "±%.*f%%", 100 * x < 9.95 ? 1 : 0, 100 * x);
	return out;
}

/* The workers' memory: PSS when known (it counts shared pages once), else RSS. */
static const char *workers_mem(char *out, size_t cap, const struct fs_tune_trial *t)
{
	if (isfinite(t->workers_pss_bytes))
		return fs_fmt_bytes(out, cap, t->workers_pss_bytes);
	if (isfinite(t->workers_rss_bytes))
		return fs_fmt_bytes(out, cap, t->workers_rss_bytes);
	return "-";
}

void fs_tune_render_text(FILE *out, const struct fs_tune_result *r)
{
	const struct fs_tune *T = r->T;
	char a[48], b[48], c[48], d[48], e[48], f[48], g[48], h[48], x[48];
	const struct fs_tune_plan *pl = r->plan;
	fprintf(out, "feedscope tune: %d trial%s in %s (budget %s), ", T->ntrials, T->ntrials == 1 ? "" : "s",
		fs_fmt_time(a, sizeof a, r->time_s), fs_fmt_time(b, sizeof b, r->budget_s));
	if (pl->window == FS_TUNE_WINDOW_EPOCHS)
		fprintf(out, "whole epochs of %ld steps measured (%ld steps or more) after %ld of warm-up\n\n",
			pl->epoch_steps, pl->steps > pl->epoch_steps ? pl->steps - pl->epoch_steps / 2 : pl->epoch_steps,
			pl->warmup);
	else
		fprintf(out, "%ld steps measured after %ld of warm-up\n\n", pl->steps, pl->warmup);
	if (r->note && r->note[0]) {
		char shown[800];
		fprintf(out, "(%s)\n", fs_text_escape(shown, sizeof shown, r->note));
	}
	fprintf(out, "trial workers prefetch pin persist batch    step  noise samples/s  wait cores  "
		     "main RSS workers  speedup  verdict\n");
	for (int i = 0; i < T->ntrials; i++) {
		const struct fs_tune_trial *t = &T->trials[i];
		fprintf(out, "%c%-4d %7s %8s %3s %7s %5s", i == T->best ? '*' : ' ', t->id,
			knob_cell(a, sizeof a, t, FS_KNOB_NUM_WORKERS), knob_cell(b, sizeof b, t, FS_KNOB_PREFETCH_FACTOR),
			knob_cell(c, sizeof c, t, FS_KNOB_PIN_MEMORY), knob_cell(d, sizeof d, t, FS_KNOB_PERSISTENT_WORKERS),
			knob_cell(e, sizeof e, t, FS_KNOB_BATCH_SIZE));
		char shown[800];
		if (!isfinite(t->step_s)) {
			fprintf(out, "  %s: %s\n", t->status, fs_text_escape(shown, sizeof shown, t->status_text));
			continue;
		}
		char n[48];
		fprintf(out, " %7s %6s %9s %5s %5s %8s %7s %8s  %s", fs_fmt_time(f, sizeof f, t->step_s),
			noise(n, sizeof n, t->step_se_rel), fs_fmt_sig(g, sizeof g, t->samples_per_s, 3, ""),
			pct(h, sizeof h, t->wait_share),
			fs_fmt_fixed(x, sizeof x, t->cpu_cores, 1, ""), fs_fmt_bytes(a, sizeof a, t->main_rss_bytes),
			workers_mem(b, sizeof b, t), speedup_text(c, sizeof c, fs_tune_speedup(&T->trials[0], t)),
			t->have_verdict ? fs_verdict_name(t->verdict) : "-");
		if (strcmp(t->status, "ok")) /* figures, but no candidate: say why */
			fprintf(out, "  [%s: %s]", t->status, fs_text_escape(shown, sizeof shown, t->status_text));
		fputc('\n', out);
	}
	fprintf(out, "\n");
	for (int i = 0; i < T->ntrials; i++) {
		const struct fs_tune_trial *t = &T->trials[i];
		char shown[400];
		fprintf(out, "trial %d", t->id);
		if (isfinite(t->step_s))
			fprintf(out, " (steps %ld-%ld%s)", t->first_step, t->first_step + t->steps - 1,
				t->window == FS_TUNE_WINDOW_EPOCHS ? ", whole epochs" : "");
		fprintf(out, ": %s\n", fs_text_escape(shown, sizeof shown, t->why));
	}
	for (int i = 0; i < T->nruled; i++) {
		char shown[800];
		fprintf(out, "not tried: %s\n", fs_text_escape(shown, sizeof shown, T->ruled[i]));
	}
	char shown[1200];
	fprintf(out, "stopped (%s): %s\n", fs_tune_stop_name(r->stop), fs_text_escape(shown, sizeof shown, r->stop_text));
	char no[400];
	if (fs_tune_recommends(T, no, sizeof no)) {
		const struct fs_tune_trial *B = &T->trials[T->best], *base = &T->trials[0];
		char py[400];
		fs_tune_python(T, py, sizeof py);
		fprintf(out, "best: trial %d, %s the baseline's speed (a gain counts from %.1f%%)", B->id,
			speedup_text(a, sizeof a, fs_tune_speedup(base, B)), 100 * fs_tune_gain_needed(base, B));
		const struct fs_tune_trial *A2, *B2;
		fs_tune_again(T, &A2, &B2);
		fprintf(out, ", %s in the second pair (trial %d over %d)",
			speedup_text(c, sizeof c, fs_tune_speedup(A2, B2)), B2->id, A2->id);
		if (base->have_verdict)
			fprintf(out, "; the baseline's verdict, %s, predicted %s", fs_verdict_name(base->verdict),
				speedup_text(b, sizeof b, base->predicted_speedup));
		fprintf(out, "\n    %s\n", py);
	} else if (T->best >= 0) {
		fprintf(out, "%s\n", fs_text_escape(shown, sizeof shown, no));
	}
	fprintf(out, "trials' run files and job output: %s/trial-N.db, trial-N.log\n",
		fs_text_escape(shown, sizeof shown, r->dir));
}

static void knobs_json(struct fs_json *j, const char *key, const struct fs_tune_knobs *k)
{
	fs_json_object(j, key);
	for (int i = 0; i < FS_KNOB__N; i++) {
		if (k->v[i] < 0)
			continue;
		if (i == FS_KNOB_PIN_MEMORY || i == FS_KNOB_PERSISTENT_WORKERS)
			fs_json_bool(j, fs_tune_knob_name(i), k->v[i]);
		else
			fs_json_int(j, fs_tune_knob_name(i), k->v[i]);
	}
	fs_json_end(j);
}

static void trial_json(struct fs_json *j, const struct fs_tune *T, const struct fs_tune_trial *t, const char *dir)
{
	char path[4200];
	fs_json_object(j, NULL);
	fs_json_int(j, "trial", t->id);
	fs_json_string(j, "why", t->why);
	fs_json_bool(j, "confirms", t->confirms);
	snprintf(path, sizeof path, "%s/trial-%d.db", dir, t->id);
	fs_json_string(j, "run_file", path);
	fs_json_string(j, "status", t->status);
	fs_json_string(j, "status_text", t->status_text);
	fs_json_int(j, "exit_code", t->exit_code);
	knobs_json(j, "asked", &t->asked);
	knobs_json(j, "knobs", &t->eff);
	fs_json_int(j, "steps", t->steps);
	fs_json_int(j, "first_step", t->first_step);
	fs_json_string(j, "window", fs_tune_window_name(t->window));
	fs_json_int(j, "epoch_steps", t->epoch_steps);
	fs_json_int(j, "prefill", t->prefill);
	fs_json_number(j, "step_s", t->step_s);
	fs_json_number(j, "step_se_rel", t->step_se_rel);
	fs_json_number(j, "samples_per_s", t->samples_per_s);
	fs_json_number(j, "wait_share", t->wait_share);
	fs_json_number(j, "speedup", fs_tune_speedup(&T->trials[0], t));
	fs_json_string(j, "verdict", t->have_verdict ? fs_verdict_name(t->verdict) : NULL);
	fs_json_number(j, "predicted_speedup", t->predicted_speedup);
	fs_json_number(j, "cpu_cores", t->cpu_cores);
	fs_json_number(j, "main_rss_bytes", t->main_rss_bytes);
	fs_json_number(j, "workers_rss_bytes", t->workers_rss_bytes);
	fs_json_number(j, "workers_pss_bytes", t->workers_pss_bytes);
	fs_json_number(j, "workers_pss_growth_bytes", t->workers_pss_growth_bytes);
	fs_json_number(j, "dev_shm_bytes", t->dev_shm_bytes);
	fs_json_number(j, "mem_available_min_bytes", t->mem_available_min_bytes);
	fs_json_number(j, "per_worker_bytes", t->per_worker_bytes);
	fs_json_number(j, "mem_room_bytes", t->mem_room_bytes);
	fs_json_string(j, "mem_room_of", t->mem_room_of[0] ? t->mem_room_of : NULL);
	fs_json_number(j, "shm_room_bytes", t->shm_room_bytes);
	fs_json_number(j, "duration_s", t->duration_s);
	fs_json_end(j);
}

void fs_tune_render_json(FILE *out, const struct fs_tune_result *r)
{
	const struct fs_tune *T = r->T;
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	fs_json_array(&j, "command");
	for (int i = 0; i < r->argc; i++)
		fs_json_string(&j, NULL, r->argv[i]);
	fs_json_end(&j);
	fs_json_string(&j, "stopped", fs_tune_stop_name(r->stop));
	fs_json_string(&j, "stop_text", r->stop_text);
	fs_json_number(&j, "time_s", r->time_s);
	fs_json_number(&j, "budget_s", r->budget_s);
	fs_json_int(&j, "steps", r->plan->steps);
	fs_json_int(&j, "warmup", r->plan->warmup);
	fs_json_string(&j, "window", fs_tune_window_name(r->plan->window));
	fs_json_int(&j, "epoch_steps", r->plan->epoch_steps);
	fs_json_string(&j, "steps_note", r->note && r->note[0] ? r->note : NULL);
	fs_json_string(&j, "dir", r->dir);
	fs_json_array(&j, "trials");
	for (int i = 0; i < T->ntrials; i++)
		trial_json(&j, T, &T->trials[i], r->dir);
	fs_json_end(&j);
	fs_json_array(&j, "ruled_out");
	for (int i = 0; i < T->nruled; i++)
		fs_json_string(&j, NULL, T->ruled[i]);
	fs_json_end(&j);
	char no[400];
	bool rec = fs_tune_recommends(T, no, sizeof no);
	fs_json_bool(&j, "recommend", rec);
	fs_json_string(&j, "recommend_text", rec ? NULL : no);
	if (T->best >= 0) {
		const struct fs_tune_trial *B = &T->trials[T->best];
		char py[400];
		fs_tune_python(T, py, sizeof py);
		fs_json_object(&j, "best");
		fs_json_int(&j, "trial", B->id);
		knobs_json(&j, "knobs", &B->eff);
		fs_json_string(&j, "python", py);
		fs_json_number(&j, "speedup", fs_tune_speedup(&T->trials[0], B));
		fs_json_number(&j, "gain_needed", fs_tune_gain_needed(&T->trials[0], B));
		const struct fs_tune_trial *A2, *B2;
		fs_tune_again(T, &A2, &B2);
		fs_json_number(&j, "speedup_again", A2 && B2 ? fs_tune_speedup(A2, B2) : NAN);
		fs_json_number(&j, "predicted_speedup", T->trials[0].predicted_speedup);
		fs_json_end(&j);
	} else {
		fs_json_string(&j, "best", NULL);
	}
	fs_json_end(&j);
	fputc('\n', out);
}
