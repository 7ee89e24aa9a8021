/* threads.c (render) - the job's threads and the oversubscription finding
 * as text and JSON (threads.h). */
#include "render/threads.h"

#include <math.h>

#include "analysis/load/threads.h"
#include "util/text.h"

enum { ESC = 4 * 400 + 1 };

void fs_threads_render_json_finding(struct fs_json *j, const struct fs_verdict *v)
{
	const struct fs_oversub *o = &v->oversub;
	if (!o->found)
		return;
	fs_json_object(j, NULL);
	fs_json_string(j, "id", fs_oversub_name());
	fs_json_string(j, "kind", "threads");
	fs_json_number(j, "cores", o->cores);
	fs_json_string(j, "cores_from", o->cores_from);
	fs_json_number(j, "runnable_threads", o->runnable);
	fs_json_number(j, "ratio", o->ratio);
	fs_json_number(j, "run_wait_share", o->wait_share);
	fs_json_number(j, "pool_threads_per_worker", o->pool_threads);
	fs_json_number(j, "workers", o->workers);
	fs_json_number(j, "after_runnable_threads", o->after_runnable);
	fs_json_number(j, "after_run_wait_share", o->after_wait_share);
	fs_json_number(j, "predicted_speedup", o->predicted_speedup);
	fs_json_array(j, "evidence");
	for (int i = 0; i < o->nev; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "metric", o->ev[i].metric);
		fs_json_number(j, "value", o->ev[i].value);
		fs_json_string(j, "unit", o->ev[i].unit);
		fs_json_string(j, "source", o->ev[i].source);
		fs_json_string(j, "text", o->ev[i].text);
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_object(j, "fix");
	fs_json_string(j, "relieves", o->relieves);
	fs_json_string(j, "knob", o->knob);
	fs_json_string(j, "current", o->current);
	fs_json_string(j, "suggested", o->suggested);
	fs_json_string(j, "why", o->why);
	fs_json_end(j);
	fs_json_end(j);
}

void fs_threads_render_json(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v)
{
	const struct fs_threads *th = &m->threads;
	const struct fs_oversub *o = &v->oversub;
	if (!th->have) {
		fs_json_string(j, "threads", NULL);
		return;
	}
	fs_json_object(j, "threads");
	fs_json_number(j, "cores", o->cores);
	fs_json_string(j, "cores_from", o->cores_from);
	fs_json_number(j, "cpus_allowed", th->cpus_allowed > 0 ? th->cpus_allowed : NAN);
	fs_json_number(j, "cpuset_cpus", th->cpuset_cpus > 0 ? th->cpuset_cpus : NAN);
	fs_json_number(j, "runnable_threads", o->runnable);
	fs_json_number(j, "workers_runnable_threads", fs_threads_workers_runnable(th));
	fs_json_number(j, "workers", th->workers);
	fs_json_number(j, "worker_threads", th->worker_threads);
	fs_json_number(j, "worker_active_threads", th->worker_active);
	fs_json_number(j, "worker_pool_threads", th->worker_pool_active);
	fs_json_number(j, "workers_busy_share", th->worker_busy);
	fs_json_number(j, "workers_cpu_s", th->workers_cpu_s);
	fs_json_number(j, "workers_run_wait_s", th->workers_wait_s);
	fs_json_number(j, "run_wait_share", o->wait_share);
	fs_json_string(j, "pools", th->pools);
	fs_json_string(j, "libs", th->libs);
	fs_json_bool(j, "oversubscribed", o->found);
	fs_json_end(j);
}

void fs_threads_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	const struct fs_threads *th = &m->threads;
	const struct fs_oversub *o = &v->oversub;
	if (!o->known)
		return;
	char text[ESC];
	fprintf(out, "  threads:   %.1f wanted a CPU of %.3g cores (%s); %d worker%s at %.0f thread%s each, %.1f at work "
		"at once; the workers waited on a run queue %.0f%% of that time\n",
		o->runnable, o->cores, o->cores_from, th->workers, th->workers == 1 ? "" : "s", th->worker_threads,
		th->worker_threads == 1 ? "" : "s", isfinite(th->worker_active) ? th->worker_active : 0,
		isfinite(o->wait_share) ? 100 * o->wait_share : 0);
	if (!o->found)
		return;
	fprintf(out, "  finding:   %s\n", fs_oversub_name());
	for (int e = 0; e < o->nev; e++)
		fprintf(out, "    · %s\n", fs_text_escape(text, sizeof text, o->ev[e].text));
	fprintf(out, "    → %s: %s → %s (relieves %s)\n", o->knob, o->current, fs_text_escape(text, sizeof text, o->suggested),
		o->relieves);
	fprintf(out, "      %s\n", fs_text_escape(text, sizeof text, o->why));
}
