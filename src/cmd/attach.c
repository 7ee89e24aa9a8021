/* attach - record a process that is already running, with every process it
 * starts, until it exits, the duration passes, or Ctrl-C. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "record/loop.h"
#include "record/session.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"

static const char usage_text[] =
	"usage: feedscope attach [OPTIONS] PID\n"
	"\n"
	"Record process PID (and its descendants) until it exits, DURATION passes\n"
	"or Ctrl-C. The process is not touched: signals are not forwarded to it.\n"
	"\n"
	"  -o, --output FILE    run file to write (default feedscope-YYYYmmdd-HHMMSS.db)\n"
	"      --output-dir DIR the default name, in DIR (made when missing)\n"
	"      --to-runs-dir    the default name, in the runs directory that `feedscope\n"
	"                       exporter` serves (~/.local/state/feedscope/runs;\n"
	"                       /var/lib/feedscope/runs as root; docs/exporter.md)\n"
	"  -f, --force          replace FILE if it is a regular file of yours\n"
	"  -i, --interval S     sampling interval (default 0.1 s)\n"
	"      --system-interval S  seconds between samples of the machine-wide counters\n"
	"                       (cpu, psi, disk, net, mem: mem never under 1 s; default 1,\n"
	"                       at least the interval; 0: every tick); the job's own\n"
	"                       figures are read every tick\n"
	"  -d, --duration D     stop after D (seconds, or 90s, 5m, 2h)\n"
	"      --no-gpu         do not load NVML\n"
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
	"  -q, --quiet          no summary at exit\n"
	"  -h, --help           this help\n";

static const struct option long_opts[] = {
	{"output", required_argument, NULL, 'o'}, {"interval", required_argument, NULL, 'i'},
	{"duration", required_argument, NULL, 'd'}, {"no-gpu", no_argument, NULL, 'G'},
	{"force", no_argument, NULL, 'f'},        {"quiet", no_argument, NULL, 'q'},
	{"sources", required_argument, NULL, 'S'}, {"pss", no_argument, NULL, 'Y'}, {"no-pss", no_argument, NULL, 'y'}, {"help", no_argument, NULL, 'h'},
	{"states", required_argument, NULL, 'W'}, {"keep-all", no_argument, NULL, 'K'},
	{"bpf-stats", no_argument, NULL, 'B'},
	{"system-interval", required_argument, NULL, 'M'},
	{"output-dir", required_argument, NULL, 'D'}, {"to-runs-dir", no_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

int fs_cmd_attach(int argc, char **argv)
{
	struct fs_session_opts o = {.interval_s = 0.1, .system_interval_s = FS_SYSTEM_INTERVAL_S,
				     .pss = FS_PSS_BOUNDED};
	double duration = 0;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:i:d:fqh", long_opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (opt == '?' || opt == ':')
			return fs_bad_option("attach", opt, argv);
		if (opt == 'd') {
			if (!fs_parse_seconds(optarg, &duration))
				return fs_usage_error("attach: bad duration '%s' (e.g. 30, 90s, 5m)", optarg);
			continue;
		}
		if (fs_session_parse_opt(&o, opt, optarg, "attach") == 2)
			return 2;
	}
	if (optind >= argc)
		return fs_usage_error("attach: no PID given (usage: feedscope attach [OPTIONS] PID)");
	if (optind + 1 < argc)
		return fs_usage_error("attach: one PID only ('%s' is extra)", argv[optind + 1]);
	int pid;
	if (!fs_parse_pos_int(argv[optind], &pid))
		return fs_usage_error("attach: bad PID '%s'", argv[optind]);
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return fs_usage_error("attach: no process %d", pid);

	struct fs_session s;
	if (fs_session_create(&s, &o) != 0)
		return 2;
	/* The command is the attached process's own command line. */
	char path[64], *args[64];
	int nargs = 0;
	struct fs_buf cmdline = {0};
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	if (fs_read_file(path, &cmdline) > 0) {
		for (size_t i = 0; i < cmdline.len && nargs < 64; i += strlen(cmdline.data + i) + 1)
			args[nargs++] = cmdline.data + i;
	}
	char pidstr[16];
	snprintf(pidstr, sizeof pidstr, "%d", pid);
	if (nargs == 0)
		args[nargs++] = pidstr;
	fs_session_meta_start(&s, "attach", nargs, args);
	fs_buf_free(&cmdline);
	if (fs_loop_block_signals() < 0 || fs_session_start(&s, pid, false) != 0) {
		fs_session_abort(&s);
		return 1;
	}
	struct fs_loop_opts lo = {
		.interval_s = o.interval_s, .duration_s = duration, .watched = pid, .start_ns = s.start_ns};
	struct fs_loop_result res;
	int rc = fs_loop_run(&lo, fs_session_tick, &s, &res) < 0 ? 1 : 0;
	if (fs_session_finish(&s, -1, 0) != 0)
		rc = 1;
	return rc;
}
