/* speedup.c - the what-if: the speedup to expect when the verdict's cause
 * is fixed, from the accounting (docs/verdicts.md). Pure. */
#include "analysis/advise/speedup.h"

#include <math.h>
#include <stdio.h>

#include "util/fmt.h"

/* The trainer's file writes are mostly its other threads' (a background
 * checkpoint writer the loop waits on), not its loop thread's. */
bool fs_speedup_background_writer(const struct fs_metrics *m)
{
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	return T && T->helper_write_s > 0 && !(T->write_sync_s >= T->helper_write_s);
}

double fs_speedup_device_step(const struct fs_metrics *m, char *why, size_t cap)
{
	char a[32];
	if (!m->have_steps || m->steps <= 0)
		return NAN;
	double compute = m->compute_s / (double)m->steps;
	/* The accelerator's own time a step, where it says: the loop cannot
	 * get shorter than what the device needs, and an asynchronous device
	 * works while the host waits, so the host's compute can be far less. */
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	double device = 0;
	if (m->have_gpu && T && isfinite(T->gpu_busy) && T->steps > 0 && T->loop_s > 0)
		device = T->gpu_busy * T->loop_s / (double)T->steps;
	else if (T && T->dev_clock[0] && T->steps > 0)
		/* no GPU signal, the device's events: busy through the waits
		 * but their idle part, and (at most) through the compute */
		device = (fmax(0, T->wait_s - T->dev_idle_wait_s) + fmax(0, T->compute_s)) / (double)T->steps;
	if (device > compute) {
		compute = device;
		if (why)
			snprintf(why, cap,
				 "capped by the accelerator's own time: %s of device work a step (its busy time over the loop)",
				 fs_fmt_time(a, 32, device));
	}
	return compute;
}

double fs_speedup_loader_cores(const struct fs_metrics *m)
{
	return m->ncpu - (isfinite(m->main.cpu_cores) && !m->loaders_are_main ? m->main.cpu_cores : 0);
}

/* The speedup from the accounting: the verdict's bucket removed, capped by
 * the next limit.
 * - checkpoint_stall: written in the background, the checkpoints still take
 *   the device as long as they take the loop now, so the loop cannot get
 *   shorter than that: 1 / max(1 - host, host). Written in the background
 *   already (the fix is faster storage): 1 / (1 - host).
 * - epoch_start: 1 / (1 - the epoch-boundary bucket).
 * - an input cause, with steps: mean step / the larger of the mean compute
 *   and the accelerator's own busy time a step (an asynchronous device:
 *   docs/verdicts.md "The device's clock"), capped by the CPU the loaders
 *   need (they cannot have more than the cores the loop leaves);
 *   without steps: 1 / (1 - the input bucket).
 * - compute_bound: mean step / mean compute (what perfect input would give). */
void fs_speedup(const struct fs_metrics *m, struct fs_verdict *v)
{
	char a[32], b[32];
	const struct fs_accounting *A = fs_verdict_trainer(v);
	if (v->primary == FS_VERDICT_UNDETERMINED || !A || !A->valid)
		return;
	if (v->primary == FS_VERDICT_CHECKPOINT_STALL) {
		double host = A->share[FS_BUCKET_HOST_IO];
		if (fs_speedup_background_writer(m)) { /* the fix is faster storage: the bucket removed */
			v->predicted_speedup = 1 / fmax(1 - host, 1e-9);
			return;
		}
		v->predicted_speedup = 1 / fmax(fmax(1 - host, host), 1e-9);
		if (host > 0.5)
			snprintf(v->speedup_cap, sizeof v->speedup_cap,
				 "capped by the checkpoints' own writing: in the background they still need %s of the "
				 "loop's %s", fs_fmt_time(a, 32, host * A->loop_s), fs_fmt_time(b, 32, A->loop_s));
		return;
	}
	if (v->primary == FS_VERDICT_EPOCH_START) {
		v->predicted_speedup = 1 / fmax(1 - A->share[FS_BUCKET_EPOCH], 1e-9);
		return;
	}
	if (!m->have_steps) {
		v->predicted_speedup = 1 / fmax(1 - A->share[FS_BUCKET_INPUT], 1e-9);
		return;
	}
	double step = m->loop_s / (double)m->steps;
	double compute = fs_speedup_device_step(m, v->speedup_cap, sizeof v->speedup_cap);
	double floor_s = 0;
	double cores = fs_speedup_loader_cores(m);
	if (!m->loaders_are_main && isfinite(m->loaders.cpu_cores) && cores > 0 && m->duration_s > 0) {
		double cpu_per_step = m->loaders.cpu_cores * m->duration_s / (double)m->steps;
		floor_s = cpu_per_step / cores;
		if (floor_s > compute)
			snprintf(v->speedup_cap, sizeof v->speedup_cap,
				 "capped by CPU: the loaders need %s of CPU per step and this machine has %.1f cores for them",
				 fs_fmt_time(a, 32, cpu_per_step), cores);
	}
	v->predicted_speedup = step / fmax(fmax(compute, floor_s), 1e-9);
}
