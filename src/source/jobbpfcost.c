/* jobbpfcost - what the job source's BPF programs cost, as the kernel
 * counts it: their runs and run time, counted only while the kernel's
 * statistics are on (--bpf-stats turns them on for the run; else the
 * sysctl kernel.bpf_stats_enabled, set outside), what the counting itself
 * adds to each run (an empty program at the same switches, fs_js_floor,
 * loaded with --bpf-stats), and the events the kernel did not run them
 * for (always counted). */
#include "source/job_int.h"

#include <math.h>
#include <string.h>

#ifndef FS_HAVE_BPF

void job_bpf_cost(const struct job_bpf *b, struct job_bpf_cost *out)
{
	(void)b;
	memset(out, 0, sizeof *out);
}

const char *job_bpf_count_why(const struct job_bpf *b)
{
	(void)b;
	return NULL;
}

#endif

/* The programs' time in the kernel (meta job.bpf_prog, and job.bpf_cpu_s
 * where it was counted: the run's summary adds it to the recorder's own
 * CPU). Less what the counting adds to each run where an empty program at
 * the same switches measured that (--bpf-stats). */
static void cost_meta(struct fs_sink *sink, const struct job_bpf_cost *c, const char *count_why)
{
	if (!c->runs) {
		if (count_why)
			fs_sink_metaf(sink, "job.bpf_prog", "not counted: --bpf-stats: %s", count_why);
		else
			fs_sink_meta(sink, "job.bpf_prog", "not counted: feedscope run --bpf-stats counts it");
		return;
	}
	double ns = (double)c->run_ns, floor_run = c->floor_runs ? (double)c->floor_ns / (double)c->floor_runs : 0;
	double own = c->floor_runs ? fmax(0, ns - floor_run * (double)c->runs) : ns;
	if (c->floor_runs)
		fs_sink_metaf(sink, "job.bpf_prog", "%llu runs, %.1f ms in the kernel (%.0f ns a run); %.1f ms less "
			      "the counting's own %.0f ns a run (an empty program's at the same switches)",
			      (unsigned long long)c->runs, ns / 1e6, ns / (double)c->runs, own / 1e6, floor_run);
	else
		fs_sink_metaf(sink, "job.bpf_prog", "%llu runs, %.1f ms in the kernel (%.0f ns a run, the counting's "
			      "own clock reads in it: kernel.bpf_stats_enabled=1 set outside feedscope)",
			      (unsigned long long)c->runs, ns / 1e6, ns / (double)c->runs);
	fs_sink_metaf(sink, "job.bpf_cpu_s", "%.6f", own / 1e9);
}

void job_bpf_cost_meta(const struct job_bpf *b, struct fs_sink *sink)
{
	struct job_bpf_cost c;
	job_bpf_cost(b, &c);
	cost_meta(sink, &c, job_bpf_count_why(b));
	/* an event skipped is a change of state not seen: the thread's time
	 * goes on in the state before it until its next one */
	fs_sink_metaf(sink, "job.bpf_missed", "%llu", (unsigned long long)c.missed);
}

#ifdef FS_HAVE_BPF

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "source/jobbpf_int.h"

void job_bpf_count_open(struct job_bpf *b)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		snprintf(b->stats_why, sizeof b->stats_why, "the kernel's statistics (BPF_ENABLE_STATS): %s",
			 strerror(errno));
	else
		b->stats_fd = fd;
}

void job_bpf_count_close(struct job_bpf *b)
{
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	b->stats_fd = -1;
}

const char *job_bpf_count_why(const struct job_bpf *b)
{
	return b->stats_why[0] ? b->stats_why : NULL;
}

void job_bpf_cost(const struct job_bpf *b, struct job_bpf_cost *out)
{
	memset(out, 0, sizeof *out);
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, b->skel->obj) {
		int fd = bpf_program__fd(prog);
		struct bpf_prog_info info;
		uint32_t len = sizeof info;
		memset(&info, 0, sizeof info);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) != 0) /* not loaded */
			continue;
		if (prog == b->skel->progs.fs_js_floor) {
			out->floor_runs = info.run_cnt;
			out->floor_ns = info.run_time_ns;
			continue;
		}
		out->runs += info.run_cnt;
		out->run_ns += info.run_time_ns;
		out->missed += info.recursion_misses;
	}
}

#endif
