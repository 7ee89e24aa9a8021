/* exporter_page.c - the exporter's /metrics page (exporter_page.h). Every
 * family's HELP and TYPE is written even when it has no sample yet, so a
 * dashboard's queries name metrics that exist from the first scrape. */
#include "render/exporter_page.h"

#include <math.h>
#include <stdio.h>

#define L(n, v) ((struct fs_om_label){n, v})

static void per_job(struct fs_om *o, const struct fs_exporter_job *jobs, int n, double (*get)(const struct fs_exporter_job *))
{
	for (int i = 0; i < n; i++)
		if (jobs[i].up)
			fs_om_sample(o, &L("job", jobs[i].job), 1, get(&jobs[i]));
}

static double up_of(const struct fs_exporter_job *j) { return j->up; }
static double recording_of(const struct fs_exporter_job *j) { return !j->d->complete; }
static double recorded_of(const struct fs_exporter_job *j) { return j->d->recorded_s; }
static double ticks_of(const struct fs_exporter_job *j) { return (double)j->d->ticks; }
static double missed_of(const struct fs_exporter_job *j) { return j->d->missed_ticks; }
static double stalled_of(const struct fs_exporter_job *j) { return j->d->stalled; }
static double stalls_of(const struct fs_exporter_job *j) { return j->d->stalls; }
static double stall_s_of(const struct fs_exporter_job *j)
{
	return j->d->stalled && j->d->recorded_s > j->d->stall_start ? j->d->recorded_s - j->d->stall_start : 0;
}

static void run_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	fs_om_family(o, "feedscope_run", FS_OM_INFO, NULL, "A run file served: its mode (run, attach) and host.");
	for (int i = 0; i < n; i++)
		if (jobs[i].up)
			fs_om_sample(o,
				     (struct fs_om_label[]){L("job", jobs[i].job), L("mode", jobs[i].d->mode),
							    L("hostname", jobs[i].d->host)},
				     3, 1);
	fs_om_family(o, "feedscope_run_file_up", FS_OM_GAUGE, NULL, "1 when the run file could be read at the last refresh, else 0.");
	for (int i = 0; i < n; i++)
		fs_om_sample(o, &L("job", jobs[i].job), 1, up_of(&jobs[i]));
	fs_om_family(o, "feedscope_recording", FS_OM_GAUGE, NULL, "1 while the run is being recorded (no end record yet), 0 once it finished.");
	per_job(o, jobs, n, recording_of);
	fs_om_family(o, "feedscope_recorded_seconds", FS_OM_GAUGE, "seconds", "Seconds recorded: the last tick's time since the run started.");
	per_job(o, jobs, n, recorded_of);
	fs_om_family(o, "feedscope_recorder_ticks", FS_OM_COUNTER, NULL, "Ticks the recorder sampled.");
	per_job(o, jobs, n, ticks_of);
	fs_om_family(o, "feedscope_recorder_missed_ticks", FS_OM_COUNTER, NULL, "Ticks the recorder skipped because sampling overran.");
	per_job(o, jobs, n, missed_of);
	fs_om_family(o, "feedscope_stalled", FS_OM_GAUGE, NULL,
		     "1 while the job is stalled: no step (or, without steps, no progress) for longer than the bound (docs/verdicts.md, Stalls), else 0.");
	per_job(o, jobs, n, stalled_of);
	fs_om_family(o, "feedscope_stall_seconds", FS_OM_GAUGE, "seconds",
		     "How long the stall at hand has lasted (from the last progress to the last tick recorded); 0 when none.");
	per_job(o, jobs, n, stall_s_of);
	fs_om_family(o, "feedscope_stalls", FS_OM_COUNTER, NULL, "Stalls found in the run so far.");
	per_job(o, jobs, n, stalls_of);
}

static void step_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	static const struct {
		const char *name;
		enum fs_om_type type;
		const char *unit, *help;
	} fam[] = {
		{"feedscope_steps", FS_OM_COUNTER, NULL, "Training steps the loop reported (steps table)."},
		{"feedscope_input_wait_seconds", FS_OM_COUNTER, "seconds", "Seconds the loop waited for its next batch (steps.wait_s)."},
		{"feedscope_compute_seconds", FS_OM_COUNTER, "seconds", "Seconds from getting a batch to asking for the next (steps.compute_s)."},
		{"feedscope_epoch", FS_OM_GAUGE, NULL, "The epoch of the loop's latest step (0-based)."},
	};
	for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
		fs_om_family(o, fam[f].name, fam[f].type, fam[f].unit, fam[f].help);
		for (int i = 0; i < n; i++) {
			if (!jobs[i].up)
				continue;
			for (int k = 0; k < jobs[i].d->nloops; k++) {
				const struct fs_tally_loop *l = &jobs[i].d->loops[k];
				char pid[16] = "", rank[16] = "";
				if (l->pid > 0)
					snprintf(pid, sizeof pid, "%d", l->pid);
				if (l->rank >= 0)
					snprintf(rank, sizeof rank, "%d", l->rank);
				double v = f == 0 ? (double)l->steps : f == 1 ? l->wait_s : f == 2 ? l->compute_s : (double)l->epoch;
				fs_om_sample(o, (struct fs_om_label[]){L("job", jobs[i].job), L("rank", rank), L("pid", pid), L("loader", l->loader)}, 4, v);
			}
		}
	}
}

static void proc_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	fs_om_family(o, "feedscope_loader_thread_seconds", FS_OM_COUNTER, "seconds",
		     "Thread-seconds of the job's threads by state (proc table): role worker is the DataLoader workers, main the other processes.");
	for (int i = 0; i < n; i++)
		for (int r = 0; jobs[i].up && jobs[i].d->have_proc && r < FS_TALLY__ROLES; r++)
			for (int s = 0; s < FS_TALLY__STATES; s++)
				fs_om_sample(o,
					     (struct fs_om_label[]){L("job", jobs[i].job), L("role", fs_tally_role_names[r]),
								    L("state", fs_tally_state_names[s])},
					     3, jobs[i].d->thread_s[r][s]);
	fs_om_family(o, "feedscope_process_cpu_seconds", FS_OM_COUNTER, "seconds", "CPU seconds (user + system) of the job's processes by role.");
	for (int i = 0; i < n; i++)
		for (int r = 0; jobs[i].up && jobs[i].d->have_proc && r < FS_TALLY__ROLES; r++)
			fs_om_sample(o, (struct fs_om_label[]){L("job", jobs[i].job), L("role", fs_tally_role_names[r])}, 2,
				     jobs[i].d->cpu_s[r]);
}

static void io_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	static const char *const thread[2] = {"main", "other"}, *const dir[2] = {"read", "write"};
	fs_om_family(o, "feedscope_io_call_seconds", FS_OM_COUNTER, "seconds",
		     "Seconds inside I/O calls (the tracer's io_classes) by descriptor class, thread (main or other) and call kind.");
	for (int i = 0; i < n; i++)
		for (int c = 0; jobs[i].up && jobs[i].d->have_classes && c < FS_TALLY__CLASSES; c++)
			for (int t = 0; t < 2; t++)
				for (int k = 0; k < FS_TALLY__CALLS; k++)
					fs_om_sample(o,
						     (struct fs_om_label[]){L("job", jobs[i].job), L("class", fs_tally_class_names[c]),
									    L("thread", thread[t]), L("call", fs_tally_call_names[k])},
						     4, jobs[i].d->io_s[c][t][k]);
	fs_om_family(o, "feedscope_io_bytes", FS_OM_COUNTER, "bytes", "Bytes returned by read-like and write-like calls (io_classes).");
	for (int i = 0; i < n; i++)
		for (int c = 0; jobs[i].up && jobs[i].d->have_classes && c < FS_TALLY__CLASSES; c++)
			for (int t = 0; t < 2; t++)
				for (int k = 0; k < 2; k++)
					fs_om_sample(o,
						     (struct fs_om_label[]){L("job", jobs[i].job), L("class", fs_tally_class_names[c]),
									    L("thread", thread[t]), L("direction", dir[k])},
						     4, jobs[i].d->io_bytes[c][t][k]);
	fs_om_family(o, "feedscope_io_calls", FS_OM_COUNTER, NULL, "I/O calls counted (io_classes), failed ones too.");
	for (int i = 0; i < n; i++)
		for (int c = 0; jobs[i].up && jobs[i].d->have_classes && c < FS_TALLY__CLASSES; c++)
			for (int t = 0; t < 2; t++)
				fs_om_sample(o,
					     (struct fs_om_label[]){L("job", jobs[i].job), L("class", fs_tally_class_names[c]),
								    L("thread", thread[t])},
					     3, jobs[i].d->io_calls[c][t]);
}

static void gpu_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	static const struct {
		const char *name;
		enum fs_om_type type;
		const char *unit, *help;
	} fam[] = {
		{"feedscope_accelerator_utilization_ratio", FS_OM_GAUGE, "ratio", "Share of the driver's last window a kernel ran (NVML utilization), latest tick."},
		{"feedscope_accelerator_busy_seconds", FS_OM_COUNTER, "seconds", "Seconds the accelerator was busy: utilization integrated over the ticks."},
		{"feedscope_accelerator_memory_used_bytes", FS_OM_GAUGE, "bytes", "Device memory used, latest tick."},
		{"feedscope_accelerator_power_watts", FS_OM_GAUGE, "watts", "Board power, latest tick."},
	};
	for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
		fs_om_family(o, fam[f].name, fam[f].type, fam[f].unit, fam[f].help);
		for (int i = 0; i < n; i++)
			for (int k = 0; jobs[i].up && k < jobs[i].d->ngpus; k++) {
				const struct fs_tally_gpu *g = &jobs[i].d->gpus[k];
				double v = f == 0 ? g->util_pct / 100 : f == 1 ? g->busy_s : f == 2 ? g->mem_used_bytes : g->power_w;
				if (isnan(v))
					continue; /* not reported by this device: no sample, not 0 */
				char gpu[16], dev[24];
				snprintf(gpu, sizeof gpu, "%d", g->gpu);
				snprintf(dev, sizeof dev, "nvidia%d", g->gpu);
				fs_om_sample(o,
					     (struct fs_om_label[]){L("job", jobs[i].job), L("gpu", gpu), L("device", dev),
								    L("model_name", g->name)},
					     4, v);
			}
	}
}

static void memory_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	static const struct {
		const char *name, *help;
	} part[] = {
		{"feedscope_job_memory_pss_bytes", "The job's proportional set size (smaps_rollup Pss) summed by part: main (the training processes), workers (their children), others; the latest tick."},
		{"feedscope_job_memory_uss_bytes", "The job's unique set size (Private_Clean + Private_Dirty) summed by part, the latest tick."},
		{"feedscope_job_memory_swap_bytes", "The job's swapped-out bytes (smaps_rollup Swap) summed by part, the latest tick."},
	};
	for (size_t f = 0; f < sizeof part / sizeof *part; f++) {
		fs_om_family(o, part[f].name, FS_OM_GAUGE, "bytes", part[f].help);
		for (int i = 0; i < n; i++)
			for (int p = 0; jobs[i].up && jobs[i].d->have_pss && p < FS_TALLY__PARTS; p++) {
				const struct fs_tally_data *d = jobs[i].d;
				double v = f == 0 ? d->pss[p] : f == 1 ? d->uss[p] : d->swap[p];
				fs_om_sample(o, (struct fs_om_label[]){L("job", jobs[i].job), L("role", fs_tally_part_names[p])}, 2, v);
			}
	}
	static const struct {
		const char *name, *help;
	} fam[] = {
		{"feedscope_dev_shm_used_bytes", "Bytes used on the file system mounted at /dev/shm (DataLoader batches pass there), the latest sample."},
		{"feedscope_dev_shm_size_bytes", "The size of the file system mounted at /dev/shm (a container's default is 64 MiB)."},
		{"feedscope_cgroup_memory_limit_bytes", "The memory limit of the job's cgroups, the largest; no sample when unlimited."},
		{"feedscope_cgroup_memory_peak_bytes", "The most memory ever charged to the job's cgroups (memory.peak), the largest."},
		{"feedscope_cgroup_memory_usage_bytes", "The memory charged to the job's cgroups (page cache included), the largest, the latest tick."},
	};
	for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
		fs_om_family(o, fam[f].name, FS_OM_GAUGE, "bytes", fam[f].help);
		for (int i = 0; i < n; i++) {
			const struct fs_tally_data *d = jobs[i].d;
			double v = f == 0 ? d->shm_used : f == 1 ? d->shm_size : f == 2 ? d->cg_limit : f == 3 ? d->cg_peak : d->cg_usage;
			if (jobs[i].up && !isnan(v))
				fs_om_sample(o, &L("job", jobs[i].job), 1, v);
		}
	}
}

static void verdict_families(struct fs_om *o, const struct fs_exporter_job *jobs, int n)
{
	fs_om_family(o, "feedscope_verdict", FS_OM_INFO, NULL,
		     "The verdict of the latest window (feedscope report --window): primary cause and the basis it rests on.");
	for (int i = 0; i < n; i++)
		if (jobs[i].v->valid)
			fs_om_sample(o,
				     (struct fs_om_label[]){L("job", jobs[i].job), L("primary", jobs[i].v->primary),
							    L("basis", jobs[i].v->basis)},
				     3, 1);
	static const struct {
		const char *name, *unit, *help;
	} fam[] = {
		{"feedscope_verdict_confidence", NULL, "The verdict's confidence, 0 to 1."},
		{"feedscope_accelerator_idle_ratio", "ratio", "Share of the trainer's loop time the accelerator was idle (the verdict's window)."},
		{"feedscope_input_bound_ratio", "ratio", "Share of the trainer's loop time spent waiting for input (the verdict's window)."},
		{"feedscope_verdict_window_seconds", "seconds", "Length of the window the verdict was computed over."},
		{"feedscope_verdict_recorded_seconds", "seconds", "The run's time (feedscope_recorded_seconds) at the end of the verdict's window."},
	};
	for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
		fs_om_family(o, fam[f].name, FS_OM_GAUGE, fam[f].unit, fam[f].help);
		for (int i = 0; i < n; i++) {
			const struct fs_exporter_verdict *v = jobs[i].v;
			double x = f == 0 ? v->confidence : f == 1 ? v->accelerator_idle : f == 2 ? v->input_bound : f == 3 ? v->window_s : v->at_s;
			if (v->valid && !isnan(x))
				fs_om_sample(o, &L("job", jobs[i].job), 1, x);
		}
	}
	fs_om_family(o, "feedscope_loop_time_ratio", FS_OM_GAUGE, "ratio",
		     "The trainer's loop time by bucket (the accounting of feedscope report), the verdict's window; the buckets add up to 1.");
	for (int i = 0; i < n; i++)
		for (int b = 0; jobs[i].v->valid && jobs[i].v->have_shares && b < FS_BUCKET__N; b++)
			fs_om_sample(o, (struct fs_om_label[]){L("job", jobs[i].job), L("bucket", fs_bucket_name(b))}, 2, jobs[i].v->share[b]);
}

static void server_families(struct fs_om *o, const struct fs_exporter_counters *c)
{
	const struct {
		const char *name, *help;
		uint64_t v;
	} fam[] = {
		{"feedscope_exporter_connections", "Connections the exporter accepted.", c->connections},
		{"feedscope_exporter_evicted_connections", "Connections refused: more than the per-client limit from one address.", c->evicted},
		{"feedscope_exporter_timed_out_connections", "Connections closed at the per-request deadline with a request unanswered.", c->timed_out},
		{"feedscope_exporter_requests", "Requests answered, errors included.", c->requests},
		{"feedscope_exporter_bad_requests", "Requests answered with an error (404, 405, 413, 414, 431; and those the HTTP library refused once their request line was read).", c->bad_requests},
	};
	for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
		fs_om_family(o, fam[f].name, FS_OM_COUNTER, NULL, fam[f].help);
		fs_om_sample(o, NULL, 0, (double)fam[f].v);
	}
}

void fs_exporter_page(struct fs_om *o, const struct fs_exporter_job *jobs, int n, const struct fs_exporter_counters *c)
{
	run_families(o, jobs, n);
	step_families(o, jobs, n);
	proc_families(o, jobs, n);
	io_families(o, jobs, n);
	gpu_families(o, jobs, n);
	memory_families(o, jobs, n);
	verdict_families(o, jobs, n);
	server_families(o, c);
}
