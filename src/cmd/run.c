/* run - launch CMD, record it until it exits, print a summary; exit with
 * the job's own status. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "record/jobenv.h"
#include "record/jobctl.h"
#include "record/loop.h"
#include "record/session.h"
#include "serve/exporter.h"
#include "serve/httpd.h"
#include "util/log.h"
#include "util/parse.h"

/* --hang-after's range: a second (the tests) to a week. */
#define FS_HANG_AFTER_MIN_S 1.0
#define FS_HANG_AFTER_MAX_S 604800.0

static const char usage_text[] =
	"usage: feedscope run [OPTIONS] -- CMD [ARGS...]\n"
	"\n"
	"Launch CMD and record it (and every process it starts) until it exits.\n"
	"feedscope exits with CMD's status (128+N if CMD died of signal N).\n"
	"\n"
	"  -o, --output FILE    run file to write (default feedscope-YYYYmmdd-HHMMSS.db)\n"
	"      --output-dir DIR the default name, in DIR (made when missing)\n"
	"      --to-runs-dir    the default name, in the runs directory that `feedscope\n"
	"                       exporter` serves (~/.local/state/feedscope/runs;\n"
	"                       /var/lib/feedscope/runs as root; docs/exporter.md)\n"
	"  -f, --force          replace FILE if it is a regular file of yours (the new\n"
	"                       run file is renamed over it when complete)\n"
	"  -i, --interval S     sampling interval in seconds, or with a unit: 100ms, 1s\n"
	"                       (default 0.1)\n"
	"      --system-interval S  seconds between samples of the machine-wide counters\n"
	"                       (cpu, psi, disk, net, mem: mem never under 1 s; default 1,\n"
	"                       at least the interval; 0: every tick); the job's own\n"
	"                       figures are read every tick\n"
	"      --no-gpu         do not load NVML\n"
	"      --pytorch        time DataLoader steps and torch.save from inside the job\n"
	"                       (on by itself when CMD is a Python interpreter or script)\n"
	"      --no-hook        do not install that hook (feedscope.watch() still works)\n"
	"      --no-trace       do not load the I/O tracer (LD_PRELOAD) into the job\n"
	"      --trace-ops      also record every I/O operation (bounded; off by default)\n"
	"      --hash-paths     store a keyed hash of every path (files, ops, the command's\n"
	"                       path arguments, cwd, meta) instead of the path; the key\n"
	"                       is random per run, or FEEDSCOPE_HASH_KEY (32 hex digits)\n"
	"      --export ADDR    serve the run's metrics to Prometheus while it records:\n"
	"                       http://ADDR/metrics (HOST:PORT or PORT; 127.0.0.1 unless\n"
	"                       told otherwise; docs/exporter.md)\n"
	"      --sources LIST   only these sources (cpu,psi,mem,disk,net,job,gpu)\n"
	"      --pss            read each process's smaps_rollup (PSS, USS, swap) more often:\n"
	"                       at least every 10 s, about 3% of a core at most (feedscope\n"
	"                       tune turns it on); by default when its memory moves, about\n"
	"                       2% of a core at most, nothing once it settles\n"
	"      --no-pss         never read smaps_rollup (pss_bytes, uss_bytes, ... NULL)\n"
	"      --states HOW     how thread states are read: auto (default: by BPF where it\n"
	"                       loads, else /proc), proc, or bpf (the same, said when /proc)\n"
	"      --bpf-stats      count the BPF programs' time in the kernel (in the job's\n"
	"                       context switches) for the summary: the kernel's statistics\n"
	"                       on for the run, which adds two clock reads to every BPF\n"
	"                       program run on the machine meanwhile\n"
	"      --keep-all       keep every sample and collective: past its first hour a run\n"
	"                       file keeps them for that hour, the latest hour and around\n"
	"                       stalls, and per-minute tables and per-second timelines for\n"
	"                       the whole run\n"
	"      --hang-after S   a stall is no step for S seconds (default: max(20 x the\n"
	"                       median step so far, 60 s); without steps, no sign of\n"
	"                       progress (reads, device busy, main process on a CPU) for S\n"
	"                       (default 300 s). While it lasts: one line on stderr, what\n"
	"                       each process is blocked on and its Python stack (with the\n"
	"                       hook) in the run file (docs/verdicts.md, \"Stalls\")\n"
	"      --no-stalls      do not look for stalls\n"
	"  -q, --quiet          no summary at exit, no notes about skipped sources\n"
	"  -h, --help           this help\n";

static const struct option long_opts[] = {
	{"output", required_argument, NULL, 'o'}, {"interval", required_argument, NULL, 'i'},
	{"no-gpu", no_argument, NULL, 'G'},       {"force", no_argument, NULL, 'f'},
	{"quiet", no_argument, NULL, 'q'},        {"sources", required_argument, NULL, 'S'}, {"pss", no_argument, NULL, 'Y'}, {"no-pss", no_argument, NULL, 'y'},
	{"states", required_argument, NULL, 'W'}, {"keep-all", no_argument, NULL, 'K'},
	{"bpf-stats", no_argument, NULL, 'B'},
	{"system-interval", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},         {"pytorch", no_argument, NULL, 'P'},
	{"no-hook", no_argument, NULL, 'H'},      {"no-trace", no_argument, NULL, 'T'},
	{"trace-ops", no_argument, NULL, 'O'},    {"hash-paths", no_argument, NULL, 'A'},
	{"export", required_argument, NULL, 'X'},
	{"hang-after", required_argument, NULL, 'U'}, {"no-stalls", no_argument, NULL, 'u'},
	{"output-dir", required_argument, NULL, 'D'}, {"to-runs-dir", no_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

/* The child: wait for the go byte (the t = 0 sample is taken), then exec.
 * An exec failure is reported through the close-on-exec error pipe. */
static void child(int go_fd, int err_fd, char **argv, const struct fs_jobenv *env)
{
	fs_jobctl_child(); /* a process group of its own */
	fs_jobenv_apply(env);
	char c;
	ssize_t n;
	do
		n = read(go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* feedscope went away before the start */
	close(go_fd);
	execvp(argv[0], argv);
	int e = errno;
	if (write(err_fd, &e, sizeof e) < 0) {
		/* nothing left to tell */
	}
	_exit(e == ENOENT ? 127 : 126);
}

static int exit_status_of(int status, int *sig)
{
	*sig = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		*sig = WTERMSIG(status);
		return 128 + *sig;
	}
	return 1;
}

/* --export: the exporter on threads of its own, serving this run file. A
 * port that cannot be bound (in use, not this host's address) is said once
 * and the job runs without it: the recording matters more. */
static struct fs_exporter *start_export(struct fs_session *s, const char *addr)
{
	char err[512], job[256];
	struct fs_exporter_opts eo = FS_EXPORTER_OPTS_DEFAULT;
	struct fs_exporter *x = fs_exporter_new(addr, &eo, err, sizeof err);
	/* the job is named after -o's file; what is read is the file being
	 * written (under -f, its NAME.partial-PID) */
	fs_exporter_job_name(s->path, job, sizeof job);
	if (x && (fs_exporter_add(x, fs_store_path(s->store), job) < 0 || fs_exporter_start(x, err, sizeof err) < 0)) {
		fs_exporter_free(x);
		x = NULL;
	}
	if (!x) {
		fs_error("run: --export %s: recording without the exporter", err);
		fs_sink_metaf(fs_store_sink(s->store), "exporter", "unavailable: %s", err);
		return NULL;
	}
	fs_sink_metaf(fs_store_sink(s->store), "exporter", "http://%s/metrics", fs_exporter_addr(x));
	fs_warn("run: serving the run's metrics on http://%s/metrics", fs_exporter_addr(x));
	return x;
}

int fs_cmd_run(int argc, char **argv)
{
	struct fs_session_opts o = {.interval_s = 0.1, .system_interval_s = FS_SYSTEM_INTERVAL_S,
				     .pss = FS_PSS_BOUNDED, .stalls = true};
	enum fs_hook_mode hook = FS_HOOK_AUTO;
	bool no_trace = false, trace_ops = false, hash_paths = false;
	const char *export_addr = NULL;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:o:i:fqh", long_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (opt == 'T' || opt == 'O' || opt == 'A') {
			no_trace |= opt == 'T';
			trace_ops |= opt == 'O';
			hash_paths |= opt == 'A';
			if (no_trace && trace_ops)
				return fs_usage_error("run: --trace-ops needs the tracer (not with --no-trace)");
			continue;
		}
		if (opt == 'X') {
			char why[256];
			struct sockaddr_storage ss;
			socklen_t sslen;
			if (fs_httpd_parse_addr(optarg, &ss, &sslen, why, sizeof why) < 0)
				return fs_usage_error("run: --export %s", why);
			export_addr = optarg;
			continue;
		}
		if (opt == 'U') {
			if (!fs_parse_seconds(optarg, &o.hang_after_s) || o.hang_after_s < FS_HANG_AFTER_MIN_S ||
			    o.hang_after_s > FS_HANG_AFTER_MAX_S)
				return fs_usage_error("run: bad --hang-after '%s' (seconds, 1 to 604800, e.g. 90 or 5m)",
						      optarg);
			continue;
		}
		if (opt == 'u') {
			o.stalls = false;
			continue;
		}
		if (opt == 'P' || opt == 'H') {
			if (hook != FS_HOOK_AUTO && hook != (opt == 'P' ? FS_HOOK_ON : FS_HOOK_OFF))
				return fs_usage_error("run: --pytorch and --no-hook contradict each other");
			hook = opt == 'P' ? FS_HOOK_ON : FS_HOOK_OFF;
			continue;
		}
		if (opt == '?' || opt == ':')
			return fs_bad_option("run", opt, argv);
		if (fs_session_parse_opt(&o, opt, optarg, "run") == 2)
			return 2;
	}
	if (!o.stalls && o.hang_after_s > 0)
		return fs_usage_error("run: --hang-after and --no-stalls contradict each other");
	if (optind >= argc)
		return fs_usage_error("run: no command given (usage: feedscope run [OPTIONS] -- CMD [ARGS...])");
	char **cmd = argv + optind;
	int ncmd = argc - optind;

	o.hash_paths = hash_paths;
	struct fs_session s;
	if (fs_session_create(&s, &o) != 0)
		return 2;
	fs_session_meta_start(&s, "run", ncmd, cmd);
	struct fs_exporter *exp = export_addr ? start_export(&s, export_addr) : NULL;
	struct fs_jobenv env;
	const char *markers = fs_session_open_markers(&s);
	fs_jobenv_prepare(&env, cmd[0], hook, markers, no_trace ? NULL : fs_session_open_trace(&s, hash_paths),
			  trace_ops);
	if (env.hook)
		fs_session_open_stacks(&s, env.stacks, sizeof env.stacks);
	if (!no_trace && !env.trace_dir[0])
		fs_session_no_trace(&s, "the tracer library (libfeedscope-trace.so) was not found");
	fs_sink_metaf(fs_store_sink(s.store), "hook", "%s%s%s", env.hook ? "pytorch" : "off",
		      env.why[0] ? ": " : "", env.why);
	if (hook == FS_HOOK_ON && !env.hook)
		fs_warn("run: --pytorch: %s", env.why[0] ? env.why : "no marker channel");

	int go[2], err[2];
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || fs_jobctl_block() < 0) {
		fs_error("run: %s", strerror(errno));
		fs_exporter_free(exp);
		fs_session_abort(&s);
		return 1;
	}
	/* Orphaned DataLoader workers are reparented to us, not to init, so they
	 * stay visible as part of the job. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fs_error("run: fork: %s", strerror(errno));
		fs_exporter_free(exp);
		fs_session_abort(&s);
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child(go[0], err[1], cmd, &env);
	}
	close(go[0]);
	close(err[1]);
	fs_jobctl_start(pid); /* the job's group; the terminal, if we hold it */

	if (fs_session_start(&s, pid, true) != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fs_exporter_free(exp);
		fs_session_abort(&s);
		return 1;
	}
	char c = 'g';
	if (write(go[1], &c, 1) != 1)
		fs_warn("run: cannot start the job: %s", strerror(errno));
	close(go[1]);
	int exec_errno = 0;
	ssize_t n;
	do
		n = read(err[0], &exec_errno, sizeof exec_errno);
	while (n < 0 && errno == EINTR);
	close(err[0]);
	if (n == (ssize_t)sizeof exec_errno) {
		int st;
		waitpid(pid, &st, 0);
		fs_exporter_free(exp);
		fs_session_abort(&s);
		fs_error("run: cannot execute '%s': %s", cmd[0], strerror(exec_errno));
		return exec_errno == ENOENT ? 127 : 126;
	}

	struct fs_loop_opts lo = {.interval_s = o.interval_s,
				  .child = pid,
				  .start_ns = s.start_ns,
				  .input = fs_session_input(&s)};
	struct fs_loop_result res;
	if (fs_loop_run(&lo, fs_session_tick, &s, &res) < 0 || !res.child_exited) {
		/* Without a timer we cannot record; still let the job finish. */
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		res.child_status = st;
	}
	int sig;
	int code = exit_status_of(res.child_status, &sig);
	fs_exporter_free(exp); /* before the run file is closed and put in place */
	if (fs_session_finish(&s, code, sig) != 0)
		fs_error("run: the run file %s may be incomplete", s.path);
	return code;
}
