#include <math.h>
#include <string.h>

#include "render/memory.h"
#include "render/stalls.h"
#include "render/threads.h"
#include "render/saturation.h"
#include "render/verdict.h"
#include "util/json.h"

static void evidence(struct fs_json *j, const struct fs_evidence *ev, int n)
{
	fs_json_array(j, "evidence");
	for (int i = 0; i < n; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "metric", ev[i].metric);
		fs_json_number(j, "value", ev[i].value);
		fs_json_string(j, "unit", ev[i].unit);
		fs_json_string(j, "source", ev[i].source);
		fs_json_string(j, "text", ev[i].text);
		fs_json_end(j);
	}
	fs_json_end(j);
}

static void states(struct fs_json *j, const char *key, const struct fs_states *s)
{
	fs_json_object(j, key);
	fs_json_number(j, "blocked_io_share", s->blocked);
	fs_json_number(j, "running_share", s->running);
	fs_json_number(j, "sleeping_share", s->sleeping);
	fs_json_number(j, "cpu_cores", s->cpu_cores);
	fs_json_number(j, "run_wait_threads", s->run_wait);
	fs_json_int(j, "processes", s->procs);
	fs_json_end(j);
}

/* "loader_stages": the workers' time per stage (load/stages.h), largest
 * own time first; [] when not timed (loader_stages_timed false). */
static void stages(struct fs_json *j, const struct fs_stages *st)
{
	fs_json_bool(j, "loader_stages_timed", st->timed);
	fs_json_number(j, "loader_workers_s", st->timed ? st->worker_s : NAN);
	fs_json_number(j, "loader_busy_s", st->timed ? st->busy_s : NAN);
	fs_json_int(j, "loader_batches", st->timed ? st->batches : -1);
	fs_json_array(j, "loader_stages");
	for (int i = 0; st->timed && i < st->n; i++) {
		const struct fs_loader_stage *s = &st->s[i];
		fs_json_object(j, NULL);
		fs_json_string(j, "name", s->name);
		fs_json_string(j, "kind", s->kind);
		fs_json_int(j, "calls", s->calls);
		fs_json_number(j, "seconds", s->seconds);
		fs_json_number(j, "cpu_seconds", s->cpu_s);
		fs_json_number(j, "self_seconds", s->self_s);
		fs_json_number(j, "self_cpu_seconds", s->self_cpu_s);
		fs_json_number(j, "share", s->share);
		fs_json_number(j, "self_share", s->self_share);
		fs_json_number(j, "busy_share", s->busy_share);
		fs_json_number(j, "self_busy_share", s->self_busy_share);
		if (!strcmp(s->kind, "getitem"))
			fs_json_number(j, "io_seconds", s->io_s);
		fs_json_end(j);
	}
	fs_json_end(j);
}

static void metrics(struct fs_json *j, const struct fs_metrics *m)
{
	fs_json_object(j, "metrics");
	fs_json_number(j, "duration_s", m->duration_s);
	fs_json_int(j, "ncpu", m->ncpu);
	fs_json_string(j, "loader", m->loader[0] ? m->loader : NULL);
	fs_json_int(j, "steps", m->steps);
	fs_json_int(j, "epochs", m->epochs);
	fs_json_number(j, "wait_s", m->wait_s);
	fs_json_number(j, "compute_s", m->compute_s);
	fs_json_number(j, "epoch_end_s", m->epoch_end_s);
	fs_json_number(j, "epoch_start_excess_s", m->epoch_start_excess_s);
	fs_json_number(j, "checkpoint_s", m->checkpoint_s);
	fs_json_int(j, "checkpoints", m->checkpoints);
	fs_json_number(j, "checkpoint_phase_s", m->checkpoint_phase_s);
	fs_json_number(j, "host_io_s", m->host_io_s);
	if (m->have_classes) {
		fs_json_number(j, "loader_socket_read_s", m->loader_sock_read_s);
		fs_json_number(j, "loader_socket_read_bytes", m->loader_sock_read_bytes);
		fs_json_number(j, "loader_file_read_s", m->loader_file_read_s);
		fs_json_number(j, "loader_meta_s", m->loader_meta_s);
		fs_json_number(j, "loader_majflt", m->loader_majflt);
		fs_json_number(j, "loader_time_s", m->loader_time_s);
	}
	fs_json_int(j, "num_workers", m->num_workers);
	fs_json_int(j, "batch_size", m->batch_size);
	fs_json_number(j, "gpu_busy", m->gpu_busy);
	fs_json_int(j, "gpus", m->ngpus);
	states(j, "loaders", &m->loaders);
	states(j, "main", &m->main);
	fs_json_bool(j, "loaders_are_main", m->loaders_are_main);
	fs_json_number(j, "main_cpu_in_wait_cores", m->main_wait_cores);
	fs_json_number(j, "main_cpu_in_compute_cores", m->main_compute_cores);
	fs_json_string(j, "main_cpu_basis", m->main_wait_basis);
	fs_json_number(j, "job_cpu_cores", m->job_cpu_cores);
	fs_json_number(j, "loader_rchar_bytes", m->loader_rchar_bytes);
	fs_json_number(j, "loader_read_bytes", m->loader_read_bytes);
	fs_json_number(j, "cgroup_quota_cores", m->cg_quota_cores);
	fs_json_number(j, "cgroup_throttled_pct", m->cg_throttled_pct);
	fs_json_number(j, "cgroup_mem_limit_bytes", m->cg_mem_limit_bytes);
	fs_json_number(j, "cgroup_mem_usage_max_bytes", m->cg_mem_usage_max_bytes);
	fs_json_number(j, "cpu_busy_pct", m->cpu_busy_pct);
	fs_json_number(j, "cpu_iowait_pct", m->cpu_iowait_pct);
	fs_json_number(j, "psi_cpu_some_pct", m->psi_cpu);
	fs_json_number(j, "psi_io_some_pct", m->psi_io);
	fs_json_number(j, "psi_io_full_pct", m->psi_io_full);
	fs_json_number(j, "psi_memory_some_pct", m->psi_mem);
	fs_json_number(j, "mem_available_min_bytes", m->mem_available_min_bytes);
	fs_json_number(j, "page_cache_max_bytes", m->cached_max_bytes);
	fs_json_number(j, "major_faults_per_s", m->majflt_per_s);
	fs_json_number(j, "dentries_growth", m->dentries_growth);
	fs_json_string(j, "disk", m->disk[0] ? m->disk : NULL);
	fs_json_number(j, "disk_read_bytes_per_s", m->disk_read_bytes_per_s);
	fs_json_number(j, "disk_util_pct", m->disk_util_pct);
	fs_json_number(j, "disk_read_request_bytes", m->disk_req_bytes);
	fs_json_number(j, "disk_read_await_ms", m->disk_await_ms);
	fs_json_number(j, "disk_queue_depth", m->disk_queue_depth);
	fs_json_string(j, "nic", m->nic[0] ? m->nic : NULL);
	fs_json_number(j, "nic_rx_bytes_per_s", m->nic_rx_bytes_per_s);
	fs_json_number(j, "nfs_read_rtt_ms", m->nfs_rtt_ms);
	stages(j, &m->stages);
	fs_json_end(j);
}

static void buckets(struct fs_json *j, const struct fs_accounting *a)
{
	fs_json_object(j, "buckets");
	for (int b = 0; b < FS_BUCKET__N; b++)
		fs_json_number(j, fs_bucket_name((enum fs_bucket)b), a->valid ? a->share[b] : NAN);
	fs_json_end(j);
}

/* "accounting": the trainer's buckets, then every training process's. */
static void accounting(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v)
{
	fs_json_object(j, "accounting");
	const struct fs_accounting *A = fs_verdict_trainer(v);
	fs_json_bool(j, "valid", A && A->valid);
	if (A) {
		fs_json_int(j, "pid", A->pid);
		if (A->rank >= 0)
			fs_json_int(j, "rank", A->rank);
		else
			fs_json_string(j, "rank", NULL);
		fs_json_string(j, "chosen_because", v->trainer_why[0] ? v->trainer_why : NULL);
		fs_json_string(j, "basis", A->valid ? A->basis : NULL);
		fs_json_number(j, "loop_s", A->loop_s);
		buckets(j, A);
	}
	fs_json_array(j, "processes");
	for (int i = 0; i < v->nacct; i++) {
		const struct fs_accounting *a = &v->acct[i];
		const struct fs_loop_proc *L = &m->loops[i];
		fs_json_object(j, NULL);
		fs_json_int(j, "pid", a->pid);
		if (a->rank >= 0)
			fs_json_int(j, "rank", a->rank);
		else
			fs_json_string(j, "rank", NULL);
		fs_json_bool(j, "trainer", i == v->trainer);
		fs_json_string(j, "basis", a->valid ? a->basis : NULL);
		fs_json_number(j, "loop_s", a->loop_s);
		fs_json_int(j, "steps", L->steps);
		fs_json_number(j, "collective_s", L->collective_s);
		fs_json_number(j, "gpu_busy", L->gpu_busy);
		fs_json_string(j, "gpu_basis", L->gpu_basis[0] ? L->gpu_basis : NULL);
		/* the device's clock (docs/verdicts.md): its idle inside the host's
		 * waits beside the waits themselves */
		fs_json_number(j, "wait_s", L->have_steps ? L->wait_s : NAN);
		fs_json_string(j, "device_clock", L->dev_clock[0] ? L->dev_clock : NULL);
		fs_json_number(j, "device_idle_in_wait_s", L->dev_clock[0] ? L->dev_idle_wait_s : NAN);
		fs_json_number(j, "device_idle_in_wait_lower_s", L->dev_clock[0] ? L->dev_idle_wait_lower_s : NAN);
		buckets(j, a);
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_end(j);
}

/* The loop's phases (docs/verdicts.md, "Phases"): [] when not sought. */
static void phases(struct fs_json *j, const struct fs_verdict *v)
{
	fs_json_array(j, "phases");
	for (int i = 0; i < v->nphases; i++) {
		const struct fs_phase *p = &v->phase[i];
		fs_json_object(j, NULL);
		fs_json_number(j, "start_s", p->start_s);
		fs_json_number(j, "end_s", p->end_s);
		if (p->first_epoch >= 0) {
			fs_json_array(j, "epochs");
			fs_json_int(j, NULL, p->first_epoch);
			fs_json_int(j, NULL, p->last_epoch);
			fs_json_end(j);
		} else {
			fs_json_string(j, "epochs", NULL);
		}
		fs_json_string(j, "primary", fs_verdict_name(p->primary));
		fs_json_number(j, "input_bound_fraction", p->input_bound_fraction);
		fs_json_number(j, "confidence", p->confidence);
		fs_json_number(j, "predicted_speedup", p->predicted_speedup);
		fs_json_string(j, "limit", p->limit[0] ? p->limit : NULL);
		fs_json_string(j, "knob", p->knob[0] ? p->knob : NULL);
		fs_json_string(j, "suggested", p->suggested[0] ? p->suggested : NULL);
		fs_json_bool(j, "steady", i == v->steady);
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_string(j, "phase_method", v->phase_method[0] ? v->phase_method : NULL);
}

/* The members of the verdict's document (docs/verdicts.md, "JSON"). */
static void members(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v)
{
	fs_json_object(j, "verdict");
	fs_json_string(j, "primary", fs_verdict_name(v->primary));
	fs_json_number(j, "input_bound_fraction", v->input_bound_fraction);
	fs_json_number(j, "accelerator_idle_fraction", v->accelerator_idle_fraction);
	fs_json_number(j, "confidence", v->confidence);
	fs_json_number(j, "predicted_speedup", v->predicted_speedup);
	fs_json_string(j, "speedup_cap", v->speedup_cap[0] ? v->speedup_cap : NULL);
	fs_json_string(j, "basis", v->basis);
	fs_json_string(j, "runner_up", v->runner_up[0] ? v->runner_up : NULL);
	fs_json_number(j, "runner_up_share", v->runner_up[0] ? v->runner_up_share : NAN);
	fs_json_bool(j, "incomplete", m->incomplete);
	fs_json_number(j, "recorded_until_s", m->recorded_until_s);
	fs_json_string(j, "resolution", m->per_minute ? "minute" : "raw");
	fs_sat_json(j, m);
	evidence(j, v->ev, v->nev);
	fs_json_array(j, "recommendations");
	for (int i = 0; i < v->nrec; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "relieves", v->rec[i].relieves);
		fs_json_string(j, "knob", v->rec[i].knob);
		fs_json_string(j, "current", v->rec[i].current);
		fs_json_string(j, "suggested", v->rec[i].suggested);
		fs_json_string(j, "why", v->rec[i].why);
		fs_json_number(j, "predicted_speedup", v->rec[i].speedup);
		fs_json_string(j, "assumes", v->rec[i].change);
		fs_json_string(j, "then", v->rec[i].then);
		fs_json_end(j);
	}
	fs_json_end(j);
	phases(j, v);
	fs_json_end(j);
	accounting(j, m, v);
	fs_json_array(j, "findings");
	for (int i = 0; i < v->nfind; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "id", fs_verdict_name(v->find[i].id));
		fs_json_number(j, "severity", v->find[i].severity);
		fs_json_number(j, "fraction_of_time", v->find[i].fraction_of_time);
		evidence(j, v->find[i].ev, v->find[i].nev);
		fs_json_end(j);
	}
	fs_memory_render_json_findings(j, v);
	fs_threads_render_json_finding(j, v);
	fs_json_end(j);
	fs_memory_render_json(j, m, v);
	fs_threads_render_json(j, m, v);
	fs_json_array(j, "signals_missing");
	for (int i = 0; i < v->nmissing; i++)
		fs_json_string(j, NULL, v->missing[i]);
	fs_json_end(j);
	metrics(j, m);
}

void fs_verdict_render_json(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	members(&j, m, v);
	fs_json_end(&j);
}

static void rank_or_null(struct fs_json *j, const char *key, int rank)
{
	if (rank >= 0)
		fs_json_int(j, key, rank);
	else
		fs_json_string(j, key, NULL);
}

/* "straggler": who, its cause, and what the others lost waiting on it. */
static void straggler(struct fs_json *j, const struct fs_merged *g)
{
	if (g->straggler < 0) {
		fs_json_string(j, "straggler", NULL);
		return;
	}
	const struct fs_merge_rank *S = &g->ranks[g->straggler];
	fs_json_object(j, "straggler");
	rank_or_null(j, "rank", S->rank);
	fs_json_string(j, "node", g->nodes[S->file].name);
	fs_json_int(j, "pid", S->pid);
	fs_json_string(j, "cause", fs_verdict_name(g->v.primary));
	fs_json_number(j, "lost_by_others_s", g->lost_by_others_s);
	fs_json_string(j, "chosen_because", g->straggler_why[0] ? g->straggler_why : NULL);
	fs_json_end(j);
}

/* "ranks": every training process of every file, by rank. */
static void ranks(struct fs_json *j, const struct fs_merged *g)
{
	int order[FS_MERGE_MAX_RANKS];
	fs_merge_rank_order(g, order);
	fs_json_array(j, "ranks");
	for (int i = 0; i < g->nranks; i++) {
		int r = order[i];
		const struct fs_merge_rank *R = &g->ranks[r];
		fs_json_object(j, NULL);
		rank_or_null(j, "rank", R->rank);
		rank_or_null(j, "local_rank", R->local_rank);
		fs_json_string(j, "node", g->nodes[R->file].name);
		fs_json_int(j, "pid", R->pid);
		fs_json_bool(j, "straggler", r == g->straggler);
		fs_json_number(j, "loop_s", R->a.loop_s);
		fs_json_int(j, "steps", R->steps);
		buckets(j, &R->a);
		fs_json_number(j, "input_wait_s", R->input_wait_s);
		fs_json_number(j, "lost_waiting_s", R->lost_waiting_s);
		fs_json_object(j, "network"); /* its sockets and its workers' (peers): null without a peers table */
		fs_json_number(j, "data_bytes", R->net.data_bytes);
		fs_json_number(j, "data_s", R->net.data_s);
		fs_json_number(j, "collective_bytes", R->net.coll_bytes);
		fs_json_number(j, "collective_s", R->net.coll_s);
		if (R->net.top_peer[0])
			fs_json_string(j, "top_data_peer", R->net.top_peer);
		else
			fs_json_string(j, "top_data_peer", NULL);
		fs_json_end(j);
		fs_json_end(j);
	}
	fs_json_end(j);
}

/* "nodes", "clock" and "skew": several run files. */
static void nodes(struct fs_json *j, const struct fs_merged *g)
{
	fs_json_array(j, "nodes");
	for (int i = 0; i < g->nfiles; i++) {
		const struct fs_merge_node *N = &g->nodes[i];
		fs_json_object(j, NULL);
		fs_json_string(j, "node", N->name);
		fs_json_string(j, "file", N->path);
		fs_json_int(j, "ranks", N->ranks);
		fs_json_bool(j, "straggler", g->straggler >= 0 && g->ranks[g->straggler].file == i);
		fs_json_string(j, "verdict", fs_verdict_name(N->verdict));
		fs_json_number(j, "input_wait_share", N->input_wait_share);
		fs_json_number(j, "gpu_busy", N->gpu_busy);
		fs_json_number(j, "offset_s", N->offset_s);
		fs_json_bool(j, "wall_clock", N->wall_clock);
		fs_json_number(j, "clock_correction_s", N->correction_s);
		fs_json_number(j, "clock_uncertainty_s", N->uncertainty_s);
		fs_json_int(j, "collective_ends", N->collective_ends);
		fs_json_end(j);
	}
	fs_json_end(j);
	fs_json_object(j, "clock");
	fs_json_string(j, "basis", g->collective_ends > 0 ? "wall clock + collectives" : "wall clock");
	fs_json_string(j, "reference", g->nodes[g->reference].name);
	fs_json_string(j, "collectives_reference", g->clock_reference >= 0 ? g->nodes[g->clock_reference].name : NULL);
	fs_json_int(j, "collective_ends", g->collective_ends);
	fs_json_number(j, "max_correction_s", g->max_correction_s);
	fs_json_number(j, "uncertainty_s", g->uncertainty_s);
	fs_json_end(j);
	fs_json_object(j, "skew");
	fs_json_int(j, "steps", g->skew_steps);
	fs_json_number(j, "median_s", g->skew_median_s);
	fs_json_number(j, "p95_s", g->skew_p95_s);
	fs_json_bool(j, "in_step", g->in_step);
	fs_json_end(j);
}

void fs_merged_render_json(FILE *out, const struct fs_merged *g)
{
	fs_merged_render_json_stalls(out, g, NULL);
}

void fs_merged_render_json_stalls(FILE *out, const struct fs_merged *g, const struct fs_stalls *stalls)
{
	struct fs_json j;
	fs_json_init(&j, out);
	fs_json_object(&j, NULL);
	members(&j, &g->m, &g->v);
	if (g->nfiles > 1 || g->nranks > 1) {
		straggler(&j, g);
		ranks(&j, g);
	}
	if (g->nfiles > 1) {
		fs_json_int(&j, "files", g->nfiles);
		nodes(&j, g);
	}
	if (stalls)
		fs_stalls_render_json(&j, stalls);
	fs_json_end(&j);
}
