/* storage.c - the storage family of causes: which of storage_bandwidth,
 * storage_latency, metadata or memory_pressure the loaders' wait on
 * storage is, from the saturation against measured ceilings, the loaders'
 * own time, the tracer's counts and memory (docs/verdicts.md, "Which limit
 * of the storage"), with the evidence each carries. Pure. */
#include "analysis/judge/storage.h"

#include <math.h>
#include <stdio.h>

#include "analysis/judge/attribution.h"
#include "analysis/load/saturation.h"
#include "util/fmt.h"

#define EV(f, ...) fs_evidence_add((f)->ev, &(f)->nev, __VA_ARGS__)

/* The tracer's word on the loaders: time inside I/O calls, read sizes. */
static void io_call_evidence(const struct fs_metrics *m, struct fs_finding *f)
{
	char a[32], b[32];
	if (!m->have_trace)
		return;
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	if (m->loader_time_s > 0)
		EV(f, "loader_io_call_share", m->loader_io_time_s / m->loader_time_s, "fraction", "io_intervals",
		   "%s spent %.0f%% of their time inside I/O calls", who, 100 * m->loader_io_time_s / m->loader_time_s);
	if (m->trace_reads > 0)
		EV(f, "read_call_bytes", m->trace_read_bytes / m->trace_reads, "bytes", "files",
		   "%.0f reads of %s on average, %s sequential, over %.0f files", m->trace_reads,
		   fs_fmt_bytes(a, 32, m->trace_read_bytes / m->trace_reads),
		   fs_fmt_fixed(b, 32, 100 * m->trace_seq_reads / m->trace_reads, 0, "%"), m->trace_files);
}

/* The evidence every storage-family finding carries. */
static void storage_evidence(const struct fs_metrics *m, struct fs_finding *f)
{
	char a[32], b[32], c[32];
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	EV(f, "loader_blocked_io_share", m->loaders.blocked, "fraction", "proc",
	   "%s blocked in I/O (D state) %.0f%% of the time", who, 100 * m->loaders.blocked);
	if (m->disk[0]) {
		char src[80];
		snprintf(src, sizeof src, "disk:%s", m->disk);
		EV(f, "disk_read_bytes_per_s", m->disk_read_bytes_per_s, "B/s", src, "%s read %s at %s util",
		   m->disk, fs_fmt_rate(a, 32, m->disk_read_bytes_per_s), fs_fmt_fixed(c, 32, m->disk_util_pct, 0, "%"));
		if (m->disk_ceiling_bytes_per_s > 0)
			EV(f, "disk_share_of_probed_ceiling", m->disk_read_bytes_per_s / m->disk_ceiling_bytes_per_s,
			   "fraction", src, "%s = %.0f%% of this device's probed sequential read ceiling (%s)",
			   fs_fmt_rate(a, 32, m->disk_read_bytes_per_s),
			   100 * m->disk_read_bytes_per_s / m->disk_ceiling_bytes_per_s,
			   fs_fmt_rate(b, 32, m->disk_ceiling_bytes_per_s));
		EV(f, "disk_read_request_bytes", m->disk_req_bytes, "bytes", src,
		   "mean read request %s, await %s, queue depth %s", fs_fmt_bytes(a, 32, m->disk_req_bytes),
		   fs_fmt_time(b, 32, m->disk_await_ms / 1e3), fs_fmt_sig(c, 32, m->disk_queue_depth, 2, ""));
	}
	EV(f, "psi_io_some_pct", m->psi_io, "%", "psi", "I/O pressure: tasks stalled on I/O %.0f%% of the time",
	   m->psi_io);
	io_call_evidence(m, f);
}

static bool memory_constrained(const struct fs_metrics *m, const struct fs_thresholds *t)
{
	return (m->cg_mem_limit_bytes > 0 && m->cg_mem_usage_max_bytes >= t->mem_limit_full * m->cg_mem_limit_bytes) ||
	       (m->mem_total_bytes > 0 && m->mem_available_min_bytes < t->mem_available_low * m->mem_total_bytes) ||
	       m->psi_mem >= t->psi_mem_stalled_pct;
}

/* The share of the loaders' bytes that came from storage (NaN if unknown). */
static double storage_reread(const struct fs_metrics *m)
{
	return m->loader_rchar_bytes > 0 ? m->loader_read_bytes / m->loader_rchar_bytes : NAN;
}

/* Memory is short and the loaders keep re-reading from storage: the page
 * cache cannot hold the data (memory_pressure). */
bool fs_storage_rereading(const struct fs_metrics *m, const struct fs_thresholds *t)
{
	return memory_constrained(m, t) && storage_reread(m) >= t->reread_ratio;
}

/* Bytes the loaders read per sample, and new dentries per sample; NaN if the
 * number of samples is unknown. */
static double samples_loaded(const struct fs_metrics *m)
{
	if (!m->have_steps)
		return NAN;
	return (double)m->steps * (m->batch_size > 0 ? m->batch_size : 1);
}

/* The tracer's opens: returns whether a file was opened per sample
 * (without steps: per read) with less than small_sample_bytes read from
 * each; adds their evidence then, or whenever it counted any if always. */
static bool opens_evidence(const struct fs_metrics *m, const struct fs_thresholds *t, bool always,
			   struct fs_finding *tmp)
{
	char a[32];
	if (!m->have_trace || !(m->trace_opens > 0))
		return false;
	double samples = samples_loaded(m);
	double opens = samples > 0 ? m->trace_opens / samples : m->trace_opens / fmax(m->trace_reads, 1);
	double per_open = m->trace_read_bytes / m->trace_opens;
	bool holds = opens >= t->opens_per_sample && per_open < t->small_sample_bytes;
	if (!holds && !always)
		return false;
	EV(tmp, "opens_per_sample", opens, "count", "files", "%.0f files opened (%.0f distinct), %.2g per %s, %s read from each",
	   m->trace_opens, m->trace_files, opens, samples > 0 ? "sample" : "read", fs_fmt_bytes(a, 32, per_open));
	EV(tmp, "stats_per_open", m->trace_stats / m->trace_opens, "count", "files", "%.2g stat calls per open",
	   m->trace_stats / m->trace_opens);
	return holds;
}

/* The loaders' time in D inside metadata system calls, and the machine's
 * new dentries beside it (any program's lookups: corroboration only). */
static void meta_calls_evidence(const struct fs_metrics *m, struct fs_finding *tmp)
{
	const char *who = m->loaders_are_main ? "the training process" : "DataLoader workers";
	EV(tmp, "loader_meta_calls_share", m->loaders.meta_calls, "fraction", "proc",
	   "%s' time blocked in I/O: %.0f%% inside open/stat/getdents/close calls (their own threads' system calls)",
	   who, 100 * m->loaders.meta_calls);
	double samples = samples_loaded(m);
	if (m->dentries_growth > 0)
		EV(tmp, "dentries_growth", m->dentries_growth, "count", "mem",
		   "the machine looked up %.0f new file names meanwhile%s (all programs: corroboration only)",
		   m->dentries_growth, samples > 0 && m->dentries_growth >= samples / 2 ? ", about one per sample" : "");
}

/* The verdict id of a limit of the storage. */
static enum fs_verdict_id limit_verdict(enum fs_limit l)
{
	switch (l) {
	case FS_LIMIT_BYTES:
		return FS_VERDICT_STORAGE_BANDWIDTH;
	case FS_LIMIT_METADATA:
		return FS_VERDICT_METADATA;
	default: /* IOPS, latency, and no ceiling reached with the device's ceilings known */
		return FS_VERDICT_STORAGE_LATENCY;
	}
}

static const char *limit_words(enum fs_limit l)
{
	switch (l) {
	case FS_LIMIT_BYTES:
		return "at its byte ceiling";
	case FS_LIMIT_IOPS:
		return "at its IOPS ceiling";
	case FS_LIMIT_LATENCY:
		return "serving one read at a time at its QD 1 latency";
	case FS_LIMIT_METADATA:
		return "in metadata calls for most of the loaders' storage time";
	default:
		return "below every known ceiling";
	}
}

/* The storage's limit from the saturation shares (m->sat): the limit
 * during the most wait. "none" (below every known ceiling) names latency
 * only when the device's byte and IOPS ceilings are both known (else an
 * unknown ceiling may be the limit: not decided here). */
static bool saturation_kind(const struct fs_metrics *m, const struct fs_thresholds *t, bool timed,
			    struct fs_finding *tmp, enum fs_verdict_id *id)
{
	const struct fs_saturation *s = &m->sat;
	(void)t;
	if (!s->have)
		return false;
	bool device_known = isfinite(s->ceiling[FS_LIMIT_BYTES]) && isfinite(s->ceiling[FS_LIMIT_IOPS]);
	if (s->named == FS_LIMIT_NONE && !device_known && !isfinite(s->ceiling[FS_LIMIT_LATENCY]))
		return false;
	if (s->named == FS_LIMIT_METADATA && !timed && s->meta_src != FS_META_BLOCKED)
		return false;
	*id = limit_verdict(s->named);
	EV(tmp, "limit_share", s->share[s->named], "fraction", "saturation",
	   "the storage was %s during %.0f%% of the %s", limit_words(s->named), 100 * s->share[s->named],
	   s->steps ? "loop's input wait" : "loaders' time blocked in I/O");
	if (s->runner < FS_LIMIT__N)
		EV(tmp, "limit_runner_up_share", s->share[s->runner], "fraction", "saturation",
		   "runner-up: %s, %s during %.0f%%", fs_limit_name(s->runner), limit_words(s->runner),
		   100 * s->share[s->runner]);
	return true;
}

static enum fs_verdict_id storage_kind(const struct fs_metrics *m, const struct fs_thresholds *t,
				       struct fs_finding *tmp)
{
	char a[32], b[32];
	double reread = storage_reread(m);
	if (fs_storage_rereading(m, t)) {
		if (m->cg_mem_limit_bytes > 0)
			EV(tmp, "cgroup_memory_limit_bytes", m->cg_mem_limit_bytes, "bytes", "cgroup",
			   "memory limit %s, %s used at most", fs_fmt_bytes(a, 32, m->cg_mem_limit_bytes),
			   fs_fmt_bytes(b, 32, m->cg_mem_usage_max_bytes));
		EV(tmp, "storage_reread_ratio", reread, "fraction", "proc",
		   "%.0f%% of the bytes read came from storage: the page cache does not keep the data", 100 * reread);
		EV(tmp, "psi_memory_some_pct", m->psi_mem, "%", "psi", "memory pressure %.0f%%", m->psi_mem);
		return FS_VERDICT_MEMORY_PRESSURE;
	}
	struct fs_loader_shares sh;
	bool timed = fs_loader_shares(m, &sh);
	/* Without the loaders' call times, the tracer's count: a file opened
	 * per sample (or per read) with little read from each. */
	if (!timed && opens_evidence(m, t, false, tmp))
		return FS_VERDICT_METADATA;
	/* Measured ceilings decide where they are known (saturation.c). */
	enum fs_verdict_id by_ceiling;
	if (saturation_kind(m, t, timed, tmp, &by_ceiling)) {
		if (by_ceiling == FS_VERDICT_METADATA && !timed)
			meta_calls_evidence(m, tmp);
		if (by_ceiling == FS_VERDICT_METADATA)
			opens_evidence(m, t, true, tmp); /* the count corroborates, or not */
		return by_ceiling;
	}
	if (timed) {
		/* The loaders' own time decides: metadata calls against data reads
		 * (and page faults). Machine-wide dentries do not. */
		if (sh.metadata > sh.storage) {
			EV(tmp, "loader_metadata_share", sh.metadata, "fraction", "io_classes",
			   "%s spent %.0f%% of their time in open/stat/close/readdir calls, %.0f%% reading data",
			   m->loaders_are_main ? "the training process" : "DataLoader workers", 100 * sh.metadata,
			   100 * sh.storage);
			opens_evidence(m, t, true, tmp); /* the count corroborates, or not */
			return FS_VERDICT_METADATA;
		}
		return m->disk_req_bytes >= t->large_request_bytes ? FS_VERDICT_STORAGE_BANDWIDTH
								   : FS_VERDICT_STORAGE_LATENCY;
	}
	/* Without the tracer's call times: the loaders' own time in D inside
	 * metadata system calls (proc.blocked_meta). The machine's count of new
	 * dentries is any program's lookups: it only backs this up. */
	if (m->have_meta_calls && m->loaders.meta_calls >= t->metadata_time_major) {
		meta_calls_evidence(m, tmp);
		return FS_VERDICT_METADATA;
	}
	return m->disk_req_bytes >= t->large_request_bytes ? FS_VERDICT_STORAGE_BANDWIDTH
							   : FS_VERDICT_STORAGE_LATENCY;
}

/* The storage family: which kind (storage_kind), with its evidence. */
enum fs_verdict_id fs_storage_family(const struct fs_metrics *m, const struct fs_thresholds *t,
					 struct fs_finding *f)
{
	struct fs_finding tmp = {0};
	enum fs_verdict_id id = storage_kind(m, t, &tmp);
	for (int i = 0; i < tmp.nev && f->nev < FS_MAX_EVIDENCE; i++)
		f->ev[f->nev++] = tmp.ev[i];
	storage_evidence(m, f);
	return id;
}
