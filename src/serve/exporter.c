/* exporter.c - the exporter's threads (exporter.h): the HTTP server, the
 * reader of the run files' totals (and of a runs directory), the verdict
 * of the latest window, the machine's sampler.
 *
 * The jobs: added and removed by the reader alone (or before the start),
 * under mu; so the reader reads the list without it, the others under it.
 * A job whose file went away is marked gone (no longer shown) and freed by
 * the reader once the verdict thread is not using it (busy). */
#include "serve/exporter.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare/merge.h"
#include "analysis/load/query.h"
#include "analysis/load/tally.h"
#include "render/exporter_node.h"
#include "render/exporter_page.h"
#include "render/openmetrics.h"
#include "serve/httpd.h"
#include "serve/nodesample.h"
#include "serve/runfile.h"
#include "serve/runsdir.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/text.h"

#define PAGE_MAX_BYTES (16u << 20)

struct job {
	char path[4096], name[256];
	/* the reader's own */
	struct fs_tally t;
	bool opened, done;
	int fails;           /* refreshes failed in a row */
	uint64_t retry_ns;   /* the next try after a failure (back-off) */
	bool said;           /* its failure was said (once, until it is read again) */
	/* the verdict thread's own */
	uint64_t verdict_ns, verdict_cost_ns; /* the last one: when, and its CPU time */
	double verdict_rec_s;
	/* under mu */
	bool gone;                  /* its file went away: not shown, freed when not busy */
	bool busy;                  /* the verdict thread is reading it */
	bool up, caught_up;
	struct fs_tally_data snap;
	struct fs_exporter_verdict v;
};

struct fs_exporter {
	struct fs_httpd *h;
	struct fs_exporter_opts o;
	int njobs;
	struct job *jobs[FS_EXPORTER_MAX_JOBS];
	struct fs_runsdir *runs;     /* the reader's own; NULL: none watched */
	struct fs_nodesample *ns;    /* the sampler thread's own; NULL: no machine figures */
	struct fs_nodestat node;     /* its latest figures, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stopping;
	int nthreads;
	pthread_t th[3];
};

void fs_exporter_job_name(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	const char *partial = strstr(base, ".partial-");
	if (partial && strspn(partial + 9, "0123456789") == strlen(partial + 9) && partial[9])
		n = (size_t)(partial - base);
	if (n > 3 && !strncmp(base + n - 3, ".db", 3))
		n -= 3;
	snprintf(out, cap, "%.*s", (int)n, base);
}

struct fs_exporter *fs_exporter_new(const char *listen, const struct fs_exporter_opts *o, char *err, size_t errlen)
{
	struct fs_exporter *x = calloc(1, sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->o = *o;
	/* connections never take the descriptors the reader, the verdict and
	 * the sampler need: under a low `ulimit -n` fewer are held (the others
	 * wait in the backlog) */
	struct fs_httpd_limits lim = FS_HTTPD_LIMITS_DEFAULT;
#ifdef FS_HTTPD_BENCH_LIMITS /* bench/exporter_http.sh builds the alternatives measured */
	lim = (struct fs_httpd_limits)FS_HTTPD_BENCH_LIMITS;
#endif
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)lim.max_conns + FS_EXPORTER_FD_RESERVE) {
		lim.max_conns = rl.rlim_cur > FS_EXPORTER_FD_RESERVE + 2 ? (unsigned)(rl.rlim_cur - FS_EXPORTER_FD_RESERVE) : 2;
		if (lim.per_client > lim.max_conns)
			lim.per_client = lim.max_conns;
	}
	if (!(x->h = fs_httpd_listen(listen, &lim, err, errlen))) {
		free(x);
		return NULL;
	}
	pthread_mutex_init(&x->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&x->cv, &ca);
	pthread_condattr_destroy(&ca);
	return x;
}

const char *fs_exporter_addr(const struct fs_exporter *x)
{
	return fs_httpd_addr(x->h);
}

int fs_exporter_add(struct fs_exporter *x, const char *path, const char *job)
{
	struct job *j = x->njobs < FS_EXPORTER_MAX_JOBS ? calloc(1, sizeof *j) : NULL;
	if (!j)
		return -1;
	snprintf(j->path, sizeof j->path, "%s", path);
	snprintf(j->name, sizeof j->name, "%s", job);
	j->v.valid = false;
	pthread_mutex_lock(&x->mu);
	x->jobs[x->njobs++] = j;
	pthread_mutex_unlock(&x->mu);
	return 0;
}

bool fs_exporter_has_job(const struct fs_exporter *x, const char *job)
{
	for (int i = 0; i < x->njobs; i++)
		if (!x->jobs[i]->gone && !strcmp(x->jobs[i]->name, job))
			return true;
	return false;
}

int fs_exporter_watch(struct fs_exporter *x, const char *dir)
{
	fs_runsdir_free(x->runs);
	return (x->runs = fs_runsdir_new(dir, FS_EXPORTER_MAX_JOBS)) ? 0 : -1;
}

int fs_exporter_node(struct fs_exporter *x, char *err, size_t errlen)
{
	if (x->ns)
		return 0;
	fs_nodestat_init(&x->node);
	return (x->ns = fs_nodesample_open(err, errlen)) ? 0 : -1;
}

static void reap(struct fs_exporter *x);

/* The runs directory's add(): path served if it opens as a run file (the
 * reader's thread). */
static int watch_add(void *arg, const char *path, char *why, size_t whylen)
{
	struct fs_exporter *x = arg;
	char err[600], job[256], name[300];
	struct fs_q q;
	fs_runfile_set_deadline(fs_now_ns() + (uint64_t)FS_EXPORTER_FILE_DEADLINE_MS * 1000000u);
	int rc = fs_runfile_open(&q, path, NULL, err, sizeof err);
	fs_runfile_set_deadline(0);
	if (rc < 0) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	fs_q_close(&q);
	pthread_mutex_lock(&x->mu);
	reap(x); /* the jobs just dropped make room */
	pthread_mutex_unlock(&x->mu);
	fs_exporter_job_name(path, job, sizeof job);
	snprintf(name, sizeof name, "%s", job);
	for (int k = 2; fs_exporter_has_job(x, name); k++)
		snprintf(name, sizeof name, "%s-%d", job, k);
	if (fs_exporter_add(x, path, name) == 0)
		return 0;
	snprintf(why, whylen, "at most %d run files are served", FS_EXPORTER_MAX_JOBS);
	return -1;
}

/* The runs directory's drop(): path's job is gone (the reader's thread). */
static void watch_drop(void *arg, const char *path)
{
	struct fs_exporter *x = arg;
	for (int i = 0; i < x->njobs; i++) {
		struct job *j = x->jobs[i];
		if (j->gone || strcmp(j->path, path))
			continue;
		fs_tally_close(&j->t);
		pthread_mutex_lock(&x->mu);
		j->gone = true;
		pthread_mutex_unlock(&x->mu);
	}
}

/* Free the gone jobs the verdict thread is not reading (the reader's
 * thread, holding mu). */
static void reap(struct fs_exporter *x)
{
	int n = 0;
	for (int i = 0; i < x->njobs; i++) {
		struct job *j = x->jobs[i];
		if (j->gone && !j->busy)
			free(j);
		else
			x->jobs[n++] = j;
	}
	x->njobs = n;
}

/* Sleep up to ms, or until stopping; returns whether stopping. Holds mu. */
static bool wait_ms(struct fs_exporter *x, long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!x->stopping && pthread_cond_timedwait(&x->cv, &x->mu, &ts) == 0)
		;
	return x->stopping;
}

static void lower_priority(void)
{
	/* Linux: a thread's nice value is its own (setpriority on its tid) */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
}

/* The reader's way into a run file (tally's opener): once, safely, within
 * the deadline set for the file (serve/runfile.h). */
static int open_guarded(void *arg, struct fs_q *q, const char *path, char *err, size_t errlen)
{
	(void)arg;
	return fs_runfile_open(q, path, NULL, err, errlen);
}

/* Say a file's failure once (until it is read again). */
static void say_failed(struct job *j, const char *err)
{
	char shown[1024], why[1024];
	if (j->said)
		return;
	j->said = true;
	fs_warn("exporter: %s: not read (%s): feedscope_run_file_up 0 until it is; tried again with a back-off",
		fs_text_escape(shown, sizeof shown, j->path), fs_text_escape(why, sizeof why, err));
}

/* One refresh of j, within FS_EXPORTER_FILE_DEADLINE_MS: 1 when it has
 * more to read at once, 0 when done, -1 failed (it is then marked down and
 * tried again after a back-off). */
static int refresh(struct fs_exporter *x, struct job *j, uint64_t now)
{
	char err[512];
	fs_runfile_set_deadline(now + (uint64_t)FS_EXPORTER_FILE_DEADLINE_MS * 1000000u);
	int64_t before = 0;
	for (size_t k = 0; k < sizeof j->t.last_rowid / sizeof *j->t.last_rowid; k++)
		before += j->t.last_rowid[k];
	int rc = -1;
	if (!j->opened)
		j->opened = fs_tally_open_with(&j->t, j->path, open_guarded, NULL, err, sizeof err) == 0;
	if (j->opened) {
		rc = fs_tally_update(&j->t, err, sizeof err);
		fs_tally_release(&j->t); /* the file is not held open between updates (tally.h) */
		int64_t after = 0;
		for (size_t k = 0; k < sizeof j->t.last_rowid / sizeof *j->t.last_rowid; k++)
			after += j->t.last_rowid[k];
		if (rc < 0 && after > before)
			rc = 1; /* stopped at the deadline with rows read: go on at once */
	}
	fs_runfile_set_deadline(0);
	if (rc >= 0) {
		j->fails = 0;
		j->retry_ns = 0;
		j->said = false;
		j->done = rc == 0 && j->t.d.complete;
	} else {
		j->fails++;
		int shift = j->fails < 6 ? j->fails - 1 : 5; /* 1, 2, 4 ... 32 s */
		j->retry_ns = fs_now_ns() + ((uint64_t)1 << shift) * FS_NS_PER_S;
		say_failed(j, err);
	}
	pthread_mutex_lock(&x->mu);
	j->up = rc >= 0;
	j->caught_up = rc == 0;
	if (rc >= 0)
		j->snap = j->t.d;
	pthread_mutex_unlock(&x->mu);
	return rc;
}

/* The reader: each run file's new rows, once a second (at once while a
 * file has more than a batch waiting). Each file on its own, within its
 * deadline: a locked, slow or broken file is marked down for that refresh
 * and the others still refresh. */
static void *reader(void *arg)
{
	struct fs_exporter *x = arg;
	lower_priority();
	fs_runfile_guard_thread();
	pthread_mutex_lock(&x->mu);
	while (!x->stopping) {
		pthread_mutex_unlock(&x->mu);
		uint64_t round = fs_now_ns();
		if (x->runs)
			fs_runsdir_scan(x->runs, watch_add, watch_drop, x, round);
		bool more = false;
		for (int i = 0; i < x->njobs; i++) {
			struct job *j = x->jobs[i];
			uint64_t now = fs_now_ns();
			if (j->gone || (j->opened && j->done) || (j->retry_ns && now < j->retry_ns))
				continue;
			more |= refresh(x, j, now) == 1;
		}
		pthread_mutex_lock(&x->mu);
		reap(x);
		if (more)
			continue;
		/* a round a second, whatever this one took (at least 100 ms apart) */
		uint64_t spent = (fs_now_ns() - round) / 1000000u;
		wait_ms(x, spent < 900 ? (long)(1000 - spent) : 100);
	}
	pthread_mutex_unlock(&x->mu);
	for (int i = 0; i < x->njobs; i++)
		fs_tally_close(&x->jobs[i]->t);
	return NULL;
}

/* The machine's sampler: a sample a second, on a fixed grid from the
 * first; the figures published under mu as a whole, so a page shows one
 * sample's. */
static void *sampler(void *arg)
{
	struct fs_exporter *x = arg;
	lower_priority();
	uint64_t start = fs_now_ns(), every = (uint64_t)(FS_NODESAMPLE_INTERVAL_S * 1e9);
	pthread_mutex_lock(&x->mu);
	for (uint64_t k = 0; !x->stopping; k++) {
		pthread_mutex_unlock(&x->mu);
		uint64_t now = fs_now_ns();
		if (now > start + k * every + every)
			k = (now - start) / every; /* overran (a stopped VM): skip the missed ones */
		const struct fs_nodestat *st = fs_nodesample_take(x->ns, (double)(now - start) / 1e9);
		pthread_mutex_lock(&x->mu);
		x->node = *st;
		now = fs_now_ns();
		uint64_t next = start + (k + 1) * every;
		if (next > now)
			wait_ms(x, (long)((next - now + 999999) / 1000000));
	}
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* The analysis of `feedscope report --window` over the window that ends
 * at rec_s: 0 and v filled, or -1 (the file not readable as a whole yet). */
static int verdict_of(const struct job *j, const struct fs_exporter_opts *o, double rec_s, struct fs_merge_file *f,
		      struct fs_merged *g, struct fs_exporter_verdict *v)
{
	char err[600];
	struct fs_window w = {o->verdict_window_s > 0 ? fmax(0, rec_s - o->verdict_window_s) : -INFINITY, INFINITY};
	int rc = -1;
	if (fs_merge_head(j->path, f, err, sizeof err) == 0 && strcmp(f->mode, "bench") &&
	    fs_merge_load(f, &w, err, sizeof err) == 0 && fs_merge(f, 1, &w, g) == 0) {
		memset(v, 0, sizeof *v);
		v->valid = true;
		snprintf(v->primary, sizeof v->primary, "%s", fs_verdict_name(g->v.primary));
		snprintf(v->basis, sizeof v->basis, "%s", g->v.basis);
		v->confidence = g->v.confidence;
		v->input_bound = g->v.input_bound_fraction;
		v->accelerator_idle = g->v.accelerator_idle_fraction;
		const struct fs_accounting *a = fs_verdict_trainer(&g->v);
		v->have_shares = a && a->valid;
		for (int b = 0; v->have_shares && b < FS_BUCKET__N; b++)
			v->share[b] = a->share[b];
		v->window_s = o->verdict_window_s > 0 ? fmin(o->verdict_window_s, rec_s) : rec_s;
		v->at_s = rec_s;
		rc = 0;
	}
	fs_merge_file_free(f);
	return rc;
}

/* The verdict thread: a file's verdict when it has news, at most every
 * verdict_every_s, and at most every 10 × what the last one cost in CPU
 * (the analysis reads whole tables: on a long run it is dear, and it shares
 * the machine with the recorder: at most 10% of a core); a file being
 * caught up on waits until it is. */
static void *verdicts(void *arg)
{
	struct fs_exporter *x = arg;
	lower_priority();
	fs_runfile_guard_thread(); /* its opens: non-blocking, regular files only */
	struct fs_merge_file *f = malloc(sizeof *f);
	struct fs_merged *g = malloc(sizeof *g);
	pthread_mutex_lock(&x->mu);
	while (f && g && !x->stopping) {
		/* i may skip or repeat a job when the reader removed one meanwhile:
		 * it is seen again at the next round */
		for (int i = 0; i < x->njobs && !x->stopping; i++) {
			struct job *j = x->jobs[i];
			double rec = j->snap.recorded_s;
			uint64_t now = fs_now_ns();
			uint64_t every = (uint64_t)(x->o.verdict_every_s * 1e9);
			if (every < 10 * j->verdict_cost_ns)
				every = 10 * j->verdict_cost_ns;
			if (j->gone || !j->up || !j->caught_up || rec <= 0 || rec == j->verdict_rec_s ||
			    (j->verdict_ns && now - j->verdict_ns < every))
				continue;
			j->busy = true;
			pthread_mutex_unlock(&x->mu);
			struct fs_exporter_verdict v;
			uint64_t cpu0 = fs_thread_cpu_ns();
			int rc = verdict_of(j, &x->o, rec, f, g, &v);
			j->verdict_cost_ns = fs_thread_cpu_ns() - cpu0;
			pthread_mutex_lock(&x->mu);
			j->busy = false;
			j->verdict_ns = now;
			j->verdict_rec_s = rec;
			if (rc == 0)
				j->v = v;
		}
		wait_ms(x, 1000);
	}
	pthread_mutex_unlock(&x->mu);
	free(f);
	free(g);
	return NULL;
}

static char *dup_text(const char *s, size_t *len)
{
	*len = strlen(s);
	char *b = malloc(*len + 1);
	if (b)
		memcpy(b, s, *len + 1);
	return b;
}

/* The server's handler: /metrics from what the other threads keep. */
static void handle(void *arg, const struct fs_http_req *req, struct fs_http_resp *r)
{
	struct fs_exporter *x = arg;
	r->content_type = "text/plain; charset=utf-8";
	if (req->method == FS_HTTP_OTHER) {
		r->status = 405;
		r->allow = "GET, HEAD";
		r->body = dup_text("Method Not Allowed: GET or HEAD\n", &r->len);
		return;
	}
	if (!strcmp(req->path, "/")) {
		r->status = 200;
		r->body = dup_text(x->ns ? "feedscope exporter\n\n/metrics  the machine's and the run files' metrics (Prometheus "
					   "text, or OpenMetrics when asked with Accept: application/openmetrics-text)\n"
					 : "feedscope exporter\n\n/metrics  the run files' metrics (Prometheus text, or OpenMetrics when "
					   "asked with Accept: application/openmetrics-text)\n",
				   &r->len);
		return;
	}
	if (strcmp(req->path, "/metrics")) {
		r->status = 404;
		r->body = dup_text("Not Found: try /metrics\n", &r->len);
		return;
	}
	struct fs_httpd_stats s;
	fs_httpd_stats(x->h, &s);
	/* this request counts once answered: said now */
	struct fs_exporter_counters c = {s.connections, s.refused, s.timed_out, s.requests + 1, s.bad_requests};
	struct fs_exporter_job views[FS_EXPORTER_MAX_JOBS];
	struct fs_om o;
	fs_om_init(&o, req->openmetrics, PAGE_MAX_BYTES);
	int n = 0;
	pthread_mutex_lock(&x->mu);
	for (int i = 0; i < x->njobs; i++)
		if (!x->jobs[i]->gone)
			views[n++] = (struct fs_exporter_job){x->jobs[i]->name, x->jobs[i]->up, &x->jobs[i]->snap, &x->jobs[i]->v};
	fs_exporter_page(&o, views, n, &c);
	if (x->ns)
		fs_exporter_node_page(&o, &x->node);
	pthread_mutex_unlock(&x->mu);
	r->body = fs_om_finish(&o, &r->len);
	r->status = r->body ? 200 : 500;
	r->content_type = fs_om_content_type(req->openmetrics);
}

/* Stop and join the threads started (none: nothing to do). */
static void stop(struct fs_exporter *x)
{
	if (!x->nthreads)
		return;
	pthread_mutex_lock(&x->mu);
	x->stopping = true;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	for (int i = 0; i < x->nthreads; i++)
		pthread_join(x->th[i], NULL);
	x->nthreads = 0;
}

int fs_exporter_start(struct fs_exporter *x, char *err, size_t errlen)
{
	/* the threads start with every signal blocked: signals are the
	 * recorder's (signalfd) or the command's (sigwait) to take */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	void *(*fn[3])(void *) = {reader, verdicts, sampler};
	int want = x->ns ? 3 : 2, e = 0;
	while (x->nthreads < want && (e = pthread_create(&x->th[x->nthreads], NULL, fn[x->nthreads], x)) == 0)
		x->nthreads++;
	int rc = x->nthreads == want ? fs_httpd_start(x->h, handle, x, err, errlen) : -1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (x->nthreads < want)
		snprintf(err, errlen, "cannot start a thread: %s", strerror(e));
	if (rc < 0)
		stop(x);
	return rc;
}

void fs_exporter_free(struct fs_exporter *x)
{
	if (!x)
		return;
	fs_httpd_free(x->h); /* no request is being answered after this */
	stop(x);
	fs_runsdir_free(x->runs);
	fs_nodesample_close(x->ns);
	for (int i = 0; i < x->njobs; i++)
		free(x->jobs[i]);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
}
