/* main.c - the table of subcommands, nothing else. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{"run", fs_cmd_run, "launch a job and record it until it exits"},
	{"attach", fs_cmd_attach, "record a job that is already running"},
	{"watch", fs_cmd_watch, "print one line of system (and job) activity per interval"},
	{"top", fs_cmd_top, "a live full-screen view of the machine and a job's processes"},
	{"report", fs_cmd_report, "the verdict of a run file: input-bound or not, why, what to change"},
	{"diff", fs_cmd_diff, "two run files side by side: verdicts, step time, buckets, knobs that differ"},
	{"tune", fs_cmd_tune, "find the best DataLoader settings of a PyTorch job by short measured trials"},
	{"export", fs_cmd_export, "write a run file as a Perfetto / chrome://tracing trace, or as CSV files"},
	{"exporter", fs_cmd_exporter, "serve run files' metrics to Prometheus (HTTP, OpenMetrics text)"},
	{"bench", fs_cmd_bench, "emulate training I/O (MLPerf Storage workloads): can the storage keep N accelerators busy?"},
	{"probe", fs_cmd_probe, "measure the raw ceilings of the storage under a directory"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	fprintf(out, "usage: feedscope COMMAND [OPTIONS]\n\n"
		     "Is the accelerator waiting for data, and why?\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n`feedscope COMMAND --help` for a command's options; --version for the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "feedscope: no command given (try feedscope --help)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("feedscope %s\n", FS_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "feedscope: unknown command '%s' (try feedscope --help)\n", argv[1]);
	return 2;
}
