/* memory.c (advise) - the page copies' advice (memory.h). */
#include "analysis/advise/memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"

bool fs_advise_page_copies(const struct fs_metrics *m, struct fs_verdict *v)
{
	const struct fs_memory_verdict *M = &v->memory;
	const struct fs_memory *mem = &m->mem;
	if (!M->page_copies)
		return false;
	double cores = mem->window_s > 0 ? mem->workers_sys_s / mem->window_s : NAN;
	double faults = mem->window_s > 0 ? mem->workers_minflt / mem->window_s : NAN;
	char a[32], b[32];
	for (int i = 0; i < v->nfind; i++)
		if (v->find[i].id == FS_VERDICT_CPU_PREPROCESS)
			fs_evidence_add(v->find[i].ev, &v->find[i].nev, "workers_system_cpu_share", M->workers_sys_share,
					"fraction", "proc (system_pct, minflt_per_s)",
					"%.0f%% of the workers' CPU was the kernel's, %.0f minor faults a second: copying pages "
					"of the parent's Python objects (copy-on-read), not decoding",
					100 * M->workers_sys_share, faults);
	fs_evidence_add(v->ev, &v->nev, "workers_system_cpu_share", M->workers_sys_share, "fraction",
			"proc (system_pct, minflt_per_s)",
			"%.0f%% of the workers' CPU was the kernel copying pages (%.0f minor faults a second; their private "
			"memory grew %s, their resident memory %s)", 100 * M->workers_sys_share, faults,
			fs_fmt_bytes(a, 32, mem->workers_uss_growth), fs_fmt_bytes(b, 32, fmax(mem->workers_rss_growth, 0)));
	if (v->nrec >= FS_MAX_RECS)
		return true;
	struct fs_recommendation *r = &v->rec[v->nrec++];
	snprintf(r->relieves, sizeof r->relieves, "CPU (the kernel copying pages)");
	snprintf(r->knob, sizeof r->knob, "the dataset's index");
	snprintf(r->current, sizeof r->current, "Python objects read by %d workers", mem->workers);
	snprintf(r->suggested, sizeof r->suggested, "a numpy array or an Arrow table");
	snprintf(r->why, sizeof r->why,
		 "reading a Python object writes its refcount and the kernel copies its page into the worker "
		 "(pytorch#13246): an index without per-item objects frees %.2g cores, %.0f%% of the workers' CPU",
		 cores, 100 * M->workers_sys_share);
	return true;
}
