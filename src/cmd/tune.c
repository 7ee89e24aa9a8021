/* tune - run a PyTorch job several times with different DataLoader
 * settings, each trial recorded by `feedscope run --pytorch` and measured
 * over its steady state; the next trial is the one the best trial's
 * verdict points to (analysis/tune/: trial.h reads a trial, plan.h says
 * how every trial is measured, tune.h searches; docs/tune.md). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/thresholds.h"
#include "analysis/tune/knobs.h"
#include "analysis/tune/plan.h"
#include "analysis/tune/trial.h"
#include "analysis/tune/tune.h"
#include "analysis/tune/window.h"
#include "cmd/cmd.h"
#include "record/jobenv.h"
#include "record/session.h"
#include "render/tune.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/safefile.h"
#include "util/text.h"

static const char usage_text[] =
	"usage: feedscope tune [OPTIONS] -- python TRAIN.py [ARGS...]\n"
	"\n"
	"Find the DataLoader settings that feed the job fastest, by measuring them: run\n"
	"the job several times (trials), each under `feedscope run --pytorch` with the\n"
	"DataLoader's keyword arguments overridden by the hook (never the dataset, the\n"
	"model, or the batch size unless --knobs names batch_size), for --warmup steps\n"
	"and then --steps steps, after which the hook ends the job (SystemExit(0): its\n"
	"finally blocks and atexit handlers run). The first trial is the job as it is;\n"
	"each next one is what the best trial's verdict points to (more workers for\n"
	"late input with idle cores or slow storage, persistent workers for costly\n"
	"epoch starts, ...). It stops when a trial gains less than the gain needed\n"
	"(3%, or two standard errors of the trials' step times where they vary more),\n"
	"when no loader setting relieves the cause, or when the budget is spent. A\n"
	"change is recommended only when its trial is faster than the baseline by the\n"
	"gain needed, and so is a second run of its setting than a second run of the\n"
	"baseline, made last; else it says \"no change recommended\".\n"
	"\n"
	"Side effects are the job's own: each trial runs its first steps for real\n"
	"(files it writes, checkpoints, logs, network calls). Pass a dry-run flag of\n"
	"your job with --env or in its arguments.\n"
	"\n"
	"  --steps N            steps measured per trial (default 50)\n"
	"  --warmup N           steps run before measuring, per trial (default 10)\n"
	"  --budget T           time for all trials: 30s, 10m, 1h (default 10m)\n"
	"  --knobs LIST         what may change (default num_workers,prefetch_factor,\n"
	"                       pin_memory,persistent_workers,worker_threads: torch's\n"
	"                       threads in each worker; add batch_size to allow it)\n"
	"  --max-workers N      never more DataLoader workers than N (default 4 per core,\n"
	"                       at least 8)\n"
	"  --env K=V            set K in the job's environment (repeatable)\n"
	"  -o, --output DIR     where the trials' run files and output go (a new or empty\n"
	"                       directory; default feedscope-tune-YYYYmmdd-HHMMSS)\n"
	"  -i, --interval S     sampling interval of each trial (default 0.1 s)\n"
	"      --no-gpu         do not load NVML\n"
	"      --json           the result as JSON on stdout\n"
	"  -q, --quiet          no progress on stderr\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 when the search ran (whatever it found), 2 for bad usage,\n"
	"1 when the baseline trial failed or made no DataLoader, 130 if interrupted.\n";

static const struct option long_opts[] = {
	{"steps", required_argument, NULL, 'n'},  {"warmup", required_argument, NULL, 'W'},
	{"budget", required_argument, NULL, 'b'}, {"knobs", required_argument, NULL, 'k'},
	{"env", required_argument, NULL, 'e'},    {"output", required_argument, NULL, 'o'},
	{"interval", required_argument, NULL, 'i'}, {"no-gpu", no_argument, NULL, 'G'},
	{"json", no_argument, NULL, 'J'},         {"quiet", no_argument, NULL, 'q'},
	{"max-workers", required_argument, NULL, 'M'}, {"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

#define MAX_ENV 32
#define MAX_TRIALS 64

struct opts {
	long steps, warmup;
	double budget_s;
	unsigned knobs;
	int max_workers;
	char *env[MAX_ENV];
	int nenv;
	const char *dir;
	const char *interval;   /* -i as given, passed on to run; NULL: run's default */
	double interval_s;      /* its value (run's default 0.1 s without -i) */
	bool no_gpu, json, quiet;
	char **cmd;
	int ncmd;
};

static volatile sig_atomic_t interrupted;

static double now_s(void)
{
	return (double)fs_now_ns() / 1e9;
}

static void on_signal(int sig)
{
	interrupted = sig;
}

static bool parse_count(const char *s, long min, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000)
		return false;
	*out = v;
	return true;
}

static int parse_knobs(const char *list, unsigned *out)
{
	char buf[256];
	if (strlen(list) >= sizeof buf)
		return fs_usage_error("tune: --knobs list too long");
	snprintf(buf, sizeof buf, "%s", list);
	*out = 0;
	for (char *save, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		int i = fs_tune_knob_parse(k);
		if (i < 0)
			return fs_usage_error("tune: unknown knob '%s' (num_workers, prefetch_factor, pin_memory, "
					      "persistent_workers, batch_size, worker_threads)", k);
		*out |= 1u << i;
	}
	if (!*out)
		return fs_usage_error("tune: --knobs names no knob");
	return 0;
}

static int check_env(const char *kv)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv)
		return fs_usage_error("tune: --env '%s': expected K=V", kv);
	for (const char *p = kv; p < eq; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (p > kv && *p >= '0' && *p <= '9')))
			return fs_usage_error("tune: --env '%s': a variable name is letters, digits and _", kv);
	if (!strncmp(kv, "FEEDSCOPE_", 10))
		return fs_usage_error("tune: --env '%s': FEEDSCOPE_ variables are feedscope's own", kv);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){.steps = 50, .warmup = 10, .budget_s = 600, .interval_s = 0.1,
			   .knobs = 1u << FS_KNOB_NUM_WORKERS | 1u << FS_KNOB_PREFETCH_FACTOR |
				    1u << FS_KNOB_PIN_MEMORY | 1u << FS_KNOB_PERSISTENT_WORKERS |
				    1u << FS_KNOB_WORKER_THREADS};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o->max_workers = (int)(4 * (ncpu > 0 ? ncpu : 1));
	if (o->max_workers < 8)
		o->max_workers = 8;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:o:i:qh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		case 'n':
			if (!parse_count(optarg, 5, &o->steps))
				return fs_usage_error("tune: bad --steps '%s' (a whole number, at least 5)", optarg);
			break;
		case 'W':
			if (!parse_count(optarg, 0, &o->warmup))
				return fs_usage_error("tune: bad --warmup '%s' (a whole number, 0 or more)", optarg);
			break;
		case 'b':
			if (!fs_parse_seconds(optarg, &o->budget_s))
				return fs_usage_error("tune: bad --budget '%s' (e.g. 90s, 10m, 1h)", optarg);
			break;
		case 'k':
			if (parse_knobs(optarg, &o->knobs))
				return 2;
			break;
		case 'M': {
			int m;
			if (!fs_parse_pos_int(optarg, &m) || m > 1024)
				return fs_usage_error("tune: bad --max-workers '%s' (1 to 1024)", optarg);
			o->max_workers = m;
			break;
		}
		case 'e':
			if (check_env(optarg))
				return 2;
			if (o->nenv == MAX_ENV)
				return fs_usage_error("tune: at most %d --env", MAX_ENV);
			o->env[o->nenv++] = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case 'i':
			/* the trials' run would refuse it: refused here, before any trial */
			if (!fs_parse_seconds(optarg, &o->interval_s) || o->interval_s < FS_INTERVAL_MIN_S ||
			    o->interval_s > FS_INTERVAL_MAX_S)
				return fs_usage_error("tune: bad interval '%s' (seconds, 0.001 to 3600, e.g. 0.1 or 100ms)",
						      optarg);
			o->interval = optarg;
			break;
		case 'G':
			o->no_gpu = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		default:
			return fs_bad_option("tune", opt, argv);
		}
	}
	if (optind >= argc)
		return fs_usage_error("tune: no command given (usage: feedscope tune [OPTIONS] -- python TRAIN.py ...)");
	o->cmd = argv + optind;
	o->ncmd = argc - optind;
	if (!fs_jobenv_is_python(o->cmd[0]))
		return fs_usage_error("tune: '%s' is not a Python program: tune changes the settings of a PyTorch "
				      "DataLoader through feedscope's Python hook", o->cmd[0]);
	return 0;
}

/* The trials' directory: a new one, or an empty one. */
static int make_dir(const char *want, char *out, size_t cap)
{
	if (want) {
		snprintf(out, cap, "%s", want);
		if (mkdir(out, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return fs_usage_error("tune: cannot make %s: %s", out, strerror(errno));
		int empty = fs_safefile_dir_empty(out);
		if (empty < 0)
			return fs_usage_error("tune: %s exists and cannot be opened: %s", out, strerror(errno));
		if (!empty)
			return fs_usage_error("tune: %s is not empty (the trials need a new or empty directory)", out);
		return 0;
	}
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	for (int i = 0; i < 100; i++) {
		if (i)
			snprintf(out, cap, "feedscope-tune-%s-%d", stamp, i);
		else
			snprintf(out, cap, "feedscope-tune-%s", stamp);
		if (mkdir(out, 0700) == 0)
			return 0;
		if (errno != EEXIST)
			return fs_usage_error("tune: cannot make %s: %s", out, strerror(errno));
	}
	return fs_usage_error("tune: no free directory name feedscope-tune-%s-N", stamp);
}

/* The child of one trial: its own session (feedscope run then has no
 * terminal to hand to the job: Ctrl-C reaches tune, which passes it on),
 * the job's output to the trial's log, the trial's settings in the
 * environment. */
static void trial_child(const struct opts *o, const char *self, const char *db, const char *log, const char *tune_env)
{
	setsid();
	int in = open("/dev/null", O_RDONLY);
	int fd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (in < 0 || fd < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(126);
	setenv("FEEDSCOPE_TUNE", tune_env, 1);
	for (int i = 0; i < o->nenv; i++)
		putenv(o->env[i]);
	char *argv[16 + 4096];
	int n = 0;
	argv[n++] = "feedscope";
	argv[n++] = "run";
	argv[n++] = "-q";
	argv[n++] = "--pytorch";
	argv[n++] = "--pss"; /* the workers' memory is part of what a setting costs */
	argv[n++] = "-o";
	argv[n++] = (char *)db;
	if (o->interval) {
		argv[n++] = "-i";
		argv[n++] = (char *)o->interval;
	}
	if (o->no_gpu)
		argv[n++] = "--no-gpu";
	argv[n++] = "--";
	for (int i = 0; i < o->ncmd && n < (int)(sizeof argv / sizeof *argv) - 1; i++)
		argv[n++] = o->cmd[i];
	argv[n] = NULL;
	execv(self, argv);
	fprintf(stderr, "feedscope tune: cannot execute %s: %s\n", self, strerror(errno));
	_exit(127);
}

struct progress {
	bool tty, quiet;
	double start, budget_s;
};

/* Trial t's line: while it runs (started at t0), or its result (final),
 * with its speedup over the baseline trial base (NULL: t is the baseline). */
static void progress_line(const struct progress *p, const struct fs_tune_trial *t, const struct fs_tune_trial *base,
			  double t0, double now, bool final)
{
	if (p->quiet || (!p->tty && !final))
		return;
	char k[200], a[32], b[32], shown[400];
	fs_tune_knobs_text(&t->asked, k, sizeof k);
	fprintf(stderr, "%stune: trial %d (%s): ", p->tty ? "\r\033[K" : "", t->id, fs_text_escape(shown, sizeof shown, k));
	if (!final)
		fprintf(stderr, "running, %s; budget left %s", fs_fmt_time(a, sizeof a, now - t0),
			fs_fmt_time(b, sizeof b, fmax(0, p->budget_s - (now - p->start))));
	else if (!strcmp(t->status, "ok") && base)
		fprintf(stderr, "%s a step (%.2f× the baseline), input wait %.0f%%, %s\n", fs_fmt_time(a, sizeof a, t->step_s),
			fs_tune_speedup(base, t), 100 * t->wait_share,
			t->have_verdict ? fs_verdict_name(t->verdict) : "no verdict");
	else if (!strcmp(t->status, "ok"))
		fprintf(stderr, "%s a step, input wait %.0f%%, %s\n", fs_fmt_time(a, sizeof a, t->step_s), 100 * t->wait_share,
			t->have_verdict ? fs_verdict_name(t->verdict) : "no verdict");
	else
		fprintf(stderr, "%s (%s)\n", t->status, fs_text_escape(shown, sizeof shown, t->status_text));
}

/* The batches trial t's loader asks for at an iterator's start: its
 * knobs, else the baseline's (base; NULL: t is the baseline, whose first
 * run told the plan, or nothing yet: 0). */
static long prefill_of(const struct fs_tune_trial *t, const struct fs_tune_trial *base, const struct fs_tune_plan *pl)
{
	if (!base)
		return pl->prefill;
	int w = t->asked.v[FS_KNOB_NUM_WORKERS], pf = t->asked.v[FS_KNOB_PREFETCH_FACTOR];
	return fs_tune_prefill(w >= 0 ? w : base->eff.v[FS_KNOB_NUM_WORKERS],
			       pf >= 0 ? pf : base->eff.v[FS_KNOB_PREFETCH_FACTOR]);
}

/* Run trial t (its asked knobs, id and why set) until it exits or the
 * budget ends, for the steps plan pl asks of it; then read it (the
 * baseline, base NULL, with its window cut as it fits). Returns false when
 * it was interrupted. */
static bool run_trial(const struct opts *o, const struct fs_tune_plan *pl, const char *self, const char *dir,
		      struct fs_tune_trial *t, const struct fs_tune_trial *base, const struct progress *p)
{
	char db[4200], log[4200], env[512];
	snprintf(db, sizeof db, "%s/trial-%d.db", dir, t->id);
	snprintf(log, sizeof log, "%s/trial-%d.log", dir, t->id);
	fs_tune_knobs_env(&t->asked,
			  fs_tune_trial_length(pl->warmup, pl->steps, prefill_of(t, base, pl), pl->window, pl->epoch_steps),
			  env, sizeof env);
	double t0 = now_s();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(t->status, sizeof t->status, "failed");
		snprintf(t->status_text, sizeof t->status_text, "fork: %s", strerror(errno));
		return true;
	}
	if (pid == 0)
		trial_child(o, self, db, log, env);
	int st = 0, sent = 0;
	double last_progress = 0, killed_at = 0;
	bool over = false;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		double now = now_s();
		if (interrupted && sent < 1) {
			kill(pid, SIGINT); /* feedscope run passes it to the job and completes the run file */
			sent = 1;
			killed_at = now;
		}
		if (!over && now - p->start > p->budget_s) {
			over = true;
			kill(pid, SIGTERM);
			killed_at = now;
		}
		if (killed_at && now - killed_at > 30 && sent < 2) {
			kill(pid, SIGKILL);
			sent = 2;
		}
		if (now - last_progress >= 1) {
			progress_line(p, t, base, t0, now, false);
			last_progress = now;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	t->duration_s = now_s() - t0;
	t->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
	fs_tune_trial_read(db, pl->warmup, base ? pl->window : FS_TUNE_WINDOW_AUTO, t);
	if (over && strcmp(t->status, "ok")) {
		snprintf(t->status, sizeof t->status, "budget");
		snprintf(t->status_text, sizeof t->status_text, "stopped when the budget ran out, after %s",
			 fs_fmt_time(env, sizeof env, t->duration_s));
	} else if (t->exit_code != 0 && !interrupted) {
		/* a setting the job (or the machine) could not take: not a candidate */
		char was[200];
		snprintf(was, sizeof was, "%.190s", t->status_text);
		snprintf(t->status, sizeof t->status, "failed");
		snprintf(t->status_text, sizeof t->status_text, "the job exited with status %d%s%s (its output: %.400s)",
			 t->exit_code, was[0] ? "; " : "", was, log);
	}
	progress_line(p, t, base, t0, now_s(), true);
	return !interrupted;
}

/* After baseline run `run` (0, 1): whether to run it again, the plan
 * changed (fs_tune_replan); its files are then kept as trial-0-run1.*
 * (the first run), trial-0-run2.*, and note says why. */
static bool rerun_baseline(const struct opts *o, const struct fs_tune_trial *t, struct fs_tune_plan *pl, int run,
			   const char *dir, char *note, size_t cap)
{
	char why[300];
	if (!fs_tune_replan(pl, t, o->interval_s, run < 2, why, sizeof why))
		return false;
	char from[4200], to[4200];
	for (int i = 0; i < 2; i++) {
		snprintf(from, sizeof from, "%s/trial-0.%s", dir, i ? "log" : "db");
		snprintf(to, sizeof to, "%s/trial-0-run%d.%s", dir, run + 1, i ? "log" : "db");
		if (rename(from, to) < 0)
			return false;
	}
	size_t n = strlen(note);
	snprintf(note + n, cap - n, "%s%s (the baseline's run %d: trial-0-run%d.db)", n ? "; " : "", why, run + 1, run + 1);
	if (!o->quiet)
		fs_warn("tune: %s; the baseline runs again", why);
	return true;
}

static double longest(const struct fs_tune *T);

/* A gain is recommended only if it holds in a second pair of runs, the
 * best's setting then the baseline's (fs_tune_recommends): those runs, if
 * the budget and the table have room for them. */
static void confirm(const struct opts *o, const struct fs_tune_plan *pl, const char *self, const char *dir,
		    struct fs_tune *T, const struct progress *p)
{
	if (interrupted || !fs_tune_needs_confirm(T) || T->ntrials > MAX_TRIALS - 2 ||
	    now_s() - p->start + 2 * longest(T) > o->budget_s)
		return;
	int best = T->best;
	for (int k = 0; k < 2 && !interrupted; k++) {
		struct fs_tune_trial *t = &T->trials[T->ntrials];
		t->id = T->ntrials;
		t->asked = k ? T->trials[0].asked : T->trials[best].asked;
		t->confirms = true;
		if (k)
			snprintf(t->why, sizeof t->why, "the baseline again: the second pair's baseline, after trial %d",
				 t->id - 1);
		else
			snprintf(t->why, sizeof t->why, "trial %d again: its gain must hold in a second pair of runs, "
							"its setting's then the baseline's",
				 best);
		run_trial(o, pl, self, dir, t, &T->trials[0], p);
		T->ntrials++;
	}
}

/* The longest trial so far: what the next one is expected to take. */
static double longest(const struct fs_tune *T)
{
	double m = 0;
	for (int i = 0; i < T->ntrials; i++)
		m = fmax(m, T->trials[i].duration_s);
	return m;
}

static int tune(const struct opts *o)
{
	char dir[4096], self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fs_error("tune: cannot find feedscope's own executable: %s", strerror(errno));
		return 1;
	}
	self[n] = 0;
	int rc = make_dir(o->dir, dir, sizeof dir);
	if (rc)
		return rc;
	struct fs_tune T = {.best = -1, .knobs = o->knobs, .max_workers = o->max_workers};
	T.trials = calloc(MAX_TRIALS, sizeof *T.trials);
	if (!T.trials) {
		fs_error("tune: out of memory");
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	struct progress p = {.tty = isatty(2), .quiet = o->quiet, .start = now_s(), .budget_s = o->budget_s};

	struct fs_tune_plan pl = {.warmup = o->warmup, .steps = o->steps, .window = FS_TUNE_WINDOW_AUTO};
	int baseline_runs = 0;
	char note[800] = "";
	enum fs_tune_stop stop = FS_TUNE_GOING;
	char why[400] = "baseline: the job's own settings";
	struct fs_tune_knobs next;
	fs_tune_knobs_unset(&next);
	while (stop == FS_TUNE_GOING) {
		if (T.ntrials == MAX_TRIALS) {
			stop = FS_TUNE_BUDGET;
			snprintf(why, sizeof why, "%d trials, the most one search runs", MAX_TRIALS);
			break;
		}
		double used = now_s() - p.start;
		/* with a change found, the time of two more trials is kept for
		 * the second pair of runs */
		if (T.ntrials > 0 && used + longest(&T) * (T.best > 0 ? 3 : 1) > o->budget_s) {
			stop = FS_TUNE_BUDGET;
			char a[32], b[32], was[200];
			snprintf(was, sizeof was, "%.190s", why);
			snprintf(why, sizeof why, "%s left of the budget, a trial takes about %s (the next was: %s)",
				 fs_fmt_time(a, sizeof a, fmax(0, o->budget_s - used)), fs_fmt_time(b, sizeof b, longest(&T)),
				 was);
			break;
		}
		struct fs_tune_trial *t = &T.trials[T.ntrials];
		t->id = T.ntrials;
		t->asked = next;
		snprintf(t->why, sizeof t->why, "%s", T.ntrials ? why : "baseline");
		bool ok = run_trial(o, &pl, self, dir, t, T.ntrials ? &T.trials[0] : NULL, &p);
		T.ntrials++;
		if (ok && T.ntrials == 1 && rerun_baseline(o, t, &pl, baseline_runs++, dir, note, sizeof note)) {
			T.ntrials = 0; /* the baseline again, measured as every trial will be */
			memset(t, 0, sizeof *t);
			continue;
		}
		if (!ok) {
			if (!o->quiet)
				fs_warn("tune: interrupted; the trials so far:");
			break;
		}
		stop = fs_tune_next(&T, &next, why, sizeof why);
	}
	confirm(o, &pl, self, dir, &T, &p);
	if (interrupted) {
		fs_tune_next(&T, &next, why, sizeof why); /* the best so far */
		stop = FS_TUNE_INTERRUPTED;
		snprintf(why, sizeof why, "interrupted by signal %d", (int)interrupted);
	}
	struct fs_tune_result r = {.T = &T, .stop = stop, .stop_text = why, .time_s = now_s() - p.start,
				   .budget_s = o->budget_s, .plan = &pl, .dir = dir, .note = note,
				   .argc = o->ncmd, .argv = o->cmd};
	if (o->json)
		fs_tune_render_json(stdout, &r);
	else
		fs_tune_render_text(stdout, &r);
	free(T.trials);
	if (interrupted)
		return 130;
	return stop == FS_TUNE_JOB_FAILED || stop == FS_TUNE_NO_DATALOADER ? 1 : 0;
}

int fs_cmd_tune(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	signal(SIGPIPE, SIG_IGN);
	return fs_cmd_finish_stdout("tune", tune(&o));
}
