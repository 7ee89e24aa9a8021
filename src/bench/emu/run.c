/* run.c - the epochs of `feedscope bench`: a pool of reader threads that
 * read whole batches with an io engine, accelerator threads that take them
 * and sleep their compute time, and the AU, rates and latency histogram of
 * each epoch reduced over MPI ranks. The shape is described in run.h.
 *
 * Why one thread per accelerator (and not one event loop of timers): an
 * accelerator costs two wake-ups per step (its batch, its deadline), which
 * is ~10 µs per step against the milliseconds its batch's reads take, so
 * the reads, not the accelerators, decide how many one core can feed; a
 * thread per accelerator keeps each accelerator's timeline independent (one
 * late wake-up does not delay the others) and the code plain. Wake-up
 * lateness is not charged to the storage: a step starts at its predecessor's
 * deadline when its batch was already there (absolute deadlines).
 *
 * Why one pool of readers (and not read_threads bound to each accelerator):
 * on a saturated core the scheduler then served some accelerators fully and
 * left others waiting seconds for their first batch, which DLIO's AU (first
 * step left out) does not see; the pool serves the most starved accelerator
 * first, so a shortage is shared and shows in the AU (docs/bench.md). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "bench/io/engine.h"
#include "bench/emu/mpi.h"
#include "bench/emu/run.h"
#include "bench/host/safety.h"
#include "util/clock.h"
#include "util/fmt.h"

#include "bench/emu/run_int.h"

volatile sig_atomic_t fs_bench_interrupt;

/* Stop every thread of the epoch (waking those that wait). */
static void stop_all(struct epoch *e)
{
	atomic_store(&e->stop, 1);
	pthread_mutex_lock(&e->go_mu);
	pthread_cond_broadcast(&e->go_cv);
	pthread_mutex_unlock(&e->go_mu);
	pthread_mutex_lock(&e->mu);
	for (unsigned i = 0; i < e->n; i++)
		pthread_cond_broadcast(&e->acc[i].not_empty);
	pthread_cond_broadcast(&e->not_full);
	pthread_mutex_unlock(&e->mu);
}

void fs_run_fail(struct epoch *e, const char *fmt, const char *a, const char *b)
{
	pthread_mutex_lock(&e->err_mu);
	if (!e->why[0])
		snprintf(e->why, sizeof e->why, fmt, a, b);
	pthread_mutex_unlock(&e->err_mu);
	stop_all(e);
}

/* One compute time: normal(mean, stdev) clamped at 0, in ns. */
static uint64_t compute_ns(const struct fs_wl_compute *c, uint64_t *rng)
{
	double x = c->mean_s;
	if (c->stdev_s > 0) { /* Box-Muller */
		double u1 = ((fs_run_rand(rng) >> 11) + 1.0) / 9007199254740993.0;
		double u2 = (fs_run_rand(rng) >> 11) / 9007199254740992.0;
		x += c->stdev_s * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	}
	return x > 0 ? (uint64_t)(x * 1e9) : 0;
}

static void *accel_main(void *arg)
{
	struct accel *a = arg;
	struct epoch *e = a->e;
	const struct fs_wl_compute *c = fs_workload_compute(e->o->w);
	uint64_t rng = e->o->w->seed ^ ((uint64_t)fs_mpi_rank() << 40) ^ ((uint64_t)e->epoch << 20) ^ a->index;
	uint64_t prev_end = 0;
	uint32_t k0, k1;
	bool window = fs_run_au_window(e->o->w, e->steps, &k0, &k1);
	/* wake at the deadline, not up to 50 us (the default timer slack) after it */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (!window)
		k0 = e->steps, k1 = 0; /* no step in it */
	for (uint32_t s = 0; s < e->steps; s++) {
		pthread_mutex_lock(&e->mu);
		while (a->ready == 0 && !atomic_load(&e->stop))
			pthread_cond_wait(&a->not_empty, &e->mu);
		if (atomic_load(&e->stop)) {
			pthread_mutex_unlock(&e->mu);
			break;
		}
		uint64_t ready = a->ready_ns[a->head];
		a->head = (a->head + 1) % a->cap;
		a->ready--;
		pthread_mutex_unlock(&e->mu);
		/* after the unlock: a reader woken under the lock would block on it */
		pthread_cond_signal(&e->not_full);

		uint64_t start = s == 0 ? ready : (ready > prev_end ? ready : prev_end);
		uint64_t d = compute_ns(c, &rng), end = start + d;
		/* a deadline already past (no compute time, or a late batch)
		 * is not slept for: clock_nanosleep would still sleep until a
		 * timer fired (the thread's timer slack) */
		struct timespec ts = {.tv_sec = (time_t)(end / FS_NS_PER_S), .tv_nsec = (long)(end % FS_NS_PER_S)};
		if (end > fs_now_ns())
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		/* DLIO's AU window (fs_run_au_window): steps [k0, k1]; the time
		 * counted runs from the end of step k0 - 1 (the epoch's start
		 * when k0 is 0) to the end of step k1 */
		if (s == 0 && k0 == 0)
			a->first_end_ns = e->t0;
		if (s < k0 || s > k1) {
			a->first_ns += d;
			if (s + 1 == k0)
				a->first_end_ns = end;
		} else {
			a->compute_ns += d;
			a->last_end_ns = end;
			a->window_steps++;
		}
		prev_end = end;
		atomic_fetch_add(&a->done, 1);
	}
	a->exit_ns = fs_now_ns();
	return NULL;
}

static void progress(const struct epoch *e, uint64_t t0, bool final)
{
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	uint64_t done = 0, total = (uint64_t)e->steps * e->n;
	for (unsigned i = 0; i < e->n; i++)
		done += atomic_load(&e->acc[i].done);
	double el = (fs_now_ns() - t0) / 1e9, rate = el > 0 ? done * e->batch / el : 0;
	char r[32], left[32];
	fs_fmt_sig3(r, sizeof r, rate);
	if (done > 0)
		fs_fmt_time(left, sizeof left, el * (double)(total - done) / done);
	else
		snprintf(left, sizeof left, "?");
	fprintf(stderr, "\r\033[Kepoch %u/%u: %llu/%llu steps, %s samples/s, %s left", e->epoch + 1,
		e->o->w->epochs, (unsigned long long)done, (unsigned long long)total, r, left);
	fflush(stderr);
}

/* Start the threads of one epoch, wait for them. Returns 0 or -1 (why). */
static int run_threads(struct epoch *e)
{
	const struct fs_run_opts *o = e->o;
	unsigned rt = o->w->read_threads ? o->w->read_threads : 1;
	unsigned cap = (o->w->prefetch ? o->w->prefetch : 2) * rt;
	e->acc = calloc(e->n, sizeof *e->acc);
	e->nrd = e->n * rt;
	e->rd = calloc(e->nrd, sizeof *e->rd);
	if (!e->acc || !e->rd)
		return snprintf(e->why, sizeof e->why, "out of memory"), -1;
	for (unsigned i = 0; i < e->n; i++) {
		struct accel *a = &e->acc[i];
		pthread_cond_init(&a->not_empty, NULL);
		a->cap = cap;
		a->index = i;
		a->e = e;
		a->ready_ns = calloc(cap, sizeof *a->ready_ns);
		if (!a->ready_ns)
			return snprintf(e->why, sizeof e->why, "out of memory"), -1;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	unsigned started_a = 0, started_r = 0;
	int rc = 0;
	for (; started_a < e->n; started_a++)
		if ((rc = pthread_create(&e->acc[started_a].tid, &attr, accel_main, &e->acc[started_a])))
			break;
	for (unsigned i = 0; rc == 0 && i < e->nrd; i++, started_r++) {
		struct reader *r = &e->rd[i];
		r->e = e;
		fs_hist_init(&r->lat);
		if ((rc = pthread_create(&r->tid, &attr, fs_run_reader_main, r)))
			break;
	}
	pthread_attr_destroy(&attr);
	if (rc) {
		char n[32];
		snprintf(n, sizeof n, "%u", e->n + e->nrd);
		fs_run_fail(e, "cannot start %s threads: %s", n, strerror(rc));
	}
	/* every thread exists: the readers start together (creating hundreds of
	 * threads on a busy core would otherwise stagger the accelerators) */
	fs_mpi_barrier();
	pthread_mutex_lock(&e->go_mu);
	e->go = true;
	e->t0 = fs_now_ns();
	pthread_cond_broadcast(&e->go_cv);
	pthread_mutex_unlock(&e->go_mu);
	uint64_t t0 = e->t0;
	if (!rc) { /* watch: the progress line, and an interrupt */
		uint64_t total = (uint64_t)e->steps * e->n, done, next_show = 0;
		do {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
			if (fs_bench_interrupt && !atomic_load(&e->stop)) {
				e->interrupted = true;
				stop_all(e);
			}
			if (o->progress && fs_now_ns() >= next_show) {
				progress(e, t0, false);
				next_show = fs_now_ns() + 250 * 1000 * 1000;
			}
			done = 0;
			for (unsigned i = 0; i < e->n; i++)
				done += atomic_load(&e->acc[i].done);
		} while (done < total && !atomic_load(&e->stop));
		if (o->progress)
			progress(e, t0, true);
	}
	/* the epoch ends when its last thread does, not when this loop (which
	 * looks every 100 ms) sees it */
	e->t1 = 0;
	for (unsigned i = 0; i < started_r; i++) {
		pthread_join(e->rd[i].tid, NULL);
		e->t1 = e->rd[i].exit_ns > e->t1 ? e->rd[i].exit_ns : e->t1;
	}
	for (unsigned i = 0; i < started_a; i++) {
		pthread_join(e->acc[i].tid, NULL);
		e->t1 = e->acc[i].exit_ns > e->t1 ? e->acc[i].exit_ns : e->t1;
	}
	if (rc || e->t1 < e->t0)
		e->t1 = fs_now_ns();
	return e->why[0] ? -1 : 0;
}

static void free_threads(struct epoch *e)
{
	for (unsigned i = 0; e->acc && i < e->n; i++) {
		pthread_cond_destroy(&e->acc[i].not_empty);
		free(e->acc[i].ready_ns);
	}
	free(e->acc);
	free(e->rd);
	e->acc = NULL;
	e->rd = NULL;
}

/* Samples this rank's plan gives each accelerator: whole batches. */
static uint32_t plan_steps(const struct fs_run_plan *p, unsigned n, unsigned batch)
{
	uint64_t s = p->nsamples / ((uint64_t)n * batch);
	return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

uint32_t fs_run_steps(const struct fs_run_opts *o)
{
	struct fs_run_plan p;
	if (fs_run_plan_build(&p, o->ds, o->w, 0, fs_mpi_rank(), fs_mpi_size()) < 0)
		return 0;
	double s = plan_steps(&p, o->accelerators, o->w->batch_size);
	fs_run_plan_free(&p);
	fs_mpi_min_double(&s, 1);
	if (o->steps && p.nsamples > 0)
		return o->steps;
	if (o->w->total_training_steps && o->w->total_training_steps < s)
		return o->w->total_training_steps;
	return (uint32_t)s;
}

/* This rank's figures of epoch e into out, then reduced over the ranks. */
static void epoch_stats(const struct epoch *e, double dur_s, struct fs_run_epoch *out, double rec_bytes)
{
	memset(out, 0, sizeof *out);
	fs_hist_init(&out->lat);
	double au_sum = 0, au_n = 0, compute = 0, all = 0, window_sps = 0;
	for (unsigned i = 0; i < e->n; i++) {
		const struct accel *a = &e->acc[i];
		compute += a->compute_ns / 1e9;
		all += (a->compute_ns + a->first_ns) / 1e9;
		if (a->compute_ns > 0 && a->last_end_ns > a->first_end_ns) {
			double window_s = (double)(a->last_end_ns - a->first_end_ns) / 1e9;
			au_sum += a->compute_ns / 1e9 / window_s;
			au_n++;
			/* DLIO's per-rank throughput: the window's samples over the window's time */
			window_sps += (double)a->window_steps * e->batch / window_s;
		}
	}
	uint64_t u[4] = {0, 0, 0, 0};
	for (unsigned i = 0; i < e->nrd; i++) {
		const struct reader *r = &e->rd[i];
		u[0] += r->samples;
		u[1] += r->reads;
		u[2] += r->read_bytes;
		u[3] += r->sample_bytes;
		fs_hist_merge(&out->lat, &r->lat);
	}
	/* samples delivered = samples read (every batch built was taken) */
	double io_s = e->io_ns / 1e9;
	double d[9] = {au_sum, au_n, compute, dur_s > 0 ? u[0] / dur_s : 0, dur_s > 0 ? u[2] / dur_s : 0, all,
		       window_sps, io_s > 0 ? u[1] / io_s : 0, io_s > 0 ? u[2] / io_s : 0};
	fs_mpi_sum_double(d, 9);
	fs_mpi_sum_u64(u, 4);
	fs_mpi_sum_u64(&out->lat.count, 2); /* count, sum */
	fs_mpi_sum_u64(out->lat.b, FS_HIST_BUCKETS);
	double mm[2] = {out->lat.count ? (double)out->lat.min : INFINITY, (double)out->lat.max};
	double lo = mm[0], hi = mm[1], dmax = dur_s;
	fs_mpi_min_double(&lo, 1);
	fs_mpi_max_double(&hi, 1);
	fs_mpi_max_double(&dmax, 1);
	fs_mpi_max_double(&io_s, 1);
	out->lat.min = isfinite(lo) ? (uint64_t)lo : 0;
	out->lat.max = (uint64_t)hi;
	out->au = d[1] > 0 ? d[0] / d[1] : NAN;
	out->busy = dmax > 0 ? d[5] / ((double)e->n * fs_mpi_size() * dmax) : NAN;
	out->steps = e->steps;
	out->samples = u[0];
	out->reads = u[1];
	out->read_bytes = u[2];
	out->sample_bytes = u[3];
	out->duration_s = dmax;
	out->compute_s = d[2];
	out->samples_per_s = d[3];
	out->read_bytes_per_s = d[4];
	out->io_s = io_s;
	out->io_reads_per_s = d[7];
	out->io_bytes_per_s = d[8];
	out->nominal_bytes_per_s = d[3] * rec_bytes;
	out->window_samples_per_s = d[1] > 0 ? d[6] : NAN;
}

/* The epoch's locks and condition variables: made (init) or destroyed. */
static void epoch_sync(struct epoch *e, bool init)
{
	pthread_mutex_t *mu[] = {&e->err_mu, &e->go_mu, &e->mu, &e->io_mu};
	pthread_cond_t *cv[] = {&e->not_full, &e->go_cv};
	for (size_t i = 0; i < sizeof mu / sizeof *mu; i++)
		init ? pthread_mutex_init(mu[i], NULL) : pthread_mutex_destroy(mu[i]);
	for (size_t i = 0; i < sizeof cv / sizeof *cv; i++)
		init ? pthread_cond_init(cv[i], NULL) : pthread_cond_destroy(cv[i]);
}

/* Whether this or any other rank failed (collective); why says so for a
 * rank that did not fail itself. */
static bool any_failed(bool failed, char *why, size_t whylen)
{
	double f = failed;
	fs_mpi_max_double(&f, 1);
	if (f > 0 && !failed)
		snprintf(why, whylen, "another MPI rank failed");
	return f > 0;
}

int fs_bench_run(const struct fs_run_opts *o, struct fs_run_result *r, char *why, size_t whylen)
{
	memset(r, 0, sizeof *r);
	const struct fs_workload *w = o->w;
	r->accelerators = o->accelerators;
	r->ranks = fs_mpi_size();
	r->epochs = w->epochs;
	r->au_threshold = w->au_threshold;
	r->epoch = calloc(w->epochs ? w->epochs : 1, sizeof *r->epoch);
	const struct fs_io_engine_ops *eng = fs_io_engine_find(o->engine);
	if (!r->epoch || !eng) {
		snprintf(why, whylen, !eng ? "unknown engine %s" : "out of memory", o->engine);
		return -1;
	}
	int dirfd = fs_bench_dir_open(o->dir);
	int *fds = NULL;
	if (dirfd < 0)
		snprintf(why, whylen, "%s: %s", o->dir, strerror(errno));
	else
		fds = fs_run_open_all(o, dirfd, why, whylen);
	if (any_failed(!fds, why, whylen)) { /* every rank stops together */
		fs_run_close_all(o->ds, fds);
		if (dirfd >= 0)
			close(dirfd);
		return -1;
	}
	uint64_t biggest = 0;
	for (uint32_t i = 0; i < o->ds->nfiles; i++)
		for (uint32_t j = 0; j < o->ds->files[i].nrecs; j++)
			if (o->ds->files[i].recs[j].length > biggest)
				biggest = o->ds->files[i].recs[j].length;
	size_t slot = (biggest + 2 * ALIGN - 1) & ~(uint64_t)(ALIGN - 1); /* room for the alignment of O_DIRECT */
	if (slot > BLOCK_BYTES)
		slot = BLOCK_BYTES;
	double rec_bytes = (double)w->record_length_bytes;
	double tot_samples_local = 0, tot_bytes_local = 0, tot_dur_local = 0, tot_reads_local = 0, tot_io_local = 0;
	int rc = 0;
	for (uint32_t ep = 0; ep < w->epochs && rc == 0 && !r->interrupted; ep++) {
		struct epoch e = {.o = o, .eng = eng, .fds = fds, .dirfd = dirfd, .epoch = ep, .n = o->accelerators,
				  .batch = w->batch_size, .slot_bytes = slot};
		epoch_sync(&e, true);
		if (fs_run_plan_build(&e.plan, o->ds, w, ep, fs_mpi_rank(), fs_mpi_size()) < 0) {
			snprintf(why, whylen, "out of memory");
			rc = -1;
			break;
		}
		double have = plan_steps(&e.plan, e.n, e.batch);
		fs_mpi_min_double(&have, 1);
		e.steps = (uint32_t)have;
		if (w->total_training_steps && w->total_training_steps < e.steps)
			e.steps = w->total_training_steps;
		if (o->steps) {
			r->wrapped |= o->steps > e.steps;
			e.steps = o->steps;
		}
		if (e.steps == 0 || e.plan.nsamples == 0) {
			snprintf(why, whylen, "the dataset's samples do not fill one batch of %u for each of %u accelerators",
				 e.batch, e.n);
			rc = -1;
		}
		if (rc == 0) {
			rc = run_threads(&e);
			double dur = e.t1 > e.t0 ? (e.t1 - e.t0) / 1e9 : 0;
			fs_mpi_barrier();
			if (rc < 0)
				snprintf(why, whylen, "%s", e.why);
			if (any_failed(rc < 0, why, whylen))
				rc = -1;
			else
				epoch_stats(&e, dur, &r->epoch[ep], rec_bytes);
			if (rc == 0 && e.interrupted) { /* keep this epoch's partial figures, skip the rest */
				uint64_t done = 0;
				for (unsigned i = 0; i < e.n; i++)
					done += atomic_load(&e.acc[i].done);
				/* (one rank: an interrupt is never taken under MPI) */
				r->epoch[ep].steps = (uint32_t)(done / e.n);
				r->interrupted = true;
				r->epochs = ep + 1;
			}
			for (unsigned i = 0; i < e.nrd; i++) {
				tot_samples_local += e.rd[i].samples;
				tot_bytes_local += e.rd[i].read_bytes;
				tot_reads_local += e.rd[i].reads;
			}
			tot_dur_local += dur;
			tot_io_local += e.io_ns / 1e9;
		}
		free_threads(&e);
		fs_run_plan_free(&e.plan);
		epoch_sync(&e, false);
	}
	fs_run_close_all(o->ds, fds);
	close(dirfd);
	if (rc < 0)
		return -1;

	struct fs_run_epoch *t = &r->total;
	fs_hist_init(&t->lat);
	double au_sum = 0, busy_s = 0, wsps_sum = 0;
	int au_n = 0, wsps_n = 0;
	for (uint32_t ep = 0; ep < r->epochs; ep++) {
		const struct fs_run_epoch *x = &r->epoch[ep];
		if (!isnan(x->busy))
			busy_s += x->busy * x->duration_s;
		if (!isnan(x->au))
			au_sum += x->au, au_n++;
		if (!isnan(x->window_samples_per_s))
			wsps_sum += x->window_samples_per_s, wsps_n++;
		t->steps += x->steps;
		t->samples += x->samples;
		t->reads += x->reads;
		t->read_bytes += x->read_bytes;
		t->sample_bytes += x->sample_bytes;
		t->duration_s += x->duration_s;
		t->io_s += x->io_s;
		t->compute_s += x->compute_s;
		fs_hist_merge(&t->lat, &x->lat);
	}
	double rates[4] = {tot_dur_local > 0 ? tot_samples_local / tot_dur_local : 0,
			   tot_dur_local > 0 ? tot_bytes_local / tot_dur_local : 0,
			   tot_io_local > 0 ? tot_reads_local / tot_io_local : 0,
			   tot_io_local > 0 ? tot_bytes_local / tot_io_local : 0};
	fs_mpi_sum_double(rates, 4);
	t->au = au_n ? au_sum / au_n : NAN;
	t->window_samples_per_s = wsps_n ? wsps_sum / wsps_n : NAN; /* DLIO's mean over epochs */
	t->busy = t->duration_s > 0 ? busy_s / t->duration_s : NAN;
	t->samples_per_s = rates[0];
	t->read_bytes_per_s = rates[1];
	t->io_reads_per_s = rates[2];
	t->io_bytes_per_s = rates[3];
	t->nominal_bytes_per_s = rates[0] * rec_bytes;
	r->passed = !isnan(t->au) && t->au >= r->au_threshold;
	return 0;
}

void fs_run_result_free(struct fs_run_result *r)
{
	free(r->epoch);
	r->epoch = NULL;
}
