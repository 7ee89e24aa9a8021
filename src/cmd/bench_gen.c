/* bench_gen.c (was src/bench/gen_cli.c) - the command line of `feedscope
 * bench generate` (bench/format/gen.h):
 * options checked before any I/O (bad usage: exit 2), the workload loaded,
 * SIGINT/SIGTERM/SIGHUP turned into a clean stop, fs_bench_generate run,
 * and one summary line. */
#include "bench/format/gen.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "bench/format/gen_int.h"
#include "bench/host/safety.h"
#include "bench/workload/workload.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/parse.h"

static void on_signal(int sig)
{
	(void)sig;
	fs_gen_interrupted = 1;
}

static const char generate_usage[] =
	"usage: feedscope bench generate (--workload NAME | --config FILE.yaml) --dir D [OPTIONS] [OVERRIDE...]\n"
	"\n"
	"Write the dataset a workload reads into D (created if missing; an existing D must be empty\n"
	"or made by feedscope), in a real format, with its manifest D/.feedscope-dataset.\n"
	"\n"
	"      --workload NAME   a preset: unet3d resnet50 cosmoflow bert\n"
	"      --config FILE     a DLIO workload YAML file\n"
	"      --dir D           where to write\n"
	"      --scale S         scale num_files_train by S (> 0; e.g. 0.01 on a small machine)\n"
	"      --format F        %s (default: the workload's)\n"
	"      --threads N       writer threads (default: the online CPUs)\n"
	"      --seed N          seeds sample sizes and payload (default: the workload's seed)\n"
	"      --quiet           no warnings about the workload file\n"
	"  -h, --help            this help\n"
	"  OVERRIDE              a DLIO (Hydra) override: ++workload.dataset.num_files_train=64\n"
	"\n"
	"`feedscope bench clean --dir D` removes what it wrote. Formats: docs/bench-formats.md.\n";

static const struct option generate_opts[] = {
	{"workload", required_argument, NULL, 'w'}, {"config", required_argument, NULL, 'c'},
	{"dir", required_argument, NULL, 'd'},      {"scale", required_argument, NULL, 's'},
	{"format", required_argument, NULL, 'f'},   {"threads", required_argument, NULL, 't'},
	{"seed", required_argument, NULL, 'S'},     {"help", no_argument, NULL, 'h'},
	{"quiet", no_argument, NULL, 'q'},
	{NULL, 0, NULL, 0},
};

static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

int fs_bench_generate_main(int argc, char **argv)
{
	const char *workload = NULL, *config = NULL, *dir = NULL, *format = NULL;
	double scale = 1.0;
	int threads = 0;
	uint64_t seed = 0;
	bool have_seed = false, quiet = false;
	char *ov[64];
	int nov = 0;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", generate_opts, NULL)) != -1) {
		char *end;
		switch (opt) {
		case 'h':
			printf(generate_usage, fs_gen_format_names());
			return 0;
		case 'w':
			workload = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'd':
			dir = optarg;
			break;
		case 's':
			errno = 0;
			scale = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(scale > 0) || !isfinite(scale))
				return fs_usage_error("bench generate: --scale '%s' is not a positive number", optarg);
			break;
		case 'f':
			if (!fs_gen_format_find(optarg))
				return fs_usage_error("bench generate: --format '%s' is not one of %s", optarg,
						      fs_gen_format_names());
			format = optarg;
			break;
		case 't':
			if (!fs_parse_pos_int(optarg, &threads) || threads > FS_GEN_MAX_THREADS)
				return fs_usage_error("bench generate: --threads '%s' is not a number from 1 to %d",
						      optarg, FS_GEN_MAX_THREADS);
			break;
		case 'q':
			quiet = true;
			break;
		case 'S':
			if (!parse_u64(optarg, &seed))
				return fs_usage_error("bench generate: --seed '%s' is not a non-negative integer", optarg);
			have_seed = true;
			break;
		default:
			return fs_bad_option("bench generate", opt, argv);
		}
	}
	for (; optind < argc; optind++) {
		if (!fs_workload_is_override(argv[optind]))
			return fs_usage_error("bench generate: unexpected argument '%s' (an override is "
					      "++workload.SECTION.KEY=VALUE)", argv[optind]);
		if (nov == (int)(sizeof ov / sizeof ov[0]))
			return fs_usage_error("bench generate: more than %d overrides", nov);
		ov[nov++] = argv[optind];
	}
	if (!workload == !config)
		return fs_usage_error("bench generate: give one of --workload NAME or --config FILE.yaml");
	if (!dir || !*dir)
		return fs_usage_error("bench generate: --dir D is required (where to write the dataset)");
	/* --config names a file even without a slash */
	char cfg[4096];
	if (config && !strchr(config, '/'))
		snprintf(cfg, sizeof cfg, "./%s", config);
	else if (config)
		snprintf(cfg, sizeof cfg, "%s", config);
	struct fs_workload w;
	char why[1024];
	fs_log_set_quiet(quiet);
	if (fs_workload_load_ex(config ? cfg : workload, ov, nov, scale, &w, why, sizeof why) < 0)
		return fs_usage_error("bench generate: %s", why);
	if (!strcmp(w.format, "synthetic") && !format) {
		printf("%s: dataset.format synthetic lives in memory: nothing to generate\n", w.name);
		return 0;
	}
	if (format)
		snprintf(w.format, sizeof w.format, "%s", format);
	if (!have_seed)
		seed = w.seed;

	bool progress = isatty(STDERR_FILENO) && isatty(STDOUT_FILENO);
	struct sigaction sa = {.sa_handler = on_signal}, old[3];
	static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
	fs_gen_interrupted = 0;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	uint64_t t0 = fs_now_ns();
	int rc = fs_bench_generate(&w, dir, (unsigned)threads, seed, progress, why, sizeof why);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (rc == FS_SAFETY_REFUSED)
		return fs_usage_error("bench generate: %s", why);
	if (rc != FS_SAFETY_OK) {
		fs_error("bench generate: %s", why);
		return 1;
	}
	double el = (double)(fs_now_ns() - t0) / 1e9;
	struct fs_dataset d;
	if (fs_dataset_load(dir, &d, why, sizeof why) == 0) {
		char b1[32], b2[32], b3[32];
		printf("generated %s: %" PRIu32 " %s files, %" PRIu64 " samples, %s in %s (%s)\n", dir, d.nfiles,
		       d.format, d.total_records, fs_fmt_bytes(b1, sizeof b1, (double)d.total_bytes),
		       fs_fmt_time(b2, sizeof b2, el),
		       fs_fmt_rate(b3, sizeof b3, el > 0 ? (double)d.total_bytes / el : 0));
	}
	fs_dataset_free(&d);
	return 0;
}
