/* stall_int.h - what stall.c (the detector) and stall_probe.c (what each
 * process is blocked on, the stacks) share. Not for other files. */
#ifndef FS_RECORD_STALL_INT_H
#define FS_RECORD_STALL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/stall.h"
#include "source/blocked.h"

#define STALL_STEPS_KEPT 512 /* the latest step times the median is taken of */

struct stall_proc {
	int pid, ppid;
	char role[8];
	char comm[64];
};

struct stall_hooked {
	int pid;
	uint64_t starttime; /* when it registered: a pid reused is not it */
};

/* One process described at a stall. */
struct stall_probe {
	struct fs_blocked b;
	char role[8];
	bool signalled, done;
	off_t from;      /* its dump file's size before the signal */
	off_t seen;      /* the size at the previous look */
	char python[128]; /* how its Python stack was had, or why not */
	char *stack;      /* the dump (owned), NULL none */
};

enum stall_state { STALL_IDLE, STALL_COLLECTING, STALL_STALLED };

struct fs_stall {
	struct fs_sink sink; /* first: the filter's own */
	struct fs_sink *inner;
	struct fs_stall_opts o;
	char stacks_dir[256];
	/* progress */
	double dur[STALL_STEPS_KEPT];
	int ndur, durpos;
	long steps;
	double last_step, last_activity;
	/* the job's processes at the latest tick (proc rows) */
	struct stall_proc *procs;
	int nprocs, procs_cap;
	double procs_t;
	/* processes whose hook registered the stacks' signal */
	struct stall_hooked *hooked;
	int nhooked, hooked_cap;
	long registered;
	/* the stall at hand */
	enum stall_state state;
	int nstalls;
	double s_start, s_detect, s_bound, s_deadline, longest_s;
	char basis[96];
	struct stall_probe *probes;
	int nprobes;
	char missing[256]; /* what could not be read, said once */
};

/* Read every process of the job (d->procs), write the stall's start row,
 * say its line, and ask the hooked processes for their stacks. */
void fs_stall_probe_start(struct fs_stall *d, double last, double t);

/* Look at the dumps asked for; true when every one is in (or the wait is
 * over at t). */
bool fs_stall_probe_collect(struct fs_stall *d, double t);

/* Write the stall's processes' rows; the probes freed. */
void fs_stall_probe_write(struct fs_stall *d);

/* Whether process pid registered the signal (and is still the same
 * process). */
bool fs_stall_is_hooked(const struct fs_stall *d, const struct fs_blocked *b);

#endif
