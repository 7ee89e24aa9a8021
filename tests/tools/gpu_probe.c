/* gpu_probe - run the gpu source against whatever libnvidia-ml.so.1 the
 * loader finds (the real driver on a GPU machine, the fake one when
 * LD_LIBRARY_PATH points at build/tests/nvml/full) and print what it emits.
 *
 *   gpu_probe [-n COUNT] [-i SECONDS] [-q]
 *
 * Takes COUNT samples (default 3) SECONDS apart (default 1; 0 = back to
 * back), prints the meta and rows through the tests' dump sink (-q: none),
 * then on stderr the cost of one sample() call: min, mean and max in us.
 * Exit status 0, or 1 with "unavailable: REASON" if the source cannot open. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "source/source.h"
#include "util/clock.h"

extern const struct fs_source_ops fs_source_gpu;

static void quiet_row(struct fs_sink *sink, const struct fs_row *row)
{
	(void)sink;
	(void)row;
}

static void quiet_meta(struct fs_sink *sink, const char *key, const char *value)
{
	(void)sink;
	(void)key;
	(void)value;
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int count = 3, quiet = 0, opt;
	double interval = 1.0;
	while ((opt = getopt(argc, argv, "n:i:q")) != -1) {
		if (opt == 'n')
			count = atoi(optarg);
		else if (opt == 'i')
			interval = atof(optarg);
		else if (opt == 'q')
			quiet = 1;
		else {
			fprintf(stderr, "usage: gpu_probe [-n COUNT] [-i SECONDS] [-q]\n");
			return 2;
		}
	}
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct dump_sink dump;
	dump_sink_init(&dump, stdout, NULL);
	if (quiet) {
		dump.sink.row = quiet_row;
		dump.sink.meta = quiet_meta;
	}
	uint64_t start = fs_now_ns();
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &dump.sink, .now_ns = start};
	char why[512] = "";
	void *state = NULL;
	if (fs_source_gpu.open(&state, &ctx, why, sizeof why) != FS_SOURCE_OK) {
		printf("unavailable: %s\n", why);
		return 1;
	}
	double min_us = 1e300, max_us = 0, sum_us = 0;
	for (int i = 0; i < count; i++) {
		if (i)
			sleep_s(interval);
		ctx.now_ns = fs_now_ns();
		ctx.t = (double)(ctx.now_ns - start) / 1e9;
		why[0] = '\0';
		int rc = fs_source_gpu.sample(state, &ctx, why, sizeof why);
		double us = (double)(fs_now_ns() - ctx.now_ns) / 1e3;
		if (rc != FS_SOURCE_OK)
			printf("sample failed: %s\n", why);
		fflush(stdout);
		sum_us += us;
		min_us = us < min_us ? us : min_us;
		max_us = us > max_us ? us : max_us;
	}
	fs_source_gpu.close(state);
	if (count > 0)
		fprintf(stderr, "gpu_probe: %d samples: min %.1f us, mean %.1f us, max %.1f us\n",
			count, min_us, sum_us / count, max_us);
	return 0;
}
