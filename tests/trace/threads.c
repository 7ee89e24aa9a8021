/* threads DIR [THREADS] - many threads reading and writing their own files
 * and shared ones at once, through POSIX and stdio. The output (checksums)
 * is the same every run, traced or not; trace_accuracy.sh holds the
 * tracer's counts to exact values under this concurrency, and `make tsan`
 * runs it under ThreadSanitizer with a TSan build of the tracer.
 *
 * Per thread t: own<t>: 64 writes of 4096, fsync, lseek 0, 64 reads of
 * 4096, 10 stats, close; shared: open, 256 preads of 4096, close; own<t>s:
 * fopen "w" + 100 fwrites of 1000, fclose, fopen "r" + fread 4096 until
 * EOF (26 calls), fclose; a pipe: 100 bytes written and read, both ends
 * closed; log (O_APPEND, opened once by main): 50 writes of 32 bytes. Before the threads main writes shared (256 x 4096); after
 * them it reads log back (one read), removes it and writes its lines
 * sorted to log.sorted (the appends interleave differently every run).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096
#define SHARED_BLOCKS 256

static const char *dir;
static int log_fd;

struct job {
	int t;
	uint64_t sum_own, sum_shared, sum_stdio;
	int bad;
};

static uint64_t mix(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void path(char *out, const char *name, int t)
{
	snprintf(out, 4096, "%s/%s%d", dir, name, t);
}

static void *worker(void *arg)
{
	struct job *j = arg;
	unsigned char buf[BLOCK];
	char p[4096];
	struct stat st;

	path(p, "own", j->t);
	int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0644);
	for (int i = 0; i < 64; i++) {
		memset(buf, 'a' + (j->t + i) % 26, sizeof buf);
		j->bad |= write(fd, buf, BLOCK) != BLOCK;
	}
	j->bad |= fsync(fd) != 0;
	j->bad |= lseek(fd, 0, SEEK_SET) != 0;
	j->sum_own = 1469598103934665603ull;
	for (int i = 0; i < 64; i++) {
		j->bad |= read(fd, buf, BLOCK) != BLOCK;
		j->sum_own = mix(j->sum_own, buf, BLOCK);
	}
	for (int i = 0; i < 10; i++)
		j->bad |= stat(p, &st) != 0;
	close(fd);

	snprintf(p, sizeof p, "%s/shared", dir);
	fd = open(p, O_RDONLY);
	j->sum_shared = 1469598103934665603ull;
	for (int i = 0; i < SHARED_BLOCKS; i++) {
		off_t off = (off_t)(((unsigned)j->t * 7919u + (unsigned)i * 104729u) % SHARED_BLOCKS) * BLOCK;
		j->bad |= pread(fd, buf, BLOCK, off) != BLOCK;
		j->sum_shared = mix(j->sum_shared, buf, BLOCK);
	}
	close(fd);

	path(p, "own", j->t);
	strcat(p, "s");
	FILE *f = fopen(p, "w");
	memset(buf, 'A' + j->t % 26, 1000);
	for (int i = 0; i < 100; i++)
		j->bad |= fwrite(buf, 1, 1000, f) != 1000;
	j->bad |= fclose(f) != 0;
	f = fopen(p, "r");
	j->sum_stdio = 1469598103934665603ull;
	size_t n;
	while ((n = fread(buf, 1, BLOCK, f)) > 0)
		j->sum_stdio = mix(j->sum_stdio, buf, n);
	fclose(f);

	int pp[2]; /* a pipe of its own: all threads bump the same class counters */
	j->bad |= pipe(pp) != 0;
	j->bad |= write(pp[1], buf, 100) != 100 || read(pp[0], buf, 100) != 100;
	close(pp[0]);
	close(pp[1]);

	char line[33];
	for (int i = 0; i < 50; i++) {
		snprintf(line, sizeof line, "thread %3d line %3d ..........\n", j->t, i);
		j->bad |= write(log_fd, line, 32) != 32;
	}
	return NULL;
}

static int strcmp32(const char *a, const char *b)
{
	return memcmp(a, b, 32);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: threads DIR [THREADS]\n");
		return 2;
	}
	dir = argv[1];
	int n = argc > 2 ? atoi(argv[2]) : 8;
	if (n < 1 || n > 256)
		n = 8;
	char p[4096];
	snprintf(p, sizeof p, "%s/shared", dir);
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	unsigned char buf[BLOCK];
	for (int i = 0; i < SHARED_BLOCKS; i++) {
		memset(buf, i & 255, sizeof buf);
		if (write(fd, buf, BLOCK) != BLOCK)
			return 1;
	}
	close(fd);
	snprintf(p, sizeof p, "%s/log", dir);
	log_fd = open(p, O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0644);

	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	pthread_t *tids = calloc((size_t)n, sizeof *tids);
	for (int t = 0; t < n; t++) {
		jobs[t].t = t;
		pthread_create(&tids[t], NULL, worker, &jobs[t]);
	}
	int bad = 0;
	for (int t = 0; t < n; t++) {
		pthread_join(tids[t], NULL);
		printf("thread %d own %016llx shared %016llx stdio %016llx\n", t, (unsigned long long)jobs[t].sum_own,
		       (unsigned long long)jobs[t].sum_shared, (unsigned long long)jobs[t].sum_stdio);
		bad |= jobs[t].bad;
	}
	close(log_fd);
	/* the appends interleave differently each run: keep them sorted */
	struct stat st;
	stat(p, &st);
	char *lines = malloc((size_t)st.st_size + 1);
	fd = open(p, O_RDONLY);
	bad |= read(fd, lines, (size_t)st.st_size) != st.st_size;
	close(fd);
	unlink(p);
	qsort(lines, (size_t)st.st_size / 32, 32, (int (*)(const void *, const void *))strcmp32);
	strcat(p, ".sorted");
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	bad |= write(fd, lines, (size_t)st.st_size) != st.st_size;
	close(fd);
	printf("log %lld bytes %016llx\n", (long long)st.st_size,
	       (unsigned long long)mix(1469598103934665603ull, (unsigned char *)lines, (size_t)st.st_size));
	free(lines);
	free(jobs);
	free(tids);
	return bad;
}
