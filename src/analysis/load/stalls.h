/* stalls.h - the stalls a run file holds (its `stalls` and `stall_procs`
 * tables, docs/schema.md; written by record/stall.h while the job ran):
 * each stall's start, end, bound and what each process was blocked on. */
#ifndef FS_LOAD_STALLS_H
#define FS_LOAD_STALLS_H

#include <stddef.h>

struct fs_stall_proc {
	int pid, ppid, fd;       /* fd -1: none */
	long syscall_nr;         /* -1: none */
	char role[8], comm[64], state[4], syscall[32], target_kind[16];
	char target[320], peer[200], wchan[64], kstack[512], python[128];
	char *python_stack;      /* owned; NULL: none */
};

struct fs_stall_rec {
	int stall;
	double t_detect, t_start, t_end; /* seconds since the run started; t_end NaN: not ended
	                                  * (feedscope was killed during it) */
	double bound_s;
	char basis[96];
	int nprocs;
	struct fs_stall_proc *procs; /* owned */
};

struct fs_stalls {
	int n;
	struct fs_stall_rec *v; /* owned, by stall number */
};

/* Read path's stalls into s (none from a file of schema 13 or before).
 * Returns 0, or -1 with why in err (a failed query, out of memory).
 * Free with fs_stalls_free (also after -1). */
int fs_stalls_load(const char *path, struct fs_stalls *s, char *err, size_t errlen);

void fs_stalls_free(struct fs_stalls *s);

#endif
