/* recommend.c - what to change, for each cause found: a function per
 * cause, each naming the resource its change relieves (docs/verdicts.md,
 * "Recommendations"). */
#include "analysis/advise/recommend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/advise/memory.h"
#include "analysis/advise/speedup.h"
#include "analysis/advise/stages.h"
#include "analysis/advise/whatif.h"
#include "util/fmt.h"

static struct fs_recommendation *rec(struct fs_verdict *v, const char *relieves, const char *knob,
				     const char *current, const char *suggested)
{
	if (v->nrec >= FS_MAX_RECS)
		return NULL;
	struct fs_recommendation *r = &v->rec[v->nrec++];
	snprintf(r->relieves, sizeof r->relieves, "%s", relieves);
	snprintf(r->knob, sizeof r->knob, "%s", knob);
	snprintf(r->current, sizeof r->current, "%s", current);
	snprintf(r->suggested, sizeof r->suggested, "%s", suggested);
	r->why[0] = '\0';
	r->speedup = NAN;
	r->change[0] = r->then[0] = '\0';
	return r;
}

#define WHY(r, ...)                                               \
	do {                                                      \
		if (r)                                            \
			snprintf((r)->why, sizeof (r)->why, __VA_ARGS__); \
	} while (0)

/* r's own what-if under change c (whatif.h); no-op when r is NULL. */
static void predict(const struct fs_metrics *m, const struct fs_verdict *v, struct fs_recommendation *r,
		    struct fs_change c)
{
	if (r)
		fs_whatif(m, v, &c, r);
}

static void workers_text(const struct fs_metrics *m, char *out, size_t cap)
{
	if (m->num_workers >= 0)
		snprintf(out, cap, "%d", m->num_workers);
	else
		snprintf(out, cap, "unknown");
}

static void loader_parallelism(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], sug[96], a[32];
	struct fs_recommendation *r;
	double step = m->have_steps ? m->loop_s / (double)m->steps : NAN;
	double compute = m->have_steps ? m->compute_s / (double)m->steps : NAN;
	double spare = m->ncpu - (isfinite(m->job_cpu_cores) ? m->job_cpu_cores : 0);
	(void)t;
	workers_text(m, cur, sizeof cur);
	int w = m->num_workers > 0 ? m->num_workers : 1;
	double need = isfinite(step) && compute > 0 ? ceil(w * step / compute) : 2.0 * w;
	snprintf(sug, sizeof sug, "%.0f", fmax(need, w + 1));
	r = rec(v, "loader concurrency", "num_workers", cur, sug);
	struct fs_change c = fs_change_input("");
	c.parallel = fmax(need, w + 1) / w;
	snprintf(c.what, sizeof c.what, "num_workers %.20s: %.3gx the batches in flight", sug, c.parallel);
	predict(m, v, r, c);
	WHY(r, "the loaders sleep %.0f%% of the time while the loop waits; cores are %s busy "
	       "(%.1f of %d cores spare) and the storage is idle: more workers load more batches at once",
	    100 * m->loaders.sleeping, fs_fmt_fixed(a, 32, m->cpu_busy_pct, 0, "%"), spare, m->ncpu);
}

static void epoch_start(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32];
	struct fs_recommendation *r;
	(void)t;
	double each = m->epoch_starts ? (m->epoch_start_excess_s + m->epoch_end_s) / (double)m->epoch_starts : NAN;
	if (!strcmp(m->persistent_workers, "true")) {
		/* The workers already live across epochs: what each epoch
		 * start still costs is its first batches, loaded with the
		 * queue empty. No loader knob removes that. */
		r = rec(v, "the first batches of each epoch", "epochs", "persistent_workers true",
			"fewer, longer epochs, or an iterator of the next epoch made before this one ends");
		predict(m, v, r, fs_change_bucket("no epoch start beyond a step's wait", FS_BUCKET_EPOCH, 0, 0));
		WHY(r, "each epoch start still cost %s more than a step's wait with persistent workers: the "
		       "first batches of an epoch are loaded with the prefetch queue empty",
		    fs_fmt_time(a, 32, each));
		return;
	}
	snprintf(cur, sizeof cur, "%s", m->persistent_workers[0] ? m->persistent_workers : "unknown");
	r = rec(v, "worker start-up at each epoch", "persistent_workers", cur, "true");
	predict(m, v, r, fs_change_bucket("workers started once: no epoch start beyond a step's wait", FS_BUCKET_EPOCH, 0, 0));
	WHY(r, "each epoch start cost %s more than a step's wait (workers started again, datasets "
	       "re-opened); persistent workers start once",
	    fs_fmt_time(a, 32, each));
}

static void cpu_preprocess(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], sug[96];
	struct fs_recommendation *r;
	double spare = m->ncpu - (isfinite(m->job_cpu_cores) ? m->job_cpu_cores : 0);
	if (m->cg_throttled_pct > 0 && isfinite(m->cg_quota_cores)) {
		snprintf(cur, sizeof cur, "%.2g cores", m->cg_quota_cores);
		snprintf(sug, sizeof sug, "%d cores", m->ncpu);
		r = rec(v, "CPU (the cgroup quota)", "cgroup CPU quota", cur, sug);
		struct fs_change c = fs_change_input("the job's CPU quota at the machine's cores");
		c.parallel = m->ncpu / fmax(m->cg_quota_cores, 1e-3);
		c.cores = m->ncpu;
		predict(m, v, r, c);
		WHY(r, "the job was throttled %.0f%% of the time by its CPU quota", m->cg_throttled_pct);
	}
	workers_text(m, cur, sizeof cur);
	/* More workers only where there are cores to run them: not at the
	 * machine's saturation, not against the job's own CPU quota. */
	if (m->num_workers >= 0 && m->num_workers < m->ncpu && m->cpu_busy_pct < t->cpu_saturated_pct &&
	    !(m->cg_throttled_pct >= t->cgroup_throttled_pct)) {
		snprintf(sug, sizeof sug, "%d", m->ncpu);
		r = rec(v, "CPU (spare cores)", "num_workers", cur, sug);
		struct fs_change c = fs_change_input("");
		c.parallel = (double)m->ncpu / (m->num_workers > 0 ? m->num_workers : 1);
		snprintf(c.what, sizeof c.what, "num_workers %d: %.3gx the loaders at work", m->ncpu, c.parallel);
		predict(m, v, r, c);
		WHY(r, "decoding is CPU-bound and %.1f cores are spare", spare);
	}
	if (fs_advise_page_copies(m, v)) /* the CPU is the kernel copying pages (advise/memory.c) */
		return;
	struct fs_stage_fix fx; /* the stage that holds the time, where the hook timed them */
	if (fs_stage_fix(m, t, &fx)) {
		r = rec(v, fx.relieves, fx.knob, fx.current, fx.suggested);
		predict(m, v, r, fx.change);
		WHY(r, "%s", fx.why);
		return;
	}
	r = rec(v, "CPU (work per sample)", "transforms", "CPU decode/augment", "cheaper transforms, pre-decoded data, or decode on the accelerator (e.g. DALI)");
	struct fs_change half = fs_change_input("transforms at half the CPU per sample");
	half.cpu = 0.5;
	predict(m, v, r, half);
	if (isfinite(m->loaders.cpu_cores))
		snprintf(cur, sizeof cur, "use %.2g cores of %d", m->loaders.cpu_cores, m->ncpu);
	else
		snprintf(cur, sizeof cur, "their CPU use is unknown");
	WHY(r, "the loaders run on a CPU %.0f%% of the time and %s", 100 * m->loaders.running, cur);
}

static void storage_bandwidth(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32], b[32];
	struct fs_recommendation *r;
	(void)t;
	snprintf(cur, sizeof cur, "%s at %s", m->disk[0] ? m->disk : "storage", fs_fmt_rate(a, 32, m->disk_read_bytes_per_s));
	r = rec(v, "storage bandwidth", "storage", cur, "faster storage, or cache the dataset locally (RAM, local NVMe)");
	struct fs_change c = fs_change_input("the reads at twice the bandwidth");
	c.storage = 0.5;
	predict(m, v, r, c);
	if (m->sat.have && isfinite(m->sat.ceiling[FS_LIMIT_BYTES]))
		WHY(r, "reads at %s of a %s ceiling (%.90s) during %.0f%% of the wait: throughput is the limit, "
		       "not latency; compressed or smaller samples also help", fs_fmt_fixed(b, 32, 100 * m->sat.level[FS_LIMIT_BYTES], 0, "%"),
		    fs_fmt_rate(a, 32, m->sat.ceiling[FS_LIMIT_BYTES]), m->sat.source[FS_LIMIT_BYTES],
		    100 * m->sat.share[FS_LIMIT_BYTES]);
	else
		WHY(r, "reads of %s each at %s: throughput is the limit, not latency; compressed or smaller "
		       "samples also help", fs_fmt_bytes(b, 32, m->disk_req_bytes), fs_fmt_rate(a, 32, m->disk_read_bytes_per_s));
}

static void storage_latency(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], sug[96], a[32], b[32];
	struct fs_recommendation *r;
	snprintf(cur, sizeof cur, "%s reads, queue depth %s", fs_fmt_bytes(a, 32, m->disk_req_bytes),
		 fs_fmt_sig(b, 32, m->disk_queue_depth, 2, ""));
	r = rec(v, "storage latency (reads per sample)", "access pattern", cur, "larger contiguous reads (shards, record files)");
	struct fs_change fewer = fs_change_input("the reads' waiting halved (half as many, larger reads)");
	fewer.storage = 0.5;
	predict(m, v, r, fewer);
	WHY(r, "small reads at %s each (await %s) bound the loaders; the device is not full in bytes",
	    fs_fmt_bytes(a, 32, m->disk_req_bytes), fs_fmt_time(b, 32, m->disk_await_ms / 1e3));
	workers_text(m, cur, sizeof cur);
	/* More reads in flight only help a device with room for them: not
	 * one at its probed IOPS. (%util is no measure of that: a device
	 * serving one read at a time all the time reads 100%.) */
	bool iops_full = (m->disk_ceiling_iops > 0 && m->disk_iops >= t->disk_busy_pct / 100 * m->disk_ceiling_iops) ||
			 (m->sat.have && m->sat.named == FS_LIMIT_IOPS);
	if (m->sat.have && m->sat.named == FS_LIMIT_IOPS && r)
		snprintf(r->relieves, sizeof r->relieves, "storage IOPS (reads per sample)");
	if (m->num_workers >= 0 && !iops_full) {
		snprintf(sug, sizeof sug, "%d", m->num_workers > 0 ? 2 * m->num_workers : 2);
		r = rec(v, "storage latency (reads in flight)", "num_workers", cur, sug);
		struct fs_change c = fs_change_input("twice the reads in flight, the device with room for them");
		c.parallel = 2;
		predict(m, v, r, c);
		if (m->disk_ceiling_iops > 0)
			WHY(r, "more reads in flight (queue depth now %s) hide latency: the device did %s IO/s "
			       "of its probed %s", fs_fmt_sig(a, 32, m->disk_queue_depth, 2, ""),
			    fs_fmt_sig(b, 32, m->disk_iops, 3, ""), fs_fmt_sig((char[32]){0}, 32, m->disk_ceiling_iops, 3, ""));
		else
			WHY(r, "more reads in flight (queue depth now %s) hide latency, if the device has room "
			       "for them (its IOPS ceiling is unknown: feedscope probe measures it)",
			    fs_fmt_sig(a, 32, m->disk_queue_depth, 2, ""));
	}
}

static void metadata(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32], b[32];
	struct fs_recommendation *r;
	(void)t;
	snprintf(cur, sizeof cur, "%s files touched, ~%s per sample", fs_fmt_fixed(b, 32, m->dentries_growth, 0, ""),
		 fs_fmt_bytes(a, 32, m->have_steps ? m->loader_rchar_bytes / ((double)m->steps * (m->batch_size > 0 ? m->batch_size : 1)) : m->disk_req_bytes));
	r = rec(v, "per-file costs (metadata)", "dataset layout", cur, "pack samples into shards (WebDataset tar, TFRecord, indexed binary)");
	struct fs_change c = fs_change_input("no per-file lookups, opens and closes (samples in shards)");
	c.metadata = 0;
	predict(m, v, r, c);
	WHY(r, "each sample costs a file lookup, open and close: per-file costs dominate the bytes read");
}

static void memory_pressure(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32], b[32];
	struct fs_recommendation *r;
	(void)t;
	snprintf(cur, sizeof cur, "%s", isfinite(m->cg_mem_limit_bytes) ? fs_fmt_bytes(a, 32, m->cg_mem_limit_bytes)
								       : fs_fmt_bytes(a, 32, m->cached_max_bytes));
	r = rec(v, "memory (page cache)", isfinite(m->cg_mem_limit_bytes) ? "memory limit" : "page cache", cur,
		"room for the dataset in the page cache, or a smaller (compressed/decoded-once) dataset");
	struct fs_change c = fs_change_input("the dataset read from the page cache, not the storage");
	c.storage = 0;
	predict(m, v, r, c);
	WHY(r, "page cache at most %s while %s were read from storage for %s read by the job: "
	       "the data is read again every epoch",
	    fs_fmt_bytes(a, 32, m->cached_max_bytes), fs_fmt_bytes(b, 32, m->loader_read_bytes),
	    fs_fmt_bytes(cur, 32, m->loader_rchar_bytes));
}

static void checkpoint_stall(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32], b[32];
	struct fs_recommendation *r;
	(void)t;
	fs_fmt_time(a, 32, m->checkpoints ? m->checkpoint_s / (double)m->checkpoints : NAN);
	if (m->checkpoints == 0) /* found by the tracer: writes and syncs outside torch.save */
		snprintf(cur, sizeof cur, "the training thread's file writes and syncs, %s in all",
			 fs_fmt_time(a, 32, m->checkpoint_s));
	else if (isfinite(m->checkpoint_every_steps)) /* NaN under 2 checkpoints */
		snprintf(cur, sizeof cur, "every %.0f steps, %s each", m->checkpoint_every_steps, a);
	else
		snprintf(cur, sizeof cur, "%ld checkpoint%s, %s each", m->checkpoints,
			 m->checkpoints == 1 ? "" : "s", a);
	{
		/* Written by other threads already (a background writer the
		 * loop waits for): making it asynchronous is done; the
		 * storage's write rate, or how often, is what is left. */
		const struct fs_loop_proc *T = fs_metrics_trainer(m);
		if (T && fs_speedup_background_writer(m)) {
			snprintf(cur, sizeof cur, "written by a background thread, %s of writing in all",
				 fs_fmt_time(a, 32, T->helper_write_s));
			r = rec(v, "the checkpoint storage's write rate", "checkpointing", cur,
				"faster storage for the checkpoints, or checkpoint less often");
			predict(m, v, r, fs_change_bucket("the checkpoints written twice as fast", FS_BUCKET_HOST_IO, 0.5, 0));
			WHY(r, "the loop waits for the background writer %s of its time while the accelerator "
			       "idles: the writes do not keep up with the steps",
			    fs_fmt_fixed(b, 32, fs_verdict_trainer(v) ? 100 * fs_verdict_trainer(v)->share[FS_BUCKET_HOST_IO] : NAN,
					 0, "%"));
			return;
		}
	}
	r = rec(v, "the loop's thread (host I/O)", "checkpointing", cur, "write asynchronously (a background thread/process), or to faster storage");
	{
		const struct fs_accounting *A = fs_verdict_trainer(v);
		double host = A && A->valid ? A->share[FS_BUCKET_HOST_IO] : 0;
		predict(m, v, r, fs_change_bucket("the checkpoints written in the background", FS_BUCKET_HOST_IO, 0, host));
	}
	WHY(r, "checkpoints stall the loop %s of its time while the accelerator idles",
	    fs_fmt_fixed(b, 32, 100 * (m->loop_s > 0 ? m->checkpoint_s / m->loop_s : m->checkpoint_s / m->duration_s),
			 0, "%"));
}

static void network(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	char cur[128], a[32], b[32];
	struct fs_recommendation *r;
	(void)t;
	/* The loaders' own sockets where the tracer saw them (the busiest
	 * NIC of this namespace may not be on their path). */
	struct fs_loader_shares sh;
	bool timed = fs_loader_shares(m, &sh);
	double rate = m->duration_s > 0 ? m->loader_sock_read_bytes / m->duration_s : NAN;
	if (timed && m->loader_sock_read_bytes > 0)
		snprintf(cur, sizeof cur, "data over sockets at %s", fs_fmt_rate(a, 32, rate));
	else
		snprintf(cur, sizeof cur, "%s", m->nic[0] ? m->nic : "network");
	r = rec(v, "the network path to the data", "remote storage", cur, "cache the dataset on local disk, or a faster link");
	struct fs_change c = fs_change_input("the network path at twice the rate");
	c.network = 0.5;
	predict(m, v, r, c);
	if (m->nfs_read_ops_per_s > 0)
		WHY(r, "the loaders wait on the network (NFS round trip %s)", fs_fmt_fixed(a, 32, m->nfs_rtt_ms, 1, " ms"));
	else
		WHY(r, "the loaders spend %s of their time on sockets (reading, or waiting for data), %s "
		       "received in all; more workers would share the same path",
		    fs_fmt_fixed(a, 32, timed ? 100 * sh.network : NAN, 0, "%"),
		    fs_fmt_bytes(b, 32, m->loader_sock_read_bytes));
}

/* The training process's own work inside next(): never more workers (they
 * sleep already); the pieces that run there. */
/* Which piece of next() the hook's parts say is the largest: 0 the
 * sampler, 1 the unpickling, 2 the pin thread; -1 not timed. */
static int main_piece(const struct fs_metrics *m)
{
	if (m->next_steps <= 0)
		return -1;
	double part[3] = {m->next_index_s, m->next_get_cpu_s, m->next_pin_cpu_s};
	int best = 0;
	for (int i = 1; i < 3; i++)
		if (part[i] > part[best])
			best = i;
	return part[best] > 0 ? best : -1;
}

/* The training process's own work inside next(): never more workers (they
 * sleep already); the piece that runs there, where the hook timed it. */
static void main_process(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	static const char *const knob[3] = {"sampler", "batch contents (what the workers return)", "pin_memory"};
	static const char *const sug[3] = {
		"a cheaper sampler: indices computed once, up front, or drawn in the workers",
		"tensors or numpy arrays, not Python objects; collate in the workers",
		"false, or pin fewer, larger tensors",
	};
	char cur[128], w[32];
	struct fs_recommendation *r;
	(void)t;
	int piece = main_piece(m);
	double own = isfinite(m->main_wait_cores) ? m->main_wait_cores : NAN;
	if (piece >= 0 && m->next_wait_s > 0)
		snprintf(cur, sizeof cur, "%.0f%% of the wait inside it (hook)",
			 100 * (piece == 2 ? m->next_pin_cpu_s / m->next_loop_s
					   : (piece == 0 ? m->next_index_s : m->next_get_cpu_s) / m->next_wait_s));
	else
		snprintf(cur, sizeof cur, "%.2f cores in the training process while it waits", own);
	r = rec(v, "the training process's CPU inside next()",
		piece >= 0 ? knob[piece] : "sampler / collate_fn / batch contents", cur,
		piece >= 0 ? sug[piece] : "a cheaper sampler; collate in the workers; tensors, not Python objects, in a batch");
	struct fs_change half = fs_change_input("the training process's work inside next() halved");
	half.main = 0.5;
	predict(m, v, r, half);
	workers_text(m, w, sizeof w);
	WHY(r, "the training process worked while it waited, its workers (%.12s) asleep: its own work in next() "
	       "(sampler, unpickling, collate or pin there); more workers would sleep more", w);
}

static void host_to_device(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	struct fs_recommendation *r;
	(void)t;
	r = rec(v, "host-to-device copies", "pin_memory", m->pin_memory[0] ? m->pin_memory : "unknown", "true");
	if (r) /* no model of the copies' time */
		r->speedup = NAN;
	WHY(r, "host-to-device copies are near the link's capacity; pinned memory copies faster");
}

/* The advice for each cause (none for compute_bound and undetermined). */
static void (*const advice[FS_VERDICT__N])(const struct fs_metrics *m, const struct fs_thresholds *t,
					   struct fs_verdict *v) = {
	[FS_VERDICT_LOADER_PARALLELISM] = loader_parallelism,
	[FS_VERDICT_EPOCH_START] = epoch_start,
	[FS_VERDICT_CPU_PREPROCESS] = cpu_preprocess,
	[FS_VERDICT_STORAGE_BANDWIDTH] = storage_bandwidth,
	[FS_VERDICT_STORAGE_LATENCY] = storage_latency,
	[FS_VERDICT_METADATA] = metadata,
	[FS_VERDICT_MEMORY_PRESSURE] = memory_pressure,
	[FS_VERDICT_CHECKPOINT_STALL] = checkpoint_stall,
	[FS_VERDICT_NETWORK] = network,
	[FS_VERDICT_HOST_TO_DEVICE] = host_to_device,
	[FS_VERDICT_MAIN_PROCESS] = main_process,
};

static void for_finding(const struct fs_metrics *m, const struct fs_thresholds *t, enum fs_verdict_id id,
			struct fs_verdict *v)
{
	if (id < FS_VERDICT__N && advice[id])
		advice[id](m, t, v);
}

/* The verdict's own prediction where the model had none (a fix that
 * removes the cause's bucket would gain nothing, or the accounting cannot
 * say): the best of its cause's recommendations, each a change of its own.
 * "No fix to offer" stays only where none is made. */
static void best_of_recs(struct fs_verdict *v, int first, int end)
{
	int best = -1;
	for (int i = first; i < end; i++)
		if (isfinite(v->rec[i].speedup) && v->rec[i].speedup > 1 &&
		    (best < 0 || v->rec[i].speedup > v->rec[best].speedup))
			best = i;
	if (best < 0 || isfinite(v->predicted_speedup))
		return;
	v->predicted_speedup = v->rec[best].speedup;
	snprintf(v->speedup_cap, sizeof v->speedup_cap, "with %.60s (the best change below), then %.50s",
		 v->rec[best].change, v->rec[best].then);
}

void fs_recommend(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	fs_speedup(m, v);
	/* A prediction under one is no fix: the model has none to offer (the
	 * loop is already as short as what is left allows). */
	if (isfinite(v->predicted_speedup) && v->predicted_speedup < 1) {
		char why[sizeof v->speedup_cap];
		snprintf(why, sizeof why, "%s", v->speedup_cap);
		snprintf(v->speedup_cap, sizeof v->speedup_cap, "no fix to offer: the model predicts no gain (%.2fx%s%.100s)",
			 v->predicted_speedup, why[0] ? ", " : "", why);
		v->predicted_speedup = NAN;
	}
	if (v->primary != FS_VERDICT_COMPUTE_BOUND)
		for_finding(m, t, v->primary, v);
	int primary_recs = v->nrec;
	for (int i = 0; i < v->nfind; i++)
		if (v->find[i].id != v->primary)
			for_finding(m, t, v->find[i].id, v);
	if (v->primary != FS_VERDICT_COMPUTE_BOUND && v->primary != FS_VERDICT_UNDETERMINED)
		best_of_recs(v, 0, primary_recs);
}
