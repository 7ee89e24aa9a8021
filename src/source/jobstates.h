/* jobstates.h - the arithmetic of the job source's BPF path (jobbpf.c):
 * per-thread time in each state (struct fs_js_thread, filled by
 * bpf/jobstates.bpf.c) turned into a process's columns for one interval.
 * Pure functions; no libbpf. */
#ifndef FS_SOURCE_JOBSTATES_H
#define FS_SOURCE_JOBSTATES_H

#include <stdbool.h>
#include <stdint.h>

#include "source/bpf/jobstates.h"

/* A thread's time in each state (FS_JS_ONCPU...FS_JS_OTHER) and in I/O
 * wait, from its start up to one read. */
struct fs_js_totals {
	uint64_t ns[FS_JS_NSTATES];
	uint64_t iowait_ns;
	uint64_t meta_ns; /* of BLOCKED, inside a metadata system call */
	/* ONCPU + RUNQ (/proc's R), counted against a mark of its own: time
	 * the kernel moves between the two after a read (a stretch whose
	 * switch in was seen late, read as RUNQ, then split) cancels in it */
	uint64_t run_ns;
};

/* t's totals at now_ns: the closed intervals plus the open one (now_ns -
 * since_ns, in its current state; nothing when it has exited or when the
 * entry changed after now_ns). */
void fs_js_totals_at(const struct fs_js_thread *t, uint64_t now_ns, struct fs_js_totals *out);

/* The same, with the thread's execution at now_ns (se.sum_exec_runtime, as
 * task/TID/schedstat gives it; ~0: not known): an open stretch on a CPU or
 * runnable is split by it, its growth since exec_ns on the CPU (at most
 * the stretch), the rest runnable. Without it (fs_js_totals_at) the open
 * stretch counts whole in the thread's state. */
void fs_js_totals_at_exec(const struct fs_js_thread *t, uint64_t now_ns, uint64_t exec_ns,
			  struct fs_js_totals *out);

/* Add cur - prev to sum, each figure clamped at 0. prev NULL: the thread is
 * new, all of cur is in this interval. prev is what has been counted of the
 * thread so far (fs_js_totals_mark): a figure once read higher than it
 * settles (the open stretch on a CPU, counted whole until the kernel splits
 * off the time it was not running; a torn read) is paid back from what
 * accrues after it, not counted twice. */
void fs_js_totals_add_delta(struct fs_js_totals *sum, const struct fs_js_totals *prev,
			    const struct fs_js_totals *cur);

/* Raise mark to cur, figure by figure: what has been counted after a read. */
void fs_js_totals_mark(struct fs_js_totals *mark, const struct fs_js_totals *cur);

/* Copy a record the kernel may be writing: between two equal, even values
 * of its seq, at most `tries` times. False: it was being written each time
 * (the copy is the last one, possibly torn). */
bool fs_js_copy(struct fs_js_thread *out, const struct fs_js_thread *slot, int tries);

/* A process's state columns for one interval. */
struct fs_js_columns {
	double running;    /* mean threads on a CPU or runnable (/proc's R) */
	double blocked_io; /* mean threads in D */
	double blocked_meta; /* of those, mean threads in D inside a metadata call */
	double sleeping;   /* mean threads in S or I */
	double other;      /* mean threads stopped, traced, zombie... */
	double cpu_pct;    /* time on a CPU, % of one core */
	double run_wait_pct;    /* 100 = one thread runnable but off-CPU for all of it */
	double blkio_delay_pct; /* 100 = one thread in io_schedule for all of it */
};

/* The columns from the summed deltas of a process's threads over dt_ns:
 * each state's time divided by the interval, so the unit of the per-sample
 * counts (threads) is kept; running from run_ns, waiting for a CPU what of
 * it was not on one (0 when time moved onto the CPU exceeds it). Everything
 * NaN when dt_ns is 0. */
void fs_js_columns(const struct fs_js_totals *sum, uint64_t dt_ns, struct fs_js_columns *out);

/* The state a /proc state letter means (R, S, D, I, T, Z...), for threads
 * seeded from their stat when first seen. */
uint32_t fs_js_from_letter(char state);

/* --states: "auto", "proc" or "bpf" as FS_STATES_* (source.h); -1 otherwise. */
int fs_js_states_parse(const char *arg);

#endif
