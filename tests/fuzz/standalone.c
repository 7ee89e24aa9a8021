/* standalone.c - a main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file given (a directory: on each file
 * in it, sorted), so that any C compiler can build the targets and replay
 * their seed corpora and crash reproducers (tests/integration/fuzz_seeds.sh).
 *
 *   fuzz_replay_TARGET FILE|DIR...
 *
 * Prints "TARGET: N inputs" and exits 0; 1 if a file cannot be read. A bug
 * shows as the crash (or sanitizer report) itself. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole of path, malloc'ed (the caller frees it), its length in *len;
 * NULL when it cannot be read. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *bigger = realloc(buf, cap *= 2);
			if (!bigger)
				free(buf);
			buf = bigger;
		}
	}
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int run_file(const char *path)
{
	size_t len;
	uint8_t *data = slurp(path, &len);
	if (!data) {
		perror(path);
		return -1;
	}
	/* an exact-size copy, as libFuzzer gives, so a read past the end is caught */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(data);
		return -1;
	}
	memcpy(exact, data, len);
	free(data);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Number of inputs run from path, or -1. */
static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, by_name), count = 0;
	if (n < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", path, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			int r = run_file(p);
			count = r < 0 || count < 0 ? -1 : count + r;
		}
		free(ents[i]);
	}
	free(ents);
	return count;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	int total = 0;
	for (int i = 1; i < argc; i++) {
		int n = run_path(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	const char *name = strrchr(argv[0], '/');
	printf("%s: %d inputs\n", name ? name + 1 : argv[0], total);
	return 0;
}
