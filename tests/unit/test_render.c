/* The renderers on hostile metrics: numbers that are unknown (NaN) where
 * the verdict's sentences print them, names holding escape sequences and
 * invalid UTF-8, an incomplete run. The text must never say "nan"/"inf" or
 * carry a raw control byte; the JSON must be valid UTF-8 without raw
 * controls; an incomplete run must be called so in both. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/judge/verdict.h"
#include "check.h"
#include "render/verdict.h"
#include "util/text.h"

/* A 60 s run, 1000 steps, 2 workers on 4 cores, waiting half the time. */
static struct fs_metrics hostile(void)
{
	struct fs_metrics m;
	memset(&m, 0, sizeof m);
	strcpy(m.mode, "run");
	m.duration_s = 100;
	m.interval_s = 0.1;
	m.ncpu = 4;
	m.have_steps = true;
	strcpy(m.loader, "tr\x1b[2Jain\xff");
	m.steps = 1000;
	m.epochs = 1;
	m.wait_s = 50;
	m.compute_s = 50;
	m.loop_s = 100;
	m.checkpoint_every_steps = NAN;
	m.num_workers = 2;
	m.batch_size = 32;
	strcpy(m.persistent_workers, "x\x1b]0;t\x07");
	strcpy(m.pin_memory, "\xc2\x9b" "1m");
	m.gpu_busy = m.gpu_busy_in_checkpoints = m.pcie_rx_max_bytes_per_s = NAN;
	m.have_job = true;
	m.loaders = (struct fs_states){.blocked = 0.02, .running = 0.9, .sleeping = 0.08, .cpu_cores = NAN,
				       .run_wait = NAN, .samples = 1000, .procs = 2};
	m.main = (struct fs_states){.blocked = 0, .running = 0.1, .sleeping = 0.9, .cpu_cores = NAN,
				    .run_wait = NAN, .samples = 500, .procs = 1};
	m.job_cpu_cores = NAN;
	m.loader_rchar_bytes = m.loader_read_bytes = m.job_read_bytes = NAN;
	m.cg_quota_cores = NAN; /* an infinity in the run file reads as NaN */
	m.cg_throttled_pct = 50;
	m.cg_mem_limit_bytes = m.cg_mem_usage_max_bytes = NAN;
	m.cpu_busy_pct = m.cpu_iowait_pct = NAN;
	m.psi_cpu = m.psi_io = m.psi_io_full = m.psi_mem = NAN;
	m.mem_available_min_bytes = m.cached_max_bytes = m.majflt_per_s = m.dentries_growth = NAN;
	strcpy(m.disk, "sd\x1b[31ma\x7f");
	m.disk_read_bytes_per_s = 1e6;
	m.disk_util_pct = m.disk_req_bytes = m.disk_await_ms = m.disk_iops = m.disk_queue_depth = NAN;
	m.disk_read_bytes = 1e8;
	m.disk_ceiling_bytes_per_s = m.disk_ceiling_iops = NAN;
	m.nic_rx_bytes_per_s = m.nic_speed_bytes_per_s = m.tcp_retrans_per_s = NAN;
	m.nfs_read_ops_per_s = m.nfs_rtt_ms = NAN;
	m.incomplete = true;
	m.recorded_until_s = 42.5;
	return m;
}

/* What a renderer wrote, as a string the caller frees. */
static char *render(const struct fs_metrics *m, const struct fs_verdict *v, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (json)
		fs_verdict_render_json(f, m, v);
	else
		fs_verdict_render_text(f, m, v);
	fclose(f);
	return buf;
}

/* A word "nan", "inf" or "infinity" (any case) in s. */
static bool says_nonfinite(const char *s)
{
	for (const char *p = s; *p;) {
		if (!isalpha((unsigned char)*p)) {
			p++;
			continue;
		}
		const char *w = p;
		while (isalpha((unsigned char)*p))
			p++;
		size_t n = (size_t)(p - w);
		if ((n == 3 && (!strncasecmp(w, "nan", 3) || !strncasecmp(w, "inf", 3))) ||
		    (n == 8 && !strncasecmp(w, "infinity", 8))) {
			fprintf(stderr, "  non-finite word at: %.40s\n", w);
			return true;
		}
	}
	return false;
}

/* Valid UTF-8 with no control character but newlines. */
static bool clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n > 0) {
		uint32_t cp;
		size_t len = fs_text_utf8_decode(p, n, &cp);
		if (len == 0 || (cp != '\n' && fs_text_is_control(cp))) {
			fprintf(stderr, "  bad byte 0x%02x at: %.40s\n", *p, (const char *)p);
			return false;
		}
		p += len;
		n -= len;
	}
	return true;
}

static void check_both(const struct fs_metrics *m, const char *want_verdict, const char *want_text)
{
	struct fs_verdict v;
	fs_diagnose(m, &fs_thresholds, &v);
	CHECK_STR(fs_verdict_name(v.primary), want_verdict);
	char *text = render(m, &v, false), *json = render(m, &v, true);
	CHECK(!says_nonfinite(text));
	CHECK(clean(text));
	CHECK(clean(json));
	CHECK(!says_nonfinite(json));
	if (want_text && !strstr(text, want_text)) {
		CHECK(strstr(text, want_text) != NULL);
		fprintf(stderr, "  no '%s' in:\n%s", want_text, text);
	}
	CHECK(strstr(text, "incomplete: the recording stopped at 42.5 s without an end record") != NULL);
	CHECK(strstr(json, "\"incomplete\":true,\"recorded_until_s\":42.5") != NULL);
	free(text);
	free(json);
}

int main(void)
{
	/* CPU-bound, throttled by a quota that is unknown, loaders' cores unknown */
	struct fs_metrics m = hostile();
	check_both(&m, "cpu_preprocess", "(quota unknown)");
	/* storage-bound: util, queue depth, request size unknown; a named disk */
	m = hostile();
	m.loaders.blocked = 0.8, m.loaders.running = 0.1, m.loaders.sleeping = 0.1;
	m.have_trace = true;
	m.trace_reads = 10, m.trace_read_bytes = 1e6, m.trace_files = 2, m.trace_seq_reads = NAN;
	m.loader_time_s = 10, m.loader_io_time_s = 5;
	check_both(&m, "storage_latency", "sd\\x1b[31ma\\x7f read 1 MB/s at unknown util");
	/* too few loaders, cores' use unknown */
	m = hostile();
	m.loaders.blocked = 0.01, m.loaders.running = 0.04, m.loaders.sleeping = 0.95;
	m.cg_throttled_pct = 0;
	check_both(&m, "loader_parallelism", "cores are unknown busy");
	/* one checkpoint: no cadence to speak of */
	m = hostile();
	m.loaders.blocked = 0.01, m.loaders.running = 0.04, m.loaders.sleeping = 0.95;
	m.cg_throttled_pct = 0;
	m.wait_s = 1, m.compute_s = 80, m.checkpoint_s = 30, m.checkpoints = 1, m.loop_s = 81;
	check_both(&m, "checkpoint_stall", "checkpointing: 1 checkpoint, 30 s each");
	m.incomplete = false;
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	char *text = render(&m, &v, false), *json = render(&m, &v, true);
	CHECK(strstr(text, "incomplete") == NULL);
	CHECK(strstr(json, "\"incomplete\":false") != NULL);
	free(text);
	free(json);
	return check_exit("test_render");
}
