/* memory.c (render) - the job's memory as text and JSON (memory.h). */
#include "render/memory.h"

#include <math.h>

#include "util/fmt.h"
#include "util/text.h"

enum { ESC = 4 * 400 + 1 };

static void json_evidence(struct fs_json *j, const struct fs_mem_finding *f)
{
	fs_json_array(j, "evidence");
	for (int i = 0; i < f->nev; i++) {
		fs_json_object(j, NULL);
		fs_json_string(j, "metric", f->ev[i].metric);
		fs_json_number(j, "value", f->ev[i].value);
		fs_json_string(j, "unit", f->ev[i].unit);
		fs_json_string(j, "source", f->ev[i].source);
		fs_json_string(j, "text", f->ev[i].text);
		fs_json_end(j);
	}
	fs_json_end(j);
}

void fs_memory_render_json_findings(struct fs_json *j, const struct fs_verdict *v)
{
	const struct fs_memory_verdict *M = &v->memory;
	for (int i = 0; i < M->nfind; i++) {
		const struct fs_mem_finding *f = &M->find[i];
		fs_json_object(j, NULL);
		fs_json_string(j, "id", fs_mem_finding_name(f->id));
		fs_json_string(j, "kind", "memory");
		fs_json_number(j, "bytes", f->bytes);
		fs_json_number(j, "of_bytes", f->of_bytes);
		fs_json_number(j, "bytes_per_s", f->rate_bytes_per_s);
		fs_json_number(j, "to_limit_s", f->to_limit_s);
		if (f->id == FS_MEMF_LOADER_GROWTH)
			fs_json_bool(j, "copy_on_read", f->copy_on_read);
		json_evidence(j, f);
		fs_json_object(j, "fix");
		fs_json_string(j, "relieves", f->relieves);
		fs_json_string(j, "knob", f->knob);
		fs_json_string(j, "current", f->current);
		fs_json_string(j, "suggested", f->suggested);
		fs_json_string(j, "why", f->why);
		fs_json_end(j);
		fs_json_end(j);
	}
}

void fs_memory_render_json(struct fs_json *j, const struct fs_metrics *m, const struct fs_verdict *v)
{
	const struct fs_memory *mem = &m->mem;
	const struct fs_memory_verdict *M = &v->memory;
	fs_json_object(j, "memory");
	fs_json_number(j, "job_pss_max_bytes", mem->job_pss_max);
	fs_json_number(j, "main_pss_max_bytes", mem->main_pss_max);
	fs_json_number(j, "workers_pss_max_bytes", mem->workers_pss_max);
	fs_json_number(j, "others_pss_max_bytes", mem->others_pss_max);
	fs_json_number(j, "growth_bytes", mem->growth);
	fs_json_number(j, "workers_uss_growth_bytes", mem->workers_uss_growth);
	fs_json_number(j, "workers_rss_growth_bytes", mem->workers_rss_growth);
	fs_json_number(j, "main_rss_growth_bytes", mem->main_rss_growth);
	fs_json_int(j, "workers", mem->workers);
	fs_json_number(j, "per_worker_bytes", M->per_worker_bytes);
	fs_json_number(j, "swap_max_bytes", mem->swap_max);
	fs_json_number(j, "shmem_pss_max_bytes", mem->shmem_pss_max);
	fs_json_number(j, "dev_shm_used_max_bytes", mem->shm_used_max);
	fs_json_number(j, "dev_shm_size_bytes", mem->shm_size);
	fs_json_string(j, "pinned_host_bytes", "unknown"); /* no reading of CUDA's pinned memory yet */
	fs_json_number(j, "limit_bytes", M->limit_bytes);
	fs_json_string(j, "limit_of", isfinite(M->limit_bytes) ? (M->limit_is_cgroup ? "cgroup" : "machine") : NULL);
	fs_json_number(j, "cgroup_mem_peak_bytes", mem->cg_peak);
	fs_json_number(j, "workers_system_cpu_share", M->workers_sys_share);
	fs_json_number(j, "workers_minor_faults_per_system_s", M->faults_per_sys_s);
	fs_json_bool(j, "page_copies", M->page_copies);
	fs_json_end(j);
}

/* "1.2 GiB" or "unknown" */
static const char *bytes_or(char *out, size_t cap, double b)
{
	if (!isfinite(b))
		snprintf(out, cap, "unknown");
	else
		fs_fmt_bytes(out, cap, b);
	return out;
}

static void text_lines(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	const struct fs_memory *mem = &m->mem;
	const struct fs_memory_verdict *M = &v->memory;
	char a[32], b[32], c[32], d[32], e[48];
	e[0] = '\0';
	if (mem->others_pss_max > 0)
		snprintf(e, sizeof e, ", others %s", fs_fmt_bytes(d, 32, mem->others_pss_max));
	fprintf(out, "  memory:    job %s at its peak (PSS: trainer %s, workers %s%s); added %s over the loop\n",
		bytes_or(a, 32, mem->job_pss_max), bytes_or(b, 32, mem->main_pss_max), bytes_or(c, 32, mem->workers_pss_max),
		e, bytes_or(d, 32, mem->growth));
	if (isfinite(M->per_worker_bytes))
		fprintf(out, "             one more worker: %s (a worker's own memory, mean of %d)\n",
			fs_fmt_bytes(a, 32, M->per_worker_bytes), mem->workers);
	if (mem->shm_size > 0)
		fprintf(out, "             /dev/shm %s of %s at most%s\n", bytes_or(a, 32, mem->shm_used_max),
			fs_fmt_bytes(b, 32, mem->shm_size),
			mem->shm_used_max > 64.0 * 1024 * 1024 ? "; more than a container's default 64 MiB" : "");
	if (isfinite(M->limit_bytes))
		fprintf(out, "             limit %s (%s)%s%s\n", fs_fmt_bytes(a, 32, M->limit_bytes),
			M->limit_is_cgroup ? "cgroup" : "the machine", isfinite(mem->cg_peak) ? "; cgroup peak " : "",
			isfinite(mem->cg_peak) ? fs_fmt_bytes(b, 32, mem->cg_peak) : "");
	if (mem->swap_max > 0)
		fprintf(out, "             swapped out: %s\n", fs_fmt_bytes(a, 32, mem->swap_max));
	if (isfinite(M->workers_sys_share))
		fprintf(out, "             workers' CPU in the kernel: %.0f%% (%.0f minor faults a kernel-second)%s\n",
			100 * M->workers_sys_share, isfinite(M->faults_per_sys_s) ? M->faults_per_sys_s : 0,
			M->page_copies ? ": copying the parent's pages" : "");
}

void fs_memory_render_text(FILE *out, const struct fs_metrics *m, const struct fs_verdict *v)
{
	const struct fs_memory_verdict *M = &v->memory;
	if (!m->mem.have_pss && M->nfind == 0)
		return;
	char text[ESC];
	text_lines(out, m, v);
	for (int i = 0; i < M->nfind; i++) {
		const struct fs_mem_finding *f = &M->find[i];
		fprintf(out, "  finding:   %s\n", fs_mem_finding_name(f->id));
		for (int e = 0; e < f->nev; e++)
			fprintf(out, "    · %s\n", fs_text_escape(text, sizeof text, f->ev[e].text));
		fprintf(out, "    → %s: %s → %s (relieves %s)\n", fs_text_escape(text, sizeof text, f->knob), f->current,
			f->suggested, f->relieves);
		fprintf(out, "      %s\n", fs_text_escape(text, sizeof text, f->why));
	}
}
