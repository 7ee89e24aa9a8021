/* accounting.c - where each training process's loop time went
 * (docs/verdicts.md, "The accounting"). Pure: a function of the metrics. */
#include "analysis/judge/accounting.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const bucket_names[FS_BUCKET__N] = {
	[FS_BUCKET_BUSY] = "busy",
	[FS_BUCKET_INPUT] = "input_wait",
	[FS_BUCKET_HOST_IO] = "host_io",
	[FS_BUCKET_RANKS] = "other_ranks",
	[FS_BUCKET_EPOCH] = "epoch_boundary",
	[FS_BUCKET_OTHER] = "other",
};

const char *fs_bucket_name(enum fs_bucket b)
{
	return b < FS_BUCKET__N ? bucket_names[b] : "?";
}

static double clamp(double x, double lo, double hi)
{
	return isfinite(x) ? fmax(lo, fmin(hi, x)) : lo;
}

/* The share of the host-I/O bucket in which the accelerator sat idle:
 * NVML's util during it where known, else all of it. */
static double idle_in_host_io(const struct fs_metrics *m, const struct fs_loop_proc *L)
{
	double u = m->have_gpu ? L->gpu_busy_in_host_io : NAN;
	return isfinite(u) ? clamp(1 - u / 100, 0, 1) : 1;
}

/* With steps (seconds, then shares of the loop):
 *   idle   = the accelerator's idle time inside the host's waits, on its
 *            own clock (L->dev_clock: device events, or NVML against the
 *            waits); the waits themselves where the device cannot say
 *   epoch  = epoch_end phases + each later epoch's first wait beyond the
 *            usual, at most idle
 *   input  = the rest of idle
 *   ranks  = the wait on other ranks (fs_loop_ranks_wait_s), inside compute:
 *            taken out before the GPU's busy time fills the rest, so a GPU
 *            that spins in an NCCL kernel while it waits is not busy
 *   host   = the host-I/O bucket (inside compute, what is left of it), the
 *            part with the accelerator idle
 *   busy   = the rest of compute and the waits' time the device was busy
 *            (an asynchronous device works while the host waits), at most
 *            the accelerator's busy time over the loop's span (where there
 *            is a GPU signal)
 *   other  = what is left: compute with the accelerator idle, less the time
 *            the process's other threads spent writing files (that is host
 *            I/O the loop waits on: a background checkpoint writer). */
static void with_steps(const struct fs_metrics *m, const struct fs_loop_proc *L, struct fs_accounting *a)
{
	double loop = L->loop_s;
	double waits = fmax(0, L->wait_s) + fmax(0, L->epoch_end_s);
	double idle = L->dev_clock[0] ? clamp(L->dev_idle_wait_s + fmax(0, L->epoch_end_s), 0, waits) : waits;
	double compute = fmax(0, L->compute_s);
	double epoch = clamp(L->epoch_excess_s + L->epoch_end_s, 0, idle);
	double ranks = clamp(fs_loop_ranks_wait_s(L), 0, compute);
	double host_time = clamp(L->host_io_s, 0, compute - ranks);
	double host = host_time * idle_in_host_io(m, L);
	double rest = compute - ranks - host + (waits - idle);
	double busy = rest;
	bool gpu = m->have_gpu && isfinite(L->gpu_busy);
	if (gpu)
		busy = clamp(L->gpu_busy * loop, 0, rest);
	a->share[FS_BUCKET_EPOCH] = epoch / loop;
	a->share[FS_BUCKET_INPUT] = (idle - epoch) / loop;
	a->share[FS_BUCKET_RANKS] = ranks / loop;
	a->share[FS_BUCKET_HOST_IO] = host / loop;
	/* Compute with the accelerator idle while the process's other threads
	 * wrote files (a background checkpoint writer the loop waits for):
	 * that much of it is host I/O, not unexplained. */
	double other = rest - busy;
	double helper = clamp(L->helper_write_s, 0, other);
	a->share[FS_BUCKET_HOST_IO] += helper / loop;
	a->share[FS_BUCKET_BUSY] = busy / loop;
	a->share[FS_BUCKET_OTHER] = (other - helper) / loop;
	if (L->dev_clock[0])
		snprintf(a->basis, sizeof a->basis, "steps + %s (device clock)", !strcmp(L->dev_clock, "events") ? "events" : "gpu");
	else
		snprintf(a->basis, sizeof a->basis, gpu ? "steps + gpu" : "steps");
}

/* Without steps: the accelerator's busy share over the process's loop span;
 * its idle time less the host-I/O bucket and the epoch boundaries seen from
 * worker restarts (load/epochs.c) is taken as waiting for input (the loop
 * cannot be seen, so ranks and other cannot be told apart). */
static void without_steps(const struct fs_metrics *m, const struct fs_loop_proc *L, struct fs_accounting *a)
{
	double busy = clamp(L->gpu_busy, 0, 1);
	double idle = 1 - busy;
	double host = L->loop_s > 0 ? clamp(L->host_io_s / L->loop_s * idle_in_host_io(m, L), 0, idle) : 0;
	double epoch = L->loop_s > 0 ? clamp(L->epoch_excess_s / L->loop_s, 0, idle - host) : 0;
	a->share[FS_BUCKET_BUSY] = busy;
	a->share[FS_BUCKET_HOST_IO] = host;
	a->share[FS_BUCKET_EPOCH] = epoch;
	a->share[FS_BUCKET_INPUT] = idle - host - epoch;
	snprintf(a->basis, sizeof a->basis, "gpu");
}

bool fs_account(const struct fs_metrics *m, const struct fs_loop_proc *L, struct fs_accounting *a)
{
	memset(a, 0, sizeof *a);
	a->pid = L->pid;
	a->rank = L->rank;
	a->loop_s = L->loop_s;
	if (L->have_steps && L->loop_s > 0)
		with_steps(m, L, a);
	else if (m->have_gpu && isfinite(L->gpu_busy) && L->loop_s > 0)
		without_steps(m, L, a);
	else {
		for (int b = 0; b < FS_BUCKET__N; b++)
			a->share[b] = NAN;
		return false;
	}
	a->valid = true;
	return true;
}
