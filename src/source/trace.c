/* trace - the I/O tracer's regions (src/trace/region.h): per process,
 * the time spent inside I/O calls, bytes and ops each tick (io_intervals),
 * every operation when --trace-ops (ops), and at the end every file the job
 * touched with its counters (files). Also says which job processes the
 * tracer could not see (static binaries, LD_PRELOAD removed) and which used
 * io_uring. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source.h"
#include "source/tracefmt.h"
#include "trace/region.h"
#include "util/pfile.h"

#define MAX_OPS_ROWS 2000000 /* per run: --trace-ops is bounded */

struct region {
	char name[32];
	const struct fs_trace_region *r;
	size_t size;
	uint64_t io_time, read_bytes, write_bytes, data_ops, meta_ops; /* last seen */
	uint64_t ops_read; /* ring position read up to */
	bool said_blind;
};

struct trace_state {
	char dir[512];
	struct region *regions;
	int n, cap;
	struct fs_trace_timebase clock;
	uint64_t ops_rows, ops_lost;
	int *seen_pids; /* job pids checked for a region */
	char self_exe[512];
	int nseen, capseen;
	struct fs_buf buf;
};

static int trace_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	if (!ctx->job || !ctx->job->trace_dir) {
		snprintf(why, whylen, "no tracer in this job (feedscope run loads it unless --no-trace)");
		return FS_SOURCE_DISABLED;
	}
	struct trace_state *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	snprintf(s->dir, sizeof s->dir, "%s", ctx->job->trace_dir);
	ssize_t n = readlink("/proc/self/exe", s->self_exe, sizeof s->self_exe - 1);
	s->self_exe[n > 0 ? n : 0] = '\0';
	fs_trace_clock_init(&s->clock, ctx->now_ns);
	*state = s;
	return FS_SOURCE_OK;
}

/* Map regions created since the last tick. */
static void scan(struct trace_state *s)
{
	DIR *d = opendir(s->dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || strlen(e->d_name) >= sizeof s->regions[0].name)
			continue;
		bool known = false;
		for (int i = 0; i < s->n && !known; i++)
			known = !strcmp(s->regions[i].name, e->d_name);
		if (known)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(struct fs_trace_region)) {
			if (fd >= 0)
				close(fd);
			continue; /* not sized yet: next tick */
		}
		void *m = mmap(NULL, sizeof(struct fs_trace_region), PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED)
			continue;
		const struct fs_trace_region *r = m;
		if (__atomic_load_n(&r->magic, __ATOMIC_ACQUIRE) != FS_TRACE_MAGIC || r->version != FS_TRACE_VERSION) {
			munmap(m, sizeof(struct fs_trace_region));
			continue; /* not ready yet (magic is written last), or another version */
		}
		if (s->n == s->cap) {
			int cap = s->cap ? 2 * s->cap : 16;
			struct region *p = realloc(s->regions, (size_t)cap * sizeof *p);
			if (!p) {
				munmap(m, sizeof(struct fs_trace_region));
				break;
			}
			s->regions = p;
			s->cap = cap;
		}
		struct region *g = &s->regions[s->n++];
		memset(g, 0, sizeof *g);
		memcpy(g->name, e->d_name, strlen(e->d_name) + 1);
		g->r = r;
		g->size = sizeof(struct fs_trace_region);
	}
	closedir(d);
}

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void emit_interval(struct trace_state *s, struct region *g, const struct fs_source_ctx *ctx)
{
	const struct fs_trace_region *r = g->r;
	uint64_t io = load(&r->io_time), rb = load(&r->read_bytes), wb = load(&r->write_bytes);
	uint64_t dops = load(&r->data_ops), mops = load(&r->meta_ops);
	if (io == g->io_time && dops == g->data_ops && mops == g->meta_ops)
		return; /* nothing happened: no row */
	struct fs_row row;
	fs_row_init(&row, FS_T_IO_INTERVALS, ctx->t);
	fs_row_int(&row, FS_IO_INTERVALS_pid, r->pid);
	fs_row_real(&row, FS_IO_INTERVALS_io_time_s, fs_trace_clock_seconds(&s->clock, r, io - g->io_time));
	fs_row_int(&row, FS_IO_INTERVALS_read_bytes, (int64_t)(rb - g->read_bytes));
	fs_row_int(&row, FS_IO_INTERVALS_write_bytes, (int64_t)(wb - g->write_bytes));
	fs_row_int(&row, FS_IO_INTERVALS_ops, (int64_t)(dops - g->data_ops + mops - g->meta_ops));
	fs_row_int(&row, FS_IO_INTERVALS_meta_ops, (int64_t)(mops - g->meta_ops));
	fs_sink_row(ctx->sink, &row);
	g->io_time = io;
	g->read_bytes = rb;
	g->write_bytes = wb;
	g->data_ops = dops;
	g->meta_ops = mops;
}

static void say_blind(struct region *g, const struct fs_source_ctx *ctx)
{
	uint64_t blind = load(&g->r->blind);
	if (!blind || g->said_blind)
		return;
	g->said_blind = true;
	char key[64];
	snprintf(key, sizeof key, "trace.blind.%d", g->r->pid);
	fs_sink_metaf(ctx->sink, key, "%s%s%s", (blind & FS_TRACE_BLIND_IO_URING) ? "io_uring used (its I/O is not seen) " : "",
		      (blind & FS_TRACE_BLIND_FILES_FULL) ? "more files than records (the rest in '(other files)') " : "",
		      (blind & FS_TRACE_BLIND_OPS_LOST) ? "op ring overran " : "");
}

/* Job processes with no region: the tracer is not in them. */
static void check_untraced(struct trace_state *s, const struct fs_source_ctx *ctx)
{
	const struct fs_job *job = ctx->job;
	for (int i = 0; i < job->npids; i++) {
		int pid = job->pids[i];
		bool seen = false;
		for (int k = 0; k < s->nseen && !seen; k++)
			seen = s->seen_pids[k] == pid;
		if (seen)
			continue;
		bool has = false;
		for (int k = 0; k < s->n && !has; k++)
			has = s->regions[k].r->pid == pid;
		if (!has) {
			/* The job's first process is feedscope itself until it execs:
			 * judge it after. */
			char rel[64], path[600], exe[512] = "";
			snprintf(rel, sizeof rel, "%d/exe", pid);
			ssize_t n = readlink(fs_proc_path(path, sizeof path, ctx->paths, rel), exe, sizeof exe - 1);
			if (n > 0)
				exe[n] = '\0';
			if (!strcmp(exe, s->self_exe))
				continue;
			/* Loaded but no region yet: it comes next tick. */
			snprintf(rel, sizeof rel, "%d/maps", pid);
			if (fs_read_file(fs_proc_path(path, sizeof path, ctx->paths, rel), &s->buf) < 0)
				continue;
			if (strstr(s->buf.data, "libfeedscope-trace"))
				continue; /* loaded; its region comes next tick */
			char key[64];
			snprintf(key, sizeof key, "trace.untraced.%d", pid);
			fs_sink_metaf(ctx->sink, key, "%s: the tracer is not loaded (static binary, or LD_PRELOAD "
				      "removed): its file I/O is not seen", exe[0] ? exe : "?");
		}
		if (s->nseen == s->capseen) {
			int cap = s->capseen ? 2 * s->capseen : 32;
			int *p = realloc(s->seen_pids, (size_t)cap * sizeof *p);
			if (!p)
				return;
			s->seen_pids = p;
			s->capseen = cap;
		}
		s->seen_pids[s->nseen++] = pid;
	}
}

static int trace_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	struct trace_state *s = state;
	fs_trace_clock_update(&s->clock, ctx->now_ns);
	scan(s);
	for (int i = 0; i < s->n; i++) {
		struct region *g = &s->regions[i];
		emit_interval(s, g, ctx);
		if (g->r->ops_enabled)
			fs_trace_emit_ops(&s->clock, g->r, &g->ops_read, ctx, ctx->job->hash_paths, &s->ops_rows,
					  MAX_OPS_ROWS, &s->ops_lost);
		say_blind(g, ctx);
	}
	check_untraced(s, ctx);
	return FS_SOURCE_OK;
}

static void trace_close(void *state)
{
	struct trace_state *s = state;
	for (int i = 0; i < s->n; i++)
		munmap((void *)s->regions[i].r, s->regions[i].size);
	free(s->regions);
	free(s->seen_pids);
	fs_buf_free(&s->buf);
	free(s);
}

/* The files table is written once, at the end (fs_trace_finish, called by
 * the recorder through the ops' finish hook). */
static void trace_finish(void *state, const struct fs_source_ctx *ctx)
{
	struct trace_state *s = state;
	fs_trace_clock_update(&s->clock, ctx->now_ns);
	scan(s);
	uint64_t files = 0;
	for (int i = 0; i < s->n; i++) {
		emit_interval(s, &s->regions[i], ctx);
		files += fs_trace_emit_files(&s->clock, s->regions[i].r, ctx, ctx->job->hash_paths);
	}
	fs_sink_metaf(ctx->sink, "trace.regions", "%d", s->n);
	fs_sink_metaf(ctx->sink, "trace.files", "%llu", (unsigned long long)files);
	if (s->ops_lost || s->ops_rows >= MAX_OPS_ROWS)
		fs_sink_metaf(ctx->sink, "trace.ops_dropped", "%llu", (unsigned long long)s->ops_lost);
}

const struct fs_source_ops fs_source_trace = {
	.abi = FS_SOURCE_ABI,
	.name = "trace",
	.open = trace_open,
	.sample = trace_sample,
	.finish = trace_finish,
	.close = trace_close,
};
