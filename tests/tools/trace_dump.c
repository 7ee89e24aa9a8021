/* trace_dump - print every tracer region in a directory (src/trace/region.h),
 * mapped read-only, magic checked (acquire) before anything else, only the
 * records the header marks used, counters loaded with relaxed atomics (the
 * recorder itself reads them with pread: src/source/traceread.c).
 *
 *   trace_dump [--no-times] [--ops] [--strip PREFIX] DIR
 *
 * One line per region, then one per file record in use, then (--ops) one
 * per complete entry of the op ring, all "key=value" with the path last:
 *   region NAME pid= ppid= exe= clock=tsc|ns ops_enabled= io_time_s= read_bytes=
 *          write_bytes= data_ops= meta_ops= blind= nfiles= ops_head=
 *   file NAME idx= opens= reads= read_bytes= writes= write_bytes= seeks= stats=
 *          mmaps= fsyncs= meta_ops= seq_reads= consec_reads= max_offset= stdio_ops=
 *          hist=h0,...,h15 read_time_s= write_time_s= meta_time_s= sync_time_s=
 *          main_write_time_s= main_sync_time_s= main_meta_time_s= first_s= last_s= path=
 *   class NAME thread=main|other class=file|socket|pipe|device|other calls= read_bytes=
 *          write_bytes= read_s= write_s= sync_s= meta_s=   (only classes with calls)
 *   op NAME pos= tid= op= layer= file= offset= length= result= start_s= duration_s=
 * Times are seconds: TSC ticks are converted with a rate measured here
 * (CLOCK_MONOTONIC against the TSC over 50 ms); first_s/last_s/start_s count
 * from the region's creation. --no-times leaves every time out (for golden
 * output); --strip removes PREFIX from the start of paths.
 * Exit status: 0, or 1 if DIR cannot be read.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "trace/region.h"

static double ticks_per_s;
static int no_times, show_ops;
static const char *strip;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void measure_tsc(void)
{
#if defined(__x86_64__)
	uint64_t t0 = __rdtsc(), n0 = mono_ns();
	struct timespec d = {0, 50000000};
	nanosleep(&d, NULL);
	uint64_t t1 = __rdtsc(), n1 = mono_ns();
	ticks_per_s = (double)(t1 - t0) / ((double)(n1 - n0) / 1e9);
#endif
}

static double secs(const struct fs_trace_region *r, uint64_t units)
{
	if (r->clock_kind == FS_TRACE_CLOCK_NS)
		return (double)units / 1e9;
	return ticks_per_s > 0 ? (double)units / ticks_per_s : 0;
}

static double since(const struct fs_trace_region *r, uint64_t stamp)
{
	if (!stamp)
		return 0;
	return secs(r, stamp - r->tsc0);
}

static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static const char *show_path(const char *p)
{
	size_t n = strip ? strlen(strip) : 0;
	return n && strncmp(p, strip, n) == 0 ? p + n : p;
}

static void dump_file(const char *name, const struct fs_trace_region *r, int i)
{
	const struct fs_trace_file *f = &r->files[i];
	printf("file %s idx=%d opens=%llu reads=%llu read_bytes=%llu writes=%llu write_bytes=%llu "
	       "seeks=%llu stats=%llu mmaps=%llu fsyncs=%llu meta_ops=%llu seq_reads=%llu "
	       "consec_reads=%llu max_offset=%llu stdio_ops=%llu hist=",
	       name, i, (unsigned long long)ld(&f->opens), (unsigned long long)ld(&f->reads),
	       (unsigned long long)ld(&f->read_bytes), (unsigned long long)ld(&f->writes),
	       (unsigned long long)ld(&f->write_bytes), (unsigned long long)ld(&f->seeks),
	       (unsigned long long)ld(&f->stats), (unsigned long long)ld(&f->mmaps),
	       (unsigned long long)ld(&f->fsyncs), (unsigned long long)ld(&f->meta_ops),
	       (unsigned long long)ld(&f->seq_reads), (unsigned long long)ld(&f->consec_reads),
	       (unsigned long long)ld(&f->max_offset), (unsigned long long)ld(&f->stdio_ops));
	for (int b = 0; b < FS_TRACE_HIST; b++)
		printf("%s%llu", b ? "," : "", (unsigned long long)ld(&f->hist[b]));
	if (!no_times)
		printf(" read_time_s=%.9f write_time_s=%.9f meta_time_s=%.9f sync_time_s=%.9f main_write_time_s=%.9f "
		       "main_sync_time_s=%.9f main_meta_time_s=%.9f first_s=%.6f last_s=%.6f",
		       secs(r, ld(&f->read_time)), secs(r, ld(&f->write_time)), secs(r, ld(&f->meta_time)),
		       secs(r, ld(&f->sync_time)), secs(r, ld(&f->main_write_time)), secs(r, ld(&f->main_sync_time)),
		       secs(r, ld(&f->main_meta_time)), since(r, ld(&f->first)), since(r, ld(&f->last)));
	printf(" path=%s%s\n", f->path_len >= FS_TRACE_PATH ? "..." : "", show_path(f->path));
}

static void dump_classes(const char *name, const struct fs_trace_region *r)
{
	static const char *const cls[FS_TRACE_CLASSES] = {"file", "socket", "pipe", "device", "other"};
	for (int th = 0; th < FS_TRACE_THREADS; th++)
		for (int k = 0; k < FS_TRACE_CLASSES; k++) {
			const struct fs_trace_class *c = &r->cls[th][k];
			if (!ld(&c->calls))
				continue;
			printf("class %s thread=%s class=%s calls=%llu read_bytes=%llu write_bytes=%llu", name,
			       th == FS_TRACE_MAIN ? "main" : "other", cls[k], (unsigned long long)ld(&c->calls),
			       (unsigned long long)ld(&c->read_bytes), (unsigned long long)ld(&c->write_bytes));
			if (!no_times)
				printf(" read_s=%.9f write_s=%.9f sync_s=%.9f meta_s=%.9f", secs(r, ld(&c->read_time)),
				       secs(r, ld(&c->write_time)), secs(r, ld(&c->sync_time)), secs(r, ld(&c->meta_time)));
			printf("\n");
		}
}

static void dump_ops(const char *name, const struct fs_trace_region *r)
{
	uint64_t head = __atomic_load_n(&r->ops_head, __ATOMIC_ACQUIRE);
	uint64_t pos = head > FS_TRACE_OPS ? head - FS_TRACE_OPS : 0;
	for (; pos < head; pos++) {
		const struct fs_trace_op *o = &r->ops[pos % FS_TRACE_OPS];
		if (__atomic_load_n(&o->seq, __ATOMIC_ACQUIRE) != pos + 1)
			continue;
		struct fs_trace_op c;
		memcpy(&c, o, sizeof c);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&o->seq, __ATOMIC_RELAXED) != pos + 1)
			continue; /* overwritten while copied */
		printf("op %s pos=%llu tid=%d op=%u layer=%u file=%u offset=%lld length=%llu result=%lld", name,
		       (unsigned long long)pos, c.tid, c.op, c.layer, c.file, (long long)c.offset,
		       (unsigned long long)c.length, (long long)c.result);
		if (!no_times)
			printf(" start_s=%.9f duration_s=%.9f", since(r, c.start), secs(r, c.duration));
		printf("\n");
	}
}

static int dump_region(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < fs_trace_region_size(0)) {
		close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size; /* the op ring is there only with --trace-ops */
	const struct fs_trace_region *r = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		return -1;
	if (__atomic_load_n(&r->magic, __ATOMIC_ACQUIRE) != FS_TRACE_MAGIC || r->version != FS_TRACE_VERSION ||
	    size < fs_trace_region_size(r->ops_enabled != 0)) {
		munmap((void *)r, size);
		return -1;
	}
	printf("region %s pid=%d ppid=%d exe=%.*s clock=%s ops_enabled=%u", name, r->pid, r->ppid,
	       (int)sizeof r->exe, r->exe, r->clock_kind == FS_TRACE_CLOCK_TSC ? "tsc" : "ns", r->ops_enabled);
	if (!no_times)
		printf(" io_time_s=%.9f", secs(r, ld(&r->io_time)));
	printf(" read_bytes=%llu write_bytes=%llu data_ops=%llu meta_ops=%llu blind=0x%llx nfiles=%u ops_head=%llu\n",
	       (unsigned long long)ld(&r->read_bytes), (unsigned long long)ld(&r->write_bytes),
	       (unsigned long long)ld(&r->data_ops), (unsigned long long)ld(&r->meta_ops),
	       (unsigned long long)ld(&r->blind), __atomic_load_n(&r->nfiles, __ATOMIC_RELAXED),
	       (unsigned long long)ld(&r->ops_head));
	for (int i = 0; i < FS_TRACE_FILES; i++) /* the records marked used: the others may be holes */
		if (((__atomic_load_n(&r->used[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1) &&
		    __atomic_load_n(&r->files[i].state, __ATOMIC_ACQUIRE) == FS_TRACE_READY)
			dump_file(name, r, i);
	dump_classes(name, r);
	if (show_ops && r->ops_enabled)
		dump_ops(name, r);
	munmap((void *)r, size);
	return 0;
}

/* region names are <pid> or <pid>.<n>: numeric order */
static int by_name(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	long px = atol(x), py = atol(y);
	if (px != py)
		return px < py ? -1 : 1;
	const char *dx = strchr(x, '.'), *dy = strchr(y, '.');
	long sx = dx ? atol(dx + 1) : 0, sy = dy ? atol(dy + 1) : 0;
	return (sx > sy) - (sx < sy);
}

int main(int argc, char **argv)
{
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--no-times"))
			no_times = 1;
		else if (!strcmp(argv[i], "--ops"))
			show_ops = 1;
		else if (!strcmp(argv[i], "--strip") && i + 1 < argc)
			strip = argv[++i];
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: trace_dump [--no-times] [--ops] [--strip PREFIX] DIR\n");
		return 2;
	}
	const char *dir = argv[i];
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	char *names[4096];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 4096)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], by_name);
	if (!no_times)
		measure_tsc();
	for (int k = 0; k < n; k++) {
		dump_region(dir, names[k]);
		free(names[k]);
	}
	return 0;
}
