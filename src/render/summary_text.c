#include "render/summary_text.h"

#include <math.h>
#include <string.h>

#include "util/fmt.h"
#include "util/text.h"

/* Every string from the run file goes through esc() (util/text.h): no raw
 * control character or invalid UTF-8 reaches the terminal. */
static const char *esc(char *buf, size_t cap, const char *s)
{
	return fs_text_escape(buf, cap, s);
}

/* "12.3%" or "unknown" */
static const char *pct(char *buf, size_t cap, double x)
{
	if (!isfinite(x))
		return "unknown";
	char num[32];
	snprintf(buf, cap, "%s%%", fs_fmt_sig3(num, sizeof num, x));
	return buf;
}

static void line_cpu(FILE *out, const struct fs_summary *s)
{
	char a[32], b[32], c[32], d[32], e[32];
	if (!isfinite(s->cpu_user))
		return;
	fprintf(out, "  %-10s usr %s · sys %s · iowait %s · idle %s · steal %s\n", "cpu",
		pct(a, 32, s->cpu_user), pct(b, 32, s->cpu_system), pct(c, 32, s->cpu_iowait),
		pct(d, 32, s->cpu_idle), pct(e, 32, s->cpu_steal));
}

static void line_psi(FILE *out, const struct fs_summary *s)
{
	char a[32], b[32], c[32], d[32];
	if (!isfinite(s->psi_cpu_some) && !isfinite(s->psi_io_some))
		return;
	fprintf(out, "  %-10s cpu some %s · io some %s, full %s · memory some %s\n", "pressure",
		pct(a, 32, s->psi_cpu_some), pct(b, 32, s->psi_io_some), pct(c, 32, s->psi_io_full),
		pct(d, 32, s->psi_mem_some));
}

static void line_disk(FILE *out, const struct fs_summary_disk *d)
{
	char r[32], w[32], req[32], aw[32], u[32], um[32], iops[32];
	char label[300], name[256];
	snprintf(label, sizeof label, "disk %s", esc(name, sizeof name, d->name));
	fprintf(out, "  %-10s read %s (%s IO/s", label, fs_fmt_rate(r, 32, d->read_bytes_per_s),
		fs_fmt_sig3(iops, 32, d->reads_per_s));
	if (isfinite(d->read_req_bytes))
		fprintf(out, ", %s/req, await %s", fs_fmt_bytes(req, 32, d->read_req_bytes),
			fs_fmt_time(aw, 32, d->read_await_ms / 1e3));
	fprintf(out, ") · write %s · util %s (max %s)\n", fs_fmt_rate(w, 32, d->write_bytes_per_s),
		pct(u, 32, d->util_pct), pct(um, 32, d->util_max_pct));
}

static void line_job(FILE *out, const struct fs_summary *s)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
	if (s->job_procs_max <= 0)
		return;
	fprintf(out, "  %-10s up to %ld processes, %ld threads · CPU %s of a core on average\n", "job",
		s->job_procs_max, s->job_threads_max, pct(a, 32, s->job_cpu_pct));
	fprintf(out, "  %-10s running %s · blocked in I/O (D) %s · sleeping %s · other %s\n",
		"threads", pct(a, 32, s->thr_running), pct(b, 32, s->thr_blocked),
		pct(c, 32, s->thr_sleeping), pct(d, 32, s->thr_other));
	if (isfinite(s->wrk_running))
		fprintf(out, "  %-10s running %s · blocked in I/O (D) %s · sleeping %s\n", "workers",
			pct(e, 32, s->wrk_running), pct(f, 32, s->wrk_blocked),
			pct(g, 32, s->wrk_sleeping));
	if (isfinite(s->job_rchar))
		fprintf(out, "  %-10s read %s through syscalls; %s came from storage\n", "job I/O",
			fs_fmt_bytes(a, 32, s->job_rchar),
			isfinite(s->job_read_bytes) ? fs_fmt_bytes(b, 32, s->job_read_bytes) : "unknown");
}

static void line_steps(FILE *out, const struct fs_summary *s)
{
	char a[32], b[32], c[32];
	for (int i = 0; i < s->nloaders; i++) {
		const struct fs_summary_loader *l = &s->loaders[i];
		char label[300], name[256];
		snprintf(label, sizeof label, "steps %s", esc(name, sizeof name, l->name));
		fprintf(out, "  %-10s %ld in %ld epoch%s · waiting for data %s of step time"
			     " (mean wait %s, compute %s)\n",
			label, l->steps, l->epochs, l->epochs == 1 ? "" : "s",
			pct(a, 32, 100.0 * l->wait_share),
			fs_fmt_time(b, 32, l->wait_s / (double)l->steps),
			fs_fmt_time(c, 32, l->compute_s / (double)l->steps));
	}
	for (int i = 0; i < s->nphases; i++) {
		const struct fs_summary_phase *p = &s->phases[i];
		char label[300], name[256];
		snprintf(label, sizeof label, "phase %s", esc(name, sizeof name, p->name));
		fprintf(out, "  %-10s %ld×, %s in all\n", label, p->count, fs_fmt_time(a, 32, p->total_s));
	}
	char hook[512];
	if (s->nloaders == 0 && !strncmp(s->hook, "off", 3) && !strcmp(s->mode, "run"))
		fprintf(out, "  %-10s none from inside the job (hook %s)\n", "steps", esc(hook, sizeof hook, s->hook));
}

/* The first line, and a second one when the run file has no end record. */
static void line_head(FILE *out, const struct fs_summary *s)
{
	char a[32], b[32], cmd[2048];
	double dur = isfinite(s->duration_s) ? s->duration_s : s->recorded_until_s;
	fprintf(out, "\nfeedscope: recorded %s (%ld samples ", isfinite(dur) ? fs_fmt_time(a, 32, dur) : "unknown",
		s->ticks);
	if (isfinite(s->interval_s))
		fprintf(out, "every %s)", fs_fmt_time(b, 32, s->interval_s));
	else
		fprintf(out, "at an unknown interval)");
	esc(cmd, sizeof cmd, s->command);
	if (!strcmp(s->mode, "attach"))
		fprintf(out, " of pid %d (%s)", s->pid, cmd);
	else if (s->command[0])
		fprintf(out, " of %s", cmd);
	fprintf(out, "\n");
	if (s->incomplete)
		fprintf(out, "  %-10s the recording stopped at %s without an end record (the recorder was killed,"
			     " or is still recording)\n", "incomplete",
			isfinite(s->recorded_until_s) ? fs_fmt_time(a, 32, s->recorded_until_s) : "t unknown");
}

void fs_summary_render_text(FILE *out, const struct fs_summary *s, const char *path)
{
	char a[32], b[32], c[32], text[4096];
	line_head(out, s);
	if (s->has_exit)
		fprintf(out, "  %-10s %d\n", "exit", s->exit_code);
	line_steps(out, s);
	line_job(out, s);
	line_cpu(out, s);
	line_psi(out, s);
	for (int i = 0; i < s->ndisks; i++)
		line_disk(out, &s->disks[i]);
	if (s->net_iface[0])
		fprintf(out, "  %-10s rx %s · tx %s (%s)\n", "net", fs_fmt_rate(a, 32, s->net_rx_bytes_per_s),
			fs_fmt_rate(b, 32, s->net_tx_bytes_per_s), esc(text, sizeof text, s->net_iface));
	if (isfinite(s->mem_available_min))
		fprintf(out, "  %-10s available min %s · page cache max %s · major faults %s/s\n", "memory",
			fs_fmt_bytes(a, 32, s->mem_available_min), fs_fmt_bytes(b, 32, s->mem_cached_max),
			fs_fmt_sig3(c, 32, s->majflt_per_s));
	if (s->ngpus > 0)
		fprintf(out, "  %-10s %d × %s: util %s on average, memory used max %s\n", "gpu", s->ngpus,
			s->gpu_name[0] ? esc(text, sizeof text, s->gpu_name) : "GPU", pct(a, 32, s->gpu_util),
			fs_fmt_bytes(b, 32, s->gpu_mem_used_max));
	if (s->skipped[0])
		fprintf(out, "  %-10s %s\n", "skipped", esc(text, sizeof text, s->skipped));
	/* The recorder's steady cost: after start-up (run file, sources); and
	 * its BPF programs', which the job pays in its context switches */
	double steady = s->recorder_cpu_s - (isfinite(s->recorder_cpu_start_s) ? s->recorder_cpu_start_s : 0);
	if (isfinite(steady) && s->duration_s > 0 && s->ticks > 1) {
		double own = 100.0 * steady / s->duration_s, bpf = 100.0 * s->bpf_cpu_s / s->duration_s;
		fprintf(out, "  %-10s %s of one core (%s CPU per sample)", "recorder", pct(a, 32, own),
			fs_fmt_time(b, 32, steady / (double)(s->ticks - 1)));
		if (s->states_bpf && isfinite(bpf))
			fprintf(out, " + %s in its BPF programs (in the kernel, in the job's context switches) = %s",
				pct(b, 32, bpf), pct(c, 32, own + bpf));
		else if (s->states_bpf)
			fprintf(out, "; its BPF programs' time (in the job's context switches) not counted: "
				"--bpf-stats counts it");
		fputc('\n', out);
	}
	fprintf(out, "  %-10s %s (query it with sqlite3; tables in docs/schema.md)\n", "run file",
		esc(text, sizeof text, path));
	if (s->per_minute)
		fprintf(out, "  %-10s read per minute (the run's per-minute tables; --resolution raw reads every"
			" sample)\n", "resolution");
}
