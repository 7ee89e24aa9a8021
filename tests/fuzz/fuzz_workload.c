/* fuzz_workload - libFuzzer target: the DLIO workload YAML loader
 * (src/bench/workload/workload.h, fs_workload_load), through its public API only.
 *
 * The input is the YAML file's bytes. It is written to a memfd and loaded
 * through /proc/self/fd/N (a path, so the loader reads it as a file, the way
 * `feedscope bench --workload FILE` does). A file that loads is then scaled,
 * and its accelerator types selected, as the bench command would.
 * Built and run by `make fuzz` (tests/fuzz/run.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/workload/workload.h"
#include "util/log.h"

static int memfd = -1;
static char memfd_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfd = memfd_create("fuzz_workload.yaml", 0);
	if (memfd < 0) {
		perror("fuzz_workload: memfd_create");
		exit(1);
	}
	snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
	fs_log_set_quiet(true); /* unknown keys warn once each: noise here */
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	if (ftruncate(memfd, 0) < 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size)) {
		perror("fuzz_workload: memfd write");
		exit(1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	write_input(data, size);
	struct fs_workload w;
	char why[512];
	/* one scale that keeps the numbers and one that grows them */
	static const double scales[] = {1.0, 1e6};
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
		memset(&w, 0xa5, sizeof w); /* the loader must not rely on a zeroed struct */
		if (fs_workload_load(memfd_path, scales[i], &w, why, sizeof why) != 0) {
			if (!memchr(why, '\0', sizeof why))
				abort(); /* the reason must be a string */
			return 0;
		}
		const struct fs_wl_compute *c = fs_workload_compute(&w);
		if (w.train && !c)
			abort();
		for (int k = 0; k < w.ncompute && k < FS_WL_MAX_ACCEL; k++)
			(void)fs_workload_select_accel(&w, w.compute[k].accel, why, sizeof why);
		(void)fs_workload_select_accel(&w, "no-such-accelerator", why, sizeof why);
		(void)fs_wl_shuffle_name(w.file_shuffle);
		(void)fs_wl_shuffle_name(w.sample_shuffle);
	}
	return 0;
}
