/* run_fio.c - `feedscope bench --output-format fio`: the run in fio's JSON
 * shape (render/fio_json.h). A job per run or --find-max-accelerators
 * trial, whose reads are the whole run's (every epoch); a job
 * "checkpoint" when one was written (writes: write+fsync, reads: read back;
 * request latencies are not kept for it, so its N is 0). The CPU, context
 * switches, faults and disk_util are the whole invocation's. */
#include "bench/emu/run_report.h"

#include <stdio.h>
#include <string.h>

#include "render/fio_json.h"

#define NOPTS 10

struct job_text {
	char accel[16], iodepth[16], numjobs[16], bs[32], direct[4], name[96];
	struct fs_fio_opt opt[NOPTS];
};

static int job_opts(struct job_text *t, const struct fs_bench_report *b, const struct fs_run_result *r)
{
	const struct fs_workload *w = b->w;
	snprintf(t->accel, sizeof t->accel, "%u", r ? r->accelerators : 0);
	snprintf(t->iodepth, sizeof t->iodepth, "%u", b->qd);
	snprintf(t->numjobs, sizeof t->numjobs, "%u", r ? w->read_threads * r->accelerators : 1);
	snprintf(t->bs, sizeof t->bs, "%llu", (unsigned long long)w->record_length_bytes);
	snprintf(t->direct, sizeof t->direct, "%d", b->direct ? 1 : 0);
	int n = 0;
	t->opt[n++] = (struct fs_fio_opt){"name", t->name};
	t->opt[n++] = (struct fs_fio_opt){"directory", b->dir};
	t->opt[n++] = (struct fs_fio_opt){"ioengine", b->engine};
	t->opt[n++] = (struct fs_fio_opt){"direct", t->direct};
	t->opt[n++] = (struct fs_fio_opt){"iodepth", t->iodepth};
	if (r) {
		bool shuffled = w->sample_shuffle != FS_SHUFFLE_OFF || w->file_shuffle != FS_SHUFFLE_OFF;
		t->opt[n++] = (struct fs_fio_opt){"rw", shuffled ? "randread" : "read"};
		t->opt[n++] = (struct fs_fio_opt){"bs", t->bs};
		t->opt[n++] = (struct fs_fio_opt){"numjobs", t->numjobs};
		t->opt[n++] = (struct fs_fio_opt){"workload", w->name};
		t->opt[n++] = (struct fs_fio_opt){"accelerators", t->accel};
	} else {
		t->opt[n++] = (struct fs_fio_opt){"rw", "write"};
	}
	return n;
}

static void cpu(struct fs_fio_job *j, const struct fs_bench_report *b)
{
	if (!b->usage)
		return;
	fs_usage_cpu_pct(b->usage, &j->usr_cpu_pct, &j->sys_cpu_pct);
	j->ctx = b->usage->ctx;
	j->majf = b->usage->majf;
	j->minf = b->usage->minf;
}

void fs_bench_print_fio(FILE *out, const struct fs_bench_report *b)
{
	struct fs_fio_job jobs[65]; /* find-max keeps at most 64 trials */
	struct job_text text[65];
	memset(jobs, 0, sizeof jobs);
	int k = 0;
	for (int i = 0; i < b->nruns && k < 64; i++, k++) {
		const struct fs_run_result *r = &b->runs[i];
		if (b->find_max)
			snprintf(text[k].name, sizeof text[k].name, "%s-%uacc", b->w->name, r->accelerators);
		else
			snprintf(text[k].name, sizeof text[k].name, "%s", b->w->name);
		jobs[k].name = text[k].name;
		jobs[k].nopts = job_opts(&text[k], b, r);
		jobs[k].opts = text[k].opt;
		/* read's runtime is the readers' I/O time (fio's: the time the
		 * job spent on reads), so iops and bw mean what fio's do; the
		 * job's runtime is the run's wall time */
		jobs[k].read = (struct fs_fio_dir){.io_bytes = r->total.read_bytes, .total_ios = r->total.reads,
						   .runtime_s = r->total.io_s, .lat = &r->total.lat};
		jobs[k].job_runtime_s = r->total.duration_s;
		cpu(&jobs[k], b);
	}
	if (b->ckpt) {
		snprintf(text[k].name, sizeof text[k].name, "checkpoint");
		jobs[k].name = text[k].name;
		jobs[k].nopts = job_opts(&text[k], b, NULL);
		jobs[k].opts = text[k].opt;
		jobs[k].write = (struct fs_fio_dir){.io_bytes = b->ckpt->bytes_written, .runtime_s = b->ckpt->write_s};
		jobs[k].read = (struct fs_fio_dir){.io_bytes = b->ckpt->bytes_read, .runtime_s = b->ckpt->read_s};
		jobs[k].job_runtime_s = b->ckpt->write_s + b->ckpt->read_s;
		cpu(&jobs[k], b);
		k++;
	}
	struct fs_fio_disk disks[FS_USAGE_DISKS_MAX];
	int nd = b->usage ? fs_usage_fio_disks(b->usage, disks) : 0;
	struct fs_fio_doc d = {.version = "feedscope-" FS_VERSION, .unix_ns = b->end_unix_ns, .jobs = jobs, .njobs = k,
			       .disks = disks, .ndisks = nd};
	fs_fio_json_write(out, &d);
}
