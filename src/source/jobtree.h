/* jobtree.h - is a pid part of the job? For sources that learn pids from
 * elsewhere (NVML's per-process samples) and must keep only the job's. */
#ifndef FS_SOURCE_JOBTREE_H
#define FS_SOURCE_JOBTREE_H

#include <stdbool.h>

#include "source/source.h"

#define FS_JOBTREE_CACHE 128

/* Answers already worked out, by pid. Zero-initialise. A pid reused during
 * the run keeps its first answer (pids are not reused for a long while). */
struct fs_jobtree {
	int pid[FS_JOBTREE_CACHE];
	bool member[FS_JOBTREE_CACHE];
	int n, next;
	int self; /* feedscope's own pid under paths (for adopted orphans); 0 unknown */
	bool have_self;
};

/* True if pid is job->root or descends from it (following ppid in
 * <proc>/PID/stat), or, with job->adopt_own_children, descends from
 * <proc>/self. A pid that cannot be read (gone) is not in the job. */
bool fs_jobtree_has(struct fs_jobtree *c, const struct fs_paths *paths, const struct fs_job *job,
		    int pid);

#endif
