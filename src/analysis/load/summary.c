#include "analysis/load/summary.h"

#include "analysis/load/metricdefs.h"
#include "analysis/load/query.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v as a long, or dflt when NaN or out of range (a cast would be undefined). */
static long to_long(double v, long dflt)
{
	return v >= (double)LONG_MIN && v < (double)LONG_MAX ? (long)v : dflt;
}

static void load_skipped(struct fs_q *q, struct fs_summary *s)
{
	size_t n = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT substr(key, 8), value FROM meta WHERE key LIKE 'source.%' "
				    "AND value != 'ok' ORDER BY key");
	while (n < sizeof s->skipped && fs_q_step(q, st)) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *why = (const char *)sqlite3_column_text(st, 1);
		if (why && !strncmp(why, "unavailable: ", 13))
			why += 13;
		int w = snprintf(s->skipped + n, sizeof s->skipped - n, "%s%s (%s)", n ? "; " : "",
				 name ? name : "?", why ? why : "?");
		if (w < 0)
			break;
		n += (size_t)w;
	}
	sqlite3_finalize(st);
}

#define SUMMARY_MAX_DEVICES 256

/* The busiest devices (fs_metricdefs_busier) that did anything. */
static void load_disks(struct fs_q *q, struct fs_summary *s)
{
	struct fs_metric_row *rows = malloc(SUMMARY_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_DISK, rows, SUMMARY_MAX_DEVICES);
	if (n > 0)
		qsort(rows, (size_t)n, sizeof *rows, fs_metricdefs_busier);
	for (int i = 0; i < n && s->ndisks < FS_SUMMARY_DISKS; i++) {
		if (!fs_metricdefs_active(&rows[i]))
			break; /* sorted: the rest did nothing either */
		struct fs_summary_disk *d = &s->disks[s->ndisks++];
		const double *v = rows[i].v;
		snprintf(d->name, sizeof d->name, "%s", rows[i].key);
		d->read_bytes_per_s = v[FS_MDK_DISK_READ_BYTES_PER_S];
		d->write_bytes_per_s = v[FS_MDK_DISK_WRITE_BYTES_PER_S];
		d->reads_per_s = v[FS_MDK_DISK_READS_PER_S];
		d->read_req_bytes = v[FS_MDK_DISK_READ_REQ_BYTES];
		d->read_await_ms = v[FS_MDK_DISK_READ_AWAIT_MS];
		d->util_pct = v[FS_MDK_DISK_UTIL_PCT];
		d->util_max_pct = v[FS_MDK_DISK_UTIL_MAX_PCT];
		d->read_bytes = v[FS_MDK_DISK_READ_BYTES];
	}
	free(rows);
}

/* The busiest interface but lo, when it moved anything. */
static void load_net(struct fs_q *q, struct fs_summary *s)
{
	s->net_rx_bytes_per_s = s->net_tx_bytes_per_s = NAN;
	struct fs_metric_row *rows = malloc(SUMMARY_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_NIC, rows, SUMMARY_MAX_DEVICES);
	if (n > 0)
		qsort(rows, (size_t)n, sizeof *rows, fs_metricdefs_busier);
	if (n > 0 && fs_metricdefs_active(&rows[0])) {
		snprintf(s->net_iface, sizeof s->net_iface, "%s", rows[0].key);
		s->net_rx_bytes_per_s = rows[0].v[FS_MDK_NIC_RX_BYTES_PER_S];
		s->net_tx_bytes_per_s = rows[0].v[FS_MDK_NIC_TX_BYTES_PER_S];
	}
	free(rows);
}

/* The machine's figures, from their one definition (metricdefs_table.c), over
 * the whole run (q's window is open): NaN where not valid. */
static void load_machine(struct fs_q *q, struct fs_summary *s)
{
	struct fs_metric_values mv;
	fs_metricdefs_load(q, &mv);
	const double *v = mv.v;
	s->cpu_user = v[FS_MD_CPU_USER_PCT];
	s->cpu_system = v[FS_MD_CPU_SYSTEM_PCT];
	s->cpu_iowait = v[FS_MD_CPU_IOWAIT_PCT];
	s->cpu_idle = v[FS_MD_CPU_IDLE_PCT];
	s->cpu_steal = v[FS_MD_CPU_STEAL_PCT];
	s->psi_cpu_some = v[FS_MD_PSI_CPU_SOME_PCT];
	s->psi_io_some = v[FS_MD_PSI_IO_SOME_PCT];
	s->psi_io_full = v[FS_MD_PSI_IO_FULL_PCT];
	s->psi_mem_some = v[FS_MD_PSI_MEMORY_SOME_PCT];
	s->psi_mem_full = v[FS_MD_PSI_MEMORY_FULL_PCT];
	s->mem_available_min = v[FS_MD_MEM_AVAILABLE_MIN_BYTES];
	s->mem_cached_max = v[FS_MD_PAGE_CACHE_MAX_BYTES];
	s->majflt_per_s = v[FS_MD_MAJOR_FAULTS_PER_S];
	s->ngpus = (int)to_long(v[FS_MD_GPU_COUNT], 0); /* NaN: none sampled */
	s->gpu_util = v[FS_MD_GPU_UTIL_PCT];
	s->gpu_mem_used_max = v[FS_MD_GPU_MEM_USED_MAX_BYTES];
	s->ticks = to_long(v[FS_MD_TICKS_COUNT], 0);
	s->recorded_until_s = v[FS_MD_LAST_TICK_S];
	/* the job's processes */
	s->job_procs_max = to_long(v[FS_MD_JOB_PROCS_MAX], 0);
	s->job_threads_max = to_long(v[FS_MD_JOB_THREADS_MAX], 0);
	s->job_cpu_pct = v[FS_MD_JOB_CPU_PCT];
	s->thr_running = v[FS_MD_THREADS_RUNNING_PCT];
	s->thr_blocked = v[FS_MD_THREADS_BLOCKED_PCT];
	s->thr_sleeping = v[FS_MD_THREADS_SLEEPING_PCT];
	s->thr_other = v[FS_MD_THREADS_OTHER_PCT];
	s->wrk_running = v[FS_MD_WORKER_THREADS_RUNNING_PCT];
	s->wrk_blocked = v[FS_MD_WORKER_THREADS_BLOCKED_PCT];
	s->wrk_sleeping = v[FS_MD_WORKER_THREADS_SLEEPING_PCT];
	s->job_read_bytes = v[FS_MD_JOB_READ_BYTES];
	s->job_rchar = v[FS_MD_JOB_RCHAR_BYTES];
}


static void load_gpu_name(struct fs_q *q, struct fs_summary *s)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT name FROM gpu WHERE name IS NOT NULL LIMIT 1");
	if (fs_q_step(q, st))
		snprintf(s->gpu_name, sizeof s->gpu_name, "%s", fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

static int more_steps(const void *a, const void *b)
{
	const struct fs_metric_row *x = a, *y = b;
	double nx = x->v[FS_MDK_LOADER_STEPS], ny = y->v[FS_MDK_LOADER_STEPS];
	return nx != ny ? (nx > ny ? -1 : 1) : strcmp(x->key, y->key);
}

static int longer_phase(const void *a, const void *b)
{
	const struct fs_metric_row *x = a, *y = b;
	double tx = x->v[FS_MDK_PHASE_TOTAL_S], ty = y->v[FS_MDK_PHASE_TOTAL_S];
	if (isnan(tx) != isnan(ty))
		return isnan(tx) ? 1 : -1;
	return tx != ty && !isnan(tx) ? (tx > ty ? -1 : 1) : strcmp(x->key, y->key);
}

#define SUMMARY_MAX_NAMES 64

/* The loaders with the most steps, the phases that took longest. */
static void load_steps(struct fs_q *q, struct fs_summary *s)
{
	struct fs_metric_row *rows = malloc(SUMMARY_MAX_NAMES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_LOADER, rows, SUMMARY_MAX_NAMES);
	if (n > 0)
		qsort(rows, (size_t)n, sizeof *rows, more_steps);
	for (int i = 0; i < n && s->nloaders < FS_SUMMARY_LOADERS; i++) {
		struct fs_summary_loader *l = &s->loaders[s->nloaders++];
		snprintf(l->name, sizeof l->name, "%s", rows[i].key);
		l->steps = to_long(rows[i].v[FS_MDK_LOADER_STEPS], 0);
		l->epochs = to_long(rows[i].v[FS_MDK_LOADER_EPOCHS], 0);
		l->wait_s = rows[i].v[FS_MDK_LOADER_WAIT_S];
		l->compute_s = rows[i].v[FS_MDK_LOADER_COMPUTE_S];
		l->wait_share = rows[i].v[FS_MDK_LOADER_WAIT_SHARE];
	}
	n = fs_metricdefs_load_keyed(q, FS_MS_PHASE, rows, SUMMARY_MAX_NAMES);
	if (n > 0)
		qsort(rows, (size_t)n, sizeof *rows, longer_phase);
	for (int i = 0; i < n && s->nphases < FS_SUMMARY_PHASES; i++) {
		struct fs_summary_phase *p = &s->phases[s->nphases++];
		snprintf(p->name, sizeof p->name, "%s", rows[i].key);
		p->count = to_long(rows[i].v[FS_MDK_PHASE_COUNT], 0);
		p->total_s = rows[i].v[FS_MDK_PHASE_TOTAL_S];
	}
	free(rows);
	fs_q_meta(q, "hook", s->hook, sizeof s->hook);
}

/* A finished recording has an end record (meta end_unix, see
 * fs_session_finish); without one the recorder was killed or still runs. */
static void load_completeness(struct fs_q *q, struct fs_summary *s)
{
	char end[64];
	fs_q_meta(q, "end_unix", end, sizeof end);
	s->incomplete = end[0] == '\0';
}

int fs_summary_load(const char *path, struct fs_summary *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	fs_q_meta(&q, "mode", s->mode, sizeof s->mode);
	fs_q_meta(&q, "command", s->command, sizeof s->command);
	double pid = fs_q_meta_num(&q, "pid");
	s->pid = pid >= 0 && pid <= INT_MAX ? (int)pid : 0;
	s->duration_s = fs_q_meta_num(&q, "duration_s");
	s->interval_s = fs_q_meta_num(&q, "interval_s");
	double code = fs_q_meta_num(&q, "exit_code");
	s->has_exit = code >= INT_MIN && code <= INT_MAX;
	s->exit_code = s->has_exit ? (int)code : 0;
	load_completeness(&q, s);
	load_skipped(&q, s);
	s->per_minute = fs_q_tier(&q);

	load_machine(&q, s);
	load_disks(&q, s);
	load_net(&q, s);
	load_gpu_name(&q, s);
	load_steps(&q, s);
	s->recorder_cpu_s = fs_q_meta_num(&q, "recorder_cpu_s");
	s->recorder_cpu_start_s = fs_q_meta_num(&q, "recorder_cpu_start_s");
	s->recorder_sample_us = fs_q_meta_num(&q, "recorder_sample_us");
	char states[16] = "";
	fs_q_meta(&q, "job.states", states, sizeof states);
	s->states_bpf = !strcmp(states, "bpf");
	s->bpf_cpu_s = fs_q_meta_num(&q, "job.bpf_cpu_s");
	/* A query that failed (not a table this file lacks) would pass for
	 * "not recorded": the summary is not to be trusted then. */
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}
