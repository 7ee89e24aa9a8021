/* sources.c - the one list of data sources, in sampling order.
 *
 * The job source comes first so that thread states are read as close to the
 * tick as possible (and publishes the job's pids, which `threads` reads
 * right after); the GPU last (NVML calls are the slowest). */
#include <string.h>

#include "source/source.h"

extern const struct fs_source_ops fs_source_job;
extern const struct fs_source_ops fs_source_threads;
extern const struct fs_source_ops fs_source_cpu;
extern const struct fs_source_ops fs_source_psi;
extern const struct fs_source_ops fs_source_mem;
extern const struct fs_source_ops fs_source_disk;
extern const struct fs_source_ops fs_source_net;
extern const struct fs_source_ops fs_source_gpu;
extern const struct fs_source_ops fs_source_trace;

const struct fs_source_ops *const fs_sources[] = {
	&fs_source_job,
	&fs_source_threads,
	&fs_source_cpu,
	&fs_source_psi,
	&fs_source_mem,
	&fs_source_disk,
	&fs_source_net,
	&fs_source_gpu,
	&fs_source_trace,
	NULL,
};

const struct fs_source_ops *fs_source_find(const char *name)
{
	for (int i = 0; fs_sources[i]; i++)
		if (strcmp(fs_sources[i]->name, name) == 0)
			return fs_sources[i];
	return NULL;
}
