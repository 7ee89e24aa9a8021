/* fuzz_runfile_raw - libFuzzer target: the input's bytes are the run file
 * itself (an SQLite database, or anything else someone passes to `feedscope
 * report`), read by everything `report` does (runfile_common.c). Seeds:
 * small run files (tests/fuzz/runfile_raw/). Built and run by `make fuzz`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runfile_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[320];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_runfile_init(path, sizeof path);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		exit(1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_runfile_remove();
	FILE *f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	fuzz_runfile_read(path, devnull);
	return 0;
}
