/* verdict.c - findings and the verdict (docs/verdicts.md). */
#include "analysis/judge/verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/judge/storage.h"
#include "util/fmt.h"

static const char *const names[FS_VERDICT__N] = {
	[FS_VERDICT_COMPUTE_BOUND] = "compute_bound",
	[FS_VERDICT_STORAGE_BANDWIDTH] = "storage_bandwidth",
	[FS_VERDICT_STORAGE_LATENCY] = "storage_latency",
	[FS_VERDICT_METADATA] = "metadata",
	[FS_VERDICT_CPU_PREPROCESS] = "cpu_preprocess",
	[FS_VERDICT_LOADER_PARALLELISM] = "loader_parallelism",
	[FS_VERDICT_NETWORK] = "network",
	[FS_VERDICT_MEMORY_PRESSURE] = "memory_pressure",
	[FS_VERDICT_CHECKPOINT_STALL] = "checkpoint_stall",
	[FS_VERDICT_EPOCH_START] = "epoch_start",
	[FS_VERDICT_HOST_TO_DEVICE] = "host_to_device",
	[FS_VERDICT_MAIN_PROCESS] = "main_process",
	[FS_VERDICT_UNDETERMINED] = "undetermined",
};

const char *fs_verdict_name(enum fs_verdict_id id)
{
	return id < FS_VERDICT__N ? names[id] : "undetermined";
}

static void missing(struct fs_verdict *v, const char *what)
{
	if (v->nmissing < FS_MAX_MISSING)
		snprintf(v->missing[v->nmissing++], sizeof v->missing[0], "%s", what);
}

static struct fs_finding *finding(struct fs_verdict *v, enum fs_verdict_id id, double fraction)
{
	if (v->nfind >= FS_MAX_FINDINGS)
		return NULL;
	struct fs_finding *f = &v->find[v->nfind++];
	memset(f, 0, sizeof *f);
	f->id = id;
	f->fraction_of_time = fraction;
	f->severity = isfinite(fraction) ? fraction : 0;
	return f;
}

#define EV(f, ...) fs_evidence_add((f)->ev, &(f)->nev, __VA_ARGS__)

/* The runner-up of the loaders' time shares, set by attributed() during one
 * fs_judge (single-threaded callers; copied into the verdict). */
static _Thread_local char g_runner[32];
static _Thread_local double g_runner_share;

static void cpu_evidence(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_finding *f)
{
	char a[32];
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	EV(f, "loader_running_share", m->loaders.running, "fraction", "proc", "%s running on a CPU %.0f%% of the time",
	   who, 100 * m->loaders.running);
	EV(f, "loader_cpu_cores", m->loaders.cpu_cores, "cores", "proc", "%s used %.2g cores of %d", who,
	   m->loaders.cpu_cores, m->ncpu);
	EV(f, "cpu_busy_pct", m->cpu_busy_pct, "%", "cpu", "all cores busy %.0f%%", m->cpu_busy_pct);
	if (m->cg_throttled_pct >= t->cgroup_throttled_pct)
		EV(f, "cgroup_throttled_pct", m->cg_throttled_pct, "%", "cgroup",
		   "the job's cgroup was CPU-throttled %.0f%% of the time (quota %s)", m->cg_throttled_pct,
		   fs_fmt_sig(a, 32, m->cg_quota_cores, 2, " cores"));
}

/* "NAME 61%" for stage s (its own time's share of the workers' time). */
static const char *stage_text(char *out, size_t cap, const struct fs_loader_stage *s)
{
	snprintf(out, cap, "%.60s%s %.0f%%", s->name, strcmp(s->kind, "getitem") ? "" : " (itself)", 100 * s->self_share);
	return out;
}

/* The stages that hold the loaders' time (load/stages.h): the largest by
 * its own (exclusive) time, those at stage_named_share or more beside it,
 * and the getitem's own time split by what it was doing. */
static void stage_evidence(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_finding *f)
{
	const struct fs_stages *st = &m->stages;
	char b[96], c[96];
	if (!st->timed || st->n == 0 || !(st->worker_s > 0))
		return;
	const struct fs_loader_stage *top = &st->s[0];
	int named = 0;
	for (int i = 0; i < st->n && i < 3; i++)
		named += st->s[i].self_share >= t->stage_named_share;
	EV(f, "loader_stage_share", top->self_share, "fraction", "loader_stages (hook)",
	   "%.60s%s holds %.0f%% of the DataLoader workers' time (its own, exclusive; %.0f%% of their time producing "
	   "batches; %d workers busy %.0f%% of the time)", top->name, strcmp(top->kind, "getitem") ? "" : " itself",
	   100 * top->self_share,
	   100 * top->self_busy_share, st->workers, 100 * st->busy_s / st->worker_s);
	if (st->n > 1)
		EV(f, "loader_stages_next", st->s[1].self_share, "fraction", "loader_stages (hook)",
		   "%s then: %s%s%s", named > 1 ? "named too" : "the next stages", stage_text(b, sizeof b, &st->s[1]),
		   st->n > 2 ? ", " : "", st->n > 2 ? stage_text(c, sizeof c, &st->s[2]) : "");
	const struct fs_loader_stage *g = fs_stages_getitem(st);
	if (g && g->self_share >= t->stage_named_share && g->self_s > 0) {
		double cpu = fmin(g->self_cpu_s, g->self_s);
		if (isfinite(g->io_s))
			EV(f, "loader_getitem_cpu_share", cpu / g->self_s, "fraction", "loader_stages + io_classes",
			   "%.60s itself (outside its transforms): on a CPU %.0f%%, in file and socket calls %.0f%% "
			   "(the tracer; their kernel CPU counts in both), off the CPU %.0f%%", g->name,
			   100 * cpu / g->self_s, 100 * g->io_s / g->self_s, 100 * (1 - cpu / g->self_s));
		else
			EV(f, "loader_getitem_cpu_share", cpu / g->self_s, "fraction", "loader_stages",
			   "%.60s itself (outside its transforms): on a CPU %.0f%%, off the CPU (I/O, sleep, waiting for a "
			   "core) %.0f%%; its I/O calls were not traced", g->name, 100 * cpu / g->self_s,
			   100 * (1 - cpu / g->self_s));
	}
}

bool fs_main_process(const struct fs_metrics *m, const struct fs_thresholds *t)
{
	if (m->main_wait_cores >= t->loader_running)
		return true;
	if (m->next_steps <= 0 || !(m->next_wait_s > 0) || !(m->next_loop_s > 0))
		return false;
	/* the hook's parts of next(): the sampler and the unpickling are the
	 * training process's own work, half the wait or more; or its pin
	 * thread on a CPU half the loop */
	return (m->next_index_s + m->next_get_cpu_s) / m->next_wait_s >= t->loader_running ||
	       m->next_pin_cpu_s / m->next_loop_s >= t->loader_running;
}

/* Too few loaders: they sleep with nothing to wait on, cores and storage
 * spare. Only when we know the loop waited. */
static enum fs_verdict_id parallelism(const struct fs_metrics *m, const struct fs_thresholds *t, bool know_idle,
				      double idle, struct fs_finding *f)
{
	/* The loaders' own state decides: asleep, not running and not in D.
	 * How busy the machine's cores and disks are is evidence only: on a
	 * shared node another program's load does not put the job's loaders
	 * to sleep, and must not hide that they are. */
	if (!know_idle)
		return FS_VERDICT_UNDETERMINED;
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	/* The workers sleep because the training process itself is busy
	 * inside next(): its sampler, the unpickling of what the workers
	 * send, a collate or pinning there. More workers would sleep too. */
	if (!m->loaders_are_main && fs_main_process(m, t)) {
		if (isfinite(m->main_wait_cores))
			EV(f, "main_cpu_in_wait_cores", m->main_wait_cores, "cores",
			   m->main_wait_basis && !strcmp(m->main_wait_basis, "steps") ? "proc + steps" : "proc + gpu",
			   "the training process used %.2f cores of CPU while it waited for a batch (%.2f while it "
			   "computed): the wait is its own work inside next()", m->main_wait_cores, m->main_compute_cores);
		if (m->next_steps > 0 && m->next_wait_s > 0)
			EV(f, "next_parts", (m->next_index_s + m->next_get_cpu_s) / m->next_wait_s, "fraction",
			   "steps (hook)",
			   "inside next(), of the wait: the sampler %.0f%%, unpickling the batches %.0f%%, waiting for a "
			   "worker %.0f%%; the pin thread on a CPU %.0f%% of the loop", 100 * m->next_index_s / m->next_wait_s,
			   100 * m->next_get_cpu_s / m->next_wait_s,
			   100 * fmax(0, m->next_get_s - m->next_get_cpu_s) / m->next_wait_s,
			   100 * m->next_pin_cpu_s / m->next_loop_s);
		EV(f, "loader_sleeping_share", idle, "fraction", "proc",
		   "%s asleep %.0f%% of the time: they had no more to do", who, 100 * idle);
		return FS_VERDICT_MAIN_PROCESS;
	}
	EV(f, "loader_sleeping_share", idle, "fraction", "proc",
	   "%s asleep %.0f%% of the time, waiting on nothing local", who, 100 * idle);
	EV(f, "cpu_busy_pct", m->cpu_busy_pct, "%", "cpu", "cores busy %.0f%% (%d cores)", m->cpu_busy_pct, m->ncpu);
	if (m->disk[0])
		EV(f, "disk_util_pct", m->disk_util_pct, "%", "disk", "%s util %.0f%%", m->disk, m->disk_util_pct);
	return FS_VERDICT_LOADER_PARALLELISM;
}

/* The cause from the loaders' own time (fs_loader_shares): the largest
 * share. Memory short and the loaders re-reading from storage: their CPU
 * time is page reclaim inside the reads, so the storage side wins. */
static enum fs_verdict_id attributed(const struct fs_metrics *m, const struct fs_thresholds *t, bool know_idle,
				     const struct fs_loader_shares *sh, struct fs_finding *f, double *clarity)
{
	char a[32];
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	double part[5] = {sh->network, sh->storage, sh->metadata, sh->cpu, sh->idle};
	int best = 0;
	for (int i = 1; i < 5; i++)
		if (part[i] > part[best])
			best = i;
	if (fs_storage_rereading(m, t) && sh->storage + sh->metadata > 0)
		best = sh->metadata > sh->storage ? 2 : 1;
	double second = 0;
	for (int i = 0; i < 5; i++)
		if (i != best && part[i] > second)
			second = part[i];
	*clarity = part[best] > 0 ? (part[best] - fmin(second, part[best])) / part[best] : 0;
	static const char *const part_name[5] = {"network", "storage", "metadata", "cpu_preprocess",
						 "loader_parallelism"};
	for (int i = 0; i < 5; i++)
		if (i != best && part[i] == second && second > 0 && second >= 0.5 * part[best]) {
			snprintf(g_runner, sizeof g_runner, "%s", part_name[i]);
			g_runner_share = second;
		}
	EV(f, "loader_time_shares", part[best], "fraction", "io_classes",
	   "%s' time: sockets %.0f%%, file reads %.0f%% (page faults %.0f%%), metadata calls %.0f%%, "
	   "on a CPU %.0f%%, idle %.0f%%", who, 100 * sh->network, 100 * sh->storage, 100 * sh->faults,
	   100 * sh->metadata, 100 * sh->cpu, 100 * sh->idle);
	switch (best) {
	case 0: {
		double procs = m->loaders.procs > 0 ? (double)m->loaders.procs : 1;
		double rate = m->duration_s > 0 ? m->loader_sock_read_bytes / m->duration_s : NAN;
		EV(f, "loader_socket_read_bytes_per_s", rate / procs, "B/s", "io_classes",
		   "%s received %s per process (%.0f processes) from sockets", who, fs_fmt_rate(a, 32, rate / procs),
		   procs);
		EV(f, "nic_rx_bytes_per_s", m->nic_rx_bytes_per_s, "B/s", "net", "busiest NIC %s receiving %s", m->nic,
		   fs_fmt_rate(a, 32, m->nic_rx_bytes_per_s));
		return FS_VERDICT_NETWORK;
	}
	case 1:
	case 2:
		if (sh->faults > 0)
			EV(f, "loader_major_faults", m->loader_majflt, "count", "proc",
			   "%.0f major page faults; %s read from storage, %s through read calls", m->loader_majflt,
			   fs_fmt_bytes(a, 32, m->loader_read_bytes), fs_fmt_bytes((char[32]){0}, 32, m->loader_rchar_bytes));
		return fs_storage_family(m, t, f);
	case 3:
		cpu_evidence(m, t, f);
		stage_evidence(m, t, f);
		return FS_VERDICT_CPU_PREPROCESS;
	default:
		return parallelism(m, t, know_idle, sh->idle, f);
	}
}

/* Why the loaders could not keep up: the pipeline's limiting resource.
 * Returns the id (UNDETERMINED if no rule holds), fills f's evidence, and
 * sets *clarity to how far the winner stands above the runner-up (0..1). */
static enum fs_verdict_id classify(const struct fs_metrics *m, const struct fs_thresholds *t,
				   bool know_idle, struct fs_finding *f, double *clarity)
{
	const struct fs_states *L = &m->loaders;
	char a[32], b[32];
	*clarity = 0.5;
	if (!m->have_job || L->samples == 0)
		return FS_VERDICT_UNDETERMINED;
	bool nic_full = m->nic_speed_bytes_per_s > 0 && m->nic_rx_bytes_per_s >= t->nic_saturated * m->nic_speed_bytes_per_s;
	bool nfs_slow = m->nfs_read_ops_per_s > 0 && (m->nfs_rtt_ms >= t->nfs_rtt_slow_ms || L->blocked >= t->loader_blocked_io);
	if (nic_full || nfs_slow) {
		EV(f, "nic_rx_bytes_per_s", m->nic_rx_bytes_per_s, "B/s", "net", "%s receiving %s of a %s link",
		   m->nic, fs_fmt_rate(a, 32, m->nic_rx_bytes_per_s), fs_fmt_rate(b, 32, m->nic_speed_bytes_per_s));
		EV(f, "nfs_read_rtt_ms", m->nfs_rtt_ms, "ms", "nfs", "NFS READ round trip %.1f ms", m->nfs_rtt_ms);
		*clarity = 0.7;
		return FS_VERDICT_NETWORK;
	}
	struct fs_loader_shares sh;
	if (fs_loader_shares(m, &sh))
		return attributed(m, t, know_idle, &sh, f, clarity);
	double cpu_signal = L->running;
	bool throttled = m->cg_throttled_pct >= t->cgroup_throttled_pct;
	bool storage = L->blocked >= t->loader_blocked_io ||
		       (m->psi_io >= t->psi_io_stalled_pct && L->blocked >= L->running && L->blocked > 0.1);
	bool cpu = cpu_signal >= t->loader_running || throttled ||
		   (m->cpu_busy_pct >= t->cpu_saturated_pct && cpu_signal >= 0.3);
	/* Memory constrained and the loaders re-reading from storage: their CPU
	 * time is largely page reclaim, a symptom of the memory limit, so the
	 * storage side (memory_pressure) wins even when they run more than
	 * they block. */
	if (storage && (!cpu || L->blocked >= cpu_signal || fs_storage_rereading(m, t))) {
		*clarity = L->blocked > 0 ? (L->blocked - fmin(cpu_signal, L->blocked)) / L->blocked : 0.5;
		return fs_storage_family(m, t, f);
	}
	if (cpu) {
		*clarity = cpu_signal > 0 ? (cpu_signal - fmin(L->blocked, cpu_signal)) / cpu_signal : 0.5;
		cpu_evidence(m, t, f);
		stage_evidence(m, t, f);
		return FS_VERDICT_CPU_PREPROCESS;
	}
	/* Loaders asleep, cores and storage idle: too few loaders. */
	if (L->sleeping >= t->loader_idle) {
		*clarity = L->sleeping;
		return parallelism(m, t, know_idle, L->sleeping, f);
	}
	return FS_VERDICT_UNDETERMINED;
}

static void list_missing(const struct fs_metrics *m, struct fs_verdict *v)
{
	if (!m->have_steps)
		missing(v, "steps: no step timing from inside the job (Python: feedscope run --pytorch, or "
			   "feedscope.watch(); C: include/feedscope.h)");
	if (!m->have_gpu)
		missing(v, "gpu: no accelerator utilization (no NVML)");
	if (!m->have_job)
		missing(v, "job: no per-process states (job source off)");
	if (isnan(m->psi_io))
		missing(v, "psi: no pressure stall information");
	if (!m->disk[0])
		missing(v, "disk: the job read nothing from a block device (page cache, network or tmpfs)");
	if (!m->have_trace)
		missing(v, "tracer: no per-file I/O (feedscope run loads it unless --no-trace; static binaries "
			   "and io_uring are not seen)");
}

/* The accounting of every training process (accounting.c); the verdict
 * speaks for the trainer's (load/loops.h: the straggler). Its buckets give the
 * shares the findings compete with: host I/O (checkpoints), epoch
 * boundaries, and the steady input wait. */
static void shares(const struct fs_metrics *m, struct fs_verdict *v, double *ckpt, double *epoch,
		   double *steady)
{
	*ckpt = *epoch = 0;
	*steady = NAN;
	v->nacct = 0;
	for (int i = 0; i < m->nloops && i < FS_MAX_LOOPS; i++)
		fs_account(m, &m->loops[i], &v->acct[v->nacct++]);
	v->trainer = m->trainer;
	if (m->nloops == 0) {
		/* Metrics without per-process loops (built by hand, not by
		 * fs_metrics_load): the job-level figures as one process. */
		struct fs_loop_proc one = {.pid = m->trainer_pid, .rank = -1, .local_rank = -1};
		one.have_steps = m->have_steps;
		one.steps = m->steps;
		one.loop_s = m->have_steps ? m->loop_s : m->duration_s;
		one.wait_s = m->wait_s;
		one.compute_s = m->compute_s;
		one.epoch_end_s = m->epoch_end_s;
		one.epoch_excess_s = m->epoch_start_excess_s;
		one.host_io_s = m->checkpoint_s;
		one.gpu_busy = m->gpu_busy;
		one.gpu_busy_in_host_io = m->gpu_busy_in_checkpoints;
		fs_account(m, &one, &v->acct[0]);
		v->nacct = 1;
		v->trainer = 0;
	}
	snprintf(v->trainer_why, sizeof v->trainer_why, "%s", m->trainer_why);
	const struct fs_accounting *A = fs_verdict_trainer(v);
	if (!A || !A->valid) {
		snprintf(v->basis, sizeof v->basis, "system signals");
		return;
	}
	const double *b = A->share;
	*ckpt = b[FS_BUCKET_HOST_IO];
	*epoch = b[FS_BUCKET_EPOCH];
	*steady = b[FS_BUCKET_INPUT];
	v->input_bound_fraction = b[FS_BUCKET_INPUT] + b[FS_BUCKET_EPOCH];
	v->accelerator_idle_fraction = 1 - b[FS_BUCKET_BUSY];
	snprintf(v->basis, sizeof v->basis, "%s", A->basis);
}

static void add_findings(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v,
			 double ckpt, double epoch, double steady, double *clarity, enum fs_verdict_id *cause)
{
	char a[32];
	bool know_idle = isfinite(v->input_bound_fraction);
	struct fs_finding tmp = {0};
	*cause = classify(m, t, know_idle, &tmp, clarity);
	/* An input cause only above the input-wait floor: under it the loader
	 * keeps up as well as storage benchmarks ask (thresholds.h). */
	if (*cause != FS_VERDICT_UNDETERMINED && (!know_idle || steady >= fmax(t->finding_min_share, t->input_wait_floor))) {
		struct fs_finding *f = finding(v, *cause, know_idle ? steady : NAN);
		if (f) {
			f->nev = tmp.nev;
			memcpy(f->ev, tmp.ev, sizeof tmp.ev);
			if (!know_idle)
				f->severity = *clarity;
		}
	}
	/* ckpt is the bucket's accelerator-idle part already (accounting.c):
	 * a checkpoint the accelerator computes through is not a stall. */
	if (ckpt >= t->finding_min_share) {
		struct fs_finding *f = finding(v, FS_VERDICT_CHECKPOINT_STALL, ckpt);
		if (f) {
			if (m->checkpoints > 0)
				EV(f, "checkpoint_share", ckpt, "fraction", "phases",
				   "%ld checkpoints took %s, %.0f%% of the loop's time", m->checkpoints,
				   fs_fmt_time(a, 32, m->checkpoint_phase_s), 100 * ckpt);
			EV(f, "host_io_share", ckpt, "fraction", "io_classes",
			   "the training loop's thread spent %s writing and syncing files (%s with checkpoint phases), "
			   "%.0f%% of the %s time", fs_fmt_time(a, 32, m->host_io_s),
			   fs_fmt_time((char[32]){0}, 32, m->checkpoint_s), 100 * ckpt, m->have_steps ? "loop's" : "run's");
			EV(f, "gpu_util_in_checkpoints_pct", m->gpu_busy_in_checkpoints, "%", "gpu",
			   "accelerator busy %.0f%% during them", m->gpu_busy_in_checkpoints);
		}
	}
	long boundaries = m->epoch_starts > m->epoch_ends ? m->epoch_starts : m->epoch_ends;
	double per_epoch = boundaries > 0 ? (m->epoch_start_excess_s + m->epoch_end_s) / (double)boundaries : NAN;
	if (epoch >= t->finding_min_share && boundaries > 0) {
		struct fs_finding *f = finding(v, FS_VERDICT_EPOCH_START, epoch);
		if (f) {
			EV(f, "epoch_boundary_share", epoch, "fraction", "steps",
			   "epoch boundaries cost %s each (%ld after the first epoch%s), %.0f%% of the loop's time",
			   fs_fmt_time(a, 32, per_epoch), boundaries,
			   m->have_steps ? "" : ", seen from the DataLoader workers' restarts", 100 * epoch);
			EV(f, "epoch_end_s", m->epoch_end_s, "s", "phases", "ending epochs (worker shutdown) took %s in all",
			   fs_fmt_time(a, 32, m->epoch_end_s));
		}
	}
}

static void pick_primary(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v,
			 double clarity)
{
	/* compute_bound: no bucket of accelerator idle time is worth a finding
	 * (each below finding_min_share, the input wait below the input-wait
	 * floor): what is left to gain is spread thin. */
	const struct fs_accounting *A = fs_verdict_trainer(v);
	if (A && A->valid) {
		double biggest = 0; /* of the buckets, each over the share it must reach */
		for (int b = 0; b < FS_BUCKET__N; b++) {
			if (b == FS_BUCKET_BUSY)
				continue;
			double need = b == FS_BUCKET_INPUT ? fmax(t->input_wait_floor, t->finding_min_share) : t->finding_min_share;
			biggest = fmax(biggest, A->share[b] / need);
		}
		if (biggest < 1 && v->nfind == 0) {
			v->primary = FS_VERDICT_COMPUTE_BOUND;
			v->confidence = (m->have_steps ? 0.9 : 0.75) * (1 - biggest * 0.5);
			return;
		}
	}
	int best = -1;
	for (int i = 0; i < v->nfind; i++)
		if (best < 0 || v->find[i].severity > v->find[best].severity)
			best = i;
	/* The largest idle bucket is one no verdict names (waiting on other
	 * ranks although this is the rank the others wait for, or host time
	 * nothing explains): say so rather than name a smaller one. */
	if (A && A->valid) {
		enum fs_bucket big = A->share[FS_BUCKET_RANKS] >= A->share[FS_BUCKET_OTHER] ? FS_BUCKET_RANKS : FS_BUCKET_OTHER;
		double share = A->share[big];
		if (share >= t->finding_min_share && (best < 0 || share > v->find[best].severity)) {
			fs_evidence_add(v->ev, &v->nev, "largest_idle_bucket", share, "fraction", "accounting",
					big == FS_BUCKET_RANKS
						? "the largest share of the loop, %.0f%%, is spent waiting on other ranks "
						  "inside collectives, by the rank the others wait on"
						: "the largest share of the loop, %.0f%%, is host-side time with the accelerator "
						  "idle that no recorded signal explains",
					100 * share);
			best = -1;
		}
	}
	if (best < 0) {
		v->primary = FS_VERDICT_UNDETERMINED;
		v->confidence = 0;
		return;
	}
	v->primary = v->find[best].id;
	double base = m->have_steps ? 0.9 : (m->have_gpu ? 0.75 : 0.5);
	double runner_up = 0;
	for (int i = 0; i < v->nfind; i++)
		if (i != best && v->find[i].severity > runner_up)
			runner_up = v->find[i].severity;
	double margin = v->find[best].severity > 0 ? 1 - runner_up / v->find[best].severity : 0;
	if (v->primary != FS_VERDICT_CHECKPOINT_STALL && v->primary != FS_VERDICT_EPOCH_START)
		margin = fmin(margin, clarity);
	v->confidence = base * (0.5 + 0.5 * fmax(0, fmin(1, margin)));
	/* The runner-up: another finding at least half as large, or (for an
	 * input cause) the loaders' second-largest share. */
	for (int i = 0; i < v->nfind; i++)
		if (i != best && runner_up > 0 && v->find[i].severity == runner_up &&
		    runner_up >= 0.5 * v->find[best].severity) {
			snprintf(v->runner_up, sizeof v->runner_up, "%s", fs_verdict_name(v->find[i].id));
			v->runner_up_share = runner_up;
		}
	if (!v->runner_up[0] && g_runner[0] && v->primary != FS_VERDICT_CHECKPOINT_STALL &&
	    v->primary != FS_VERDICT_EPOCH_START) {
		snprintf(v->runner_up, sizeof v->runner_up, "%s", g_runner);
		v->runner_up_share = g_runner_share;
	}
	/* The verdict's own evidence: the headline number, then its finding's. */
	for (int i = 0; i < v->find[best].nev && v->nev < FS_MAX_EVIDENCE; i++)
		v->ev[v->nev++] = v->find[best].ev[i];
}

void fs_judge(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	memset(v, 0, sizeof *v);
	g_runner[0] = '\0';
	g_runner_share = NAN;
	v->runner_up_share = NAN;
	v->input_bound_fraction = v->accelerator_idle_fraction = v->predicted_speedup = NAN;
	list_missing(m, v);
	double ckpt, epoch, steady, clarity;
	shares(m, v, &ckpt, &epoch, &steady);
	enum fs_verdict_id cause;
	add_findings(m, t, v, ckpt, epoch, steady, &clarity, &cause);
	if (cause == FS_VERDICT_CPU_PREPROCESS && !m->stages.timed && !m->loaders_are_main)
		missing(v, "stages: the workers' stages were not timed (the hook, feedscope run --pytorch, times each "
			   "transform, __getitem__ and collate_fn)");
	char a[32], b[32];
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	if (m->have_steps && T && T->dev_clock[0] && T->loop_s > 0)
		/* on the device's clock (load/devclock.c): the host's wait is
		 * not the device's idle */
		fs_evidence_add(v->ev, &v->nev, "input_wait_share", v->input_bound_fraction, "fraction",
				!strcmp(T->dev_clock, "events") ? "steps + device events" : "steps + gpu",
				"the accelerator idled waiting for data %.0f%% of the loop's time, by its own clock; the host "
				"waited in next() %.0f%% (%ld steps: mean wait %s, compute %s)",
				100 * v->input_bound_fraction, 100 * T->wait_s / T->loop_s, m->steps,
				fs_fmt_time(a, 32, m->wait_s / (double)m->steps),
				fs_fmt_time(b, 32, m->compute_s / (double)m->steps));
	else if (m->have_steps)
		fs_evidence_add(v->ev, &v->nev, "input_wait_share", v->input_bound_fraction, "fraction", "steps",
				"the loop waited for data %.0f%% of its time (%ld steps: mean wait %s, compute %s)",
				100 * v->input_bound_fraction, m->steps,
				fs_fmt_time(a, 32, m->wait_s / (double)m->steps),
				fs_fmt_time(b, 32, m->compute_s / (double)m->steps));
	if (m->have_gpu && T && isfinite(T->gpu_busy))
		fs_evidence_add(v->ev, &v->nev, "accelerator_busy", T->gpu_busy, "fraction", "gpu",
				"accelerator busy %.0f%% of the loop's time (%s; %.0f%% over the whole run, %d GPU%s)",
				100 * T->gpu_busy, T->gpu_basis[0] ? T->gpu_basis : "all GPUs", 100 * m->gpu_busy,
				m->ngpus, m->ngpus == 1 ? "" : "s");
	else if (m->have_gpu)
		fs_evidence_add(v->ev, &v->nev, "accelerator_busy", m->gpu_busy, "fraction", "gpu",
				"accelerator busy %.0f%% of the time (%d GPU%s)", 100 * m->gpu_busy, m->ngpus,
				m->ngpus == 1 ? "" : "s");
	pick_primary(m, t, v, clarity);
	fs_judge_memory(m, t, &v->memory);
	fs_judge_threads(m, t, &v->oversub);
}
