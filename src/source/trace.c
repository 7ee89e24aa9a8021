/* trace - the I/O tracer's regions (src/trace/region.h): per process,
 * the time spent inside I/O calls, bytes and ops each tick (io_intervals),
 * the same per descriptor class and main thread/others (io_classes),
 * every operation when --trace-ops (ops), and every file the job touched
 * with its counters (files) and its sockets' endpoint pairs (peers),
 * written when the process is gone or at the end. Also says which job
 * processes the tracer could not see (static binaries, LD_PRELOAD
 * removed, no room for a region) and which used io_uring.
 *
 * A region is opened when it first appears in the directory, its name is
 * unlinked at once (nothing in the job can find it to truncate or replace
 * it after that; the open descriptor keeps it), and it is read by pread
 * into private copies (traceread.h), never mapped: a region damaged under
 * the recorder is reported and dropped, it cannot fault the recorder. When
 * its process is gone (kill(pid, 0): ESRCH) the region is read a last time
 * (io_intervals, ops, files rows) and closed, which frees its memory: a job
 * that runs 10 000 short processes holds only the regions of the live ones.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/source.h"
#include "source/tracefmt.h"
#include "source/traceread.h"
#include "trace/region.h"

#define MAX_OPS_ROWS 2000000   /* per run: --trace-ops is bounded */
#define MAX_UNTRACED_LISTED 1000 /* trace.untraced.<pid> rows; trace.untraced counts them all */
#define NO_REGION_TICKS 5      /* ticks a process with the tracer loaded may go without a region */
#define RECHECK_S 1.0          /* a traced process is looked at again after this (it may exec) */

struct region {
	int fd;
	int pid;
	struct fs_trace_head h; /* the latest header read */
	uint64_t io_time, read_bytes, write_bytes, data_ops, meta_ops; /* emitted up to */
	uint64_t ops_read; /* ring position read up to */
	struct fs_trace_class cls_done[FS_TRACE_THREADS][FS_TRACE_CLASSES]; /* io_classes emitted up to */
	bool said_blind;
	bool replaced; /* a later image of the same pid has a region: read it a last time */
};

struct pending {
	int pid, ticks; /* no region yet, for that many ticks */
	double last_t;  /* the latest of them */
};

struct trace_state {
	char dir[512];
	struct region *regions;
	int n, cap;
	struct fs_trace_timebase clock;
	struct fs_trace_reader rd;
	/* The directory is listed only when something may have appeared in it:
	 * inotify said a name was made there, or a region seen last time was
	 * not yet whole (or could not be opened). ino < 0: every tick. */
	int ino;
	bool rescan;
	uint64_t ops_rows, ops_lost, files_rows, untraced;
	int regions_seen;
	/* Job pids judged, open addressing (pid 0: free): when to look again;
	 * INFINITY: never (said untraced, or its region was damaged). */
	int *judged_pid;
	double *judged_next;
	int njudged, capjudged;
	struct pending *pending;
	int npending, cappending;
	char self_exe[512];
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
	s->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ino >= 0 && inotify_add_watch(s->ino, s->dir, IN_CREATE | IN_MOVED_TO) < 0) {
		close(s->ino);
		s->ino = -1;
	}
	s->rescan = true;
	*state = s;
	return FS_SOURCE_OK;
}

static int grow_judged(struct trace_state *s)
{
	int cap = s->capjudged ? 2 * s->capjudged : 256;
	int *pids = calloc((size_t)cap, sizeof *pids);
	double *next = calloc((size_t)cap, sizeof *next);
	if (!pids || !next) {
		free(pids);
		free(next);
		return -1;
	}
	for (int i = 0; i < s->capjudged; i++) {
		if (!s->judged_pid[i])
			continue;
		unsigned h = (unsigned)s->judged_pid[i] * 2654435761u % (unsigned)cap;
		while (pids[h])
			h = (h + 1) % (unsigned)cap;
		pids[h] = s->judged_pid[i];
		next[h] = s->judged_next[i];
	}
	free(s->judged_pid);
	free(s->judged_next);
	s->judged_pid = pids;
	s->judged_next = next;
	s->capjudged = cap;
	return 0;
}

/* When to look at job process pid again, or NULL if it was never judged
 * (add: make its entry, at 0; NULL only if out of memory). */
static double *judged(struct trace_state *s, int pid, bool add)
{
	if (add && 2 * (s->njudged + 1) > s->capjudged && grow_judged(s) < 0)
		return NULL;
	if (!s->capjudged)
		return NULL;
	unsigned h = (unsigned)pid * 2654435761u % (unsigned)s->capjudged;
	while (s->judged_pid[h] && s->judged_pid[h] != pid)
		h = (h + 1) % (unsigned)s->capjudged;
	if (!s->judged_pid[h]) {
		if (!add)
			return NULL;
		s->judged_pid[h] = pid;
		s->judged_next[h] = 0;
		s->njudged++;
	}
	return &s->judged_next[h];
}

static bool settled(struct trace_state *s, int pid)
{
	double *at = judged(s, pid, false);
	return at && isinf(*at);
}

static void settle(struct trace_state *s, int pid)
{
	double *at = judged(s, pid, true);
	if (at)
		*at = INFINITY;
}

/* meta trace.untraced.<pid> = "EXE: why", once per pid (the first
 * MAX_UNTRACED_LISTED pids). exe: what the process runs if known, else "":
 * /proc/PID/exe is asked. */
__attribute__((format(printf, 5, 6))) static void say_untraced(struct trace_state *s, const struct fs_source_ctx *ctx,
							       int pid, const char *exe_known, const char *fmt, ...)
{
	if (settled(s, pid)) /* a fork child and its exec'd image: one process */
		return;
	settle(s, pid);
	if (s->untraced++ >= MAX_UNTRACED_LISTED)
		return;
	char rel[64], path[600], exe[512] = "", why[400];
	snprintf(rel, sizeof rel, "%d/exe", pid);
	ssize_t n = readlink(fs_proc_path(path, sizeof path, ctx->paths, rel), exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (exe_known[0])
		snprintf(exe, sizeof exe, "%s", exe_known);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	char key[64];
	snprintf(key, sizeof key, "trace.untraced.%d", pid);
	fs_sink_metaf(ctx->sink, key, "%s: %s", exe[0] ? exe : "?", why);
}

/* untraced.<pid>.<stage>.<errno>: a process image the tracer could not give
 * a region (region.h). Said, then removed. */
static void take_marker(struct trace_state *s, const struct fs_source_ctx *ctx, int dfd, const char *name)
{
	int pid, err, end = 0;
	char stage[16];
	if (sscanf(name, FS_TRACE_UNTRACED_PREFIX "%d.%15[a-z].%d%n", &pid, stage, &err, &end) == 3 && pid > 0) {
		const char *what = !strcmp(stage, FS_TRACE_STAGE_SPACE) ? "no room for its region"
				   : !strcmp(stage, FS_TRACE_STAGE_MAP) ? "its region could not be mapped"
									: "its region could not be created";
		const char *exe = name[end] == '.' ? name + end + 1 : "";
		say_untraced(s, ctx, pid, exe, "%s in %s (%s): its file I/O is not seen", what, s->dir, strerror(err));
	}
	unlinkat(dfd, name, 0);
}

/* Open a region that appeared, take its name away, start reading it. A
 * file that is not (yet) a whole region is left for the next tick (false:
 * the directory is to be listed again then). */
static bool adopt(struct trace_state *s, int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT; /* gone; or out of descriptors: next tick */
	struct stat st;
	struct fs_trace_head h;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fs_trace_read_head(fd, &h, true) != 0 || h.pid <= 0) {
		close(fd);
		return false; /* being created (the magic is written last), or not a region */
	}
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct region *p = realloc(s->regions, (size_t)cap * sizeof *p);
		if (!p) {
			close(fd);
			return false;
		}
		s->regions = p;
		s->cap = cap;
	}
	unlinkat(dfd, name, 0);
	struct region *g = &s->regions[s->n++];
	memset(g, 0, sizeof *g);
	g->fd = fd;
	g->pid = h.pid;
	g->h = h;
	s->regions_seen++;
	/* Two regions of one pid: the older was made by an image that has
	 * since exec'd (or by a process whose pid was reused), and nothing
	 * writes it any more. */
	for (int k = 0; k < s->n - 1; k++) {
		struct region *o = &s->regions[k];
		if (o->pid == g->pid)
			(o->h.mono0_ns <= g->h.mono0_ns ? o : g)->replaced = true;
	}
	return true;
}

/* Whether a name may have been made in the directory since the last scan
 * (the inotify queue drained on the way). */
static bool dir_changed(struct trace_state *s)
{
	if (s->ino < 0)
		return true;
	bool changed = false;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(s->ino, buf, sizeof buf)) > 0)
		changed = true; /* IN_CREATE, IN_MOVED_TO or IN_Q_OVERFLOW: all mean "list it" */
	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		close(s->ino); /* cannot be trusted any more: list every tick */
		s->ino = -1;
		return true;
	}
	return changed;
}

/* Regions and markers that appeared since the last tick. */
static void scan(struct trace_state *s, const struct fs_source_ctx *ctx)
{
	if (!dir_changed(s) && !s->rescan)
		return;
	DIR *d = opendir(s->dir);
	s->rescan = !d;
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9') {
			if (!adopt(s, dirfd(d), e->d_name))
				s->rescan = true;
		} else if (!strncmp(e->d_name, FS_TRACE_UNTRACED_PREFIX, sizeof FS_TRACE_UNTRACED_PREFIX - 1))
			take_marker(s, ctx, dirfd(d), e->d_name);
	}
	closedir(d);
}

static void drop(struct trace_state *s, int i)
{
	close(s->regions[i].fd);
	s->regions[i] = s->regions[--s->n];
}

static void damaged(struct trace_state *s, const struct fs_source_ctx *ctx, int i)
{
	char key[64];
	snprintf(key, sizeof key, "trace.damaged.%d", s->regions[i].pid);
	fs_sink_metaf(ctx->sink, key, "its region was truncated or rewritten under the recorder at t=%.3f s: "
		      "what it counted after the previous tick, and its files rows, are lost", ctx->t);
	settle(s, s->regions[i].pid); /* not to be called untraced for it */
	drop(s, i);
}

/* A new header of the same region: same process, counters never lower. */
static bool follows(const struct fs_trace_head *old, const struct fs_trace_head *h)
{
	return h->pid == old->pid && h->ops_enabled == old->ops_enabled && h->io_time >= old->io_time &&
	       h->read_bytes >= old->read_bytes && h->write_bytes >= old->write_bytes &&
	       h->data_ops >= old->data_ops && h->meta_ops >= old->meta_ops && h->ops_head >= old->ops_head;
}

static void emit_interval(struct trace_state *s, struct region *g, const struct fs_source_ctx *ctx)
{
	const struct fs_trace_head *r = &g->h;
	if (r->io_time == g->io_time && r->data_ops == g->data_ops && r->meta_ops == g->meta_ops)
		return; /* nothing happened: no row */
	struct fs_row row;
	fs_row_init(&row, FS_T_IO_INTERVALS, ctx->t);
	fs_row_int(&row, FS_IO_INTERVALS_pid, r->pid);
	fs_row_real(&row, FS_IO_INTERVALS_io_time_s, fs_trace_clock_seconds(&s->clock, r, r->io_time - g->io_time));
	fs_row_int(&row, FS_IO_INTERVALS_read_bytes, (int64_t)(r->read_bytes - g->read_bytes));
	fs_row_int(&row, FS_IO_INTERVALS_write_bytes, (int64_t)(r->write_bytes - g->write_bytes));
	fs_row_int(&row, FS_IO_INTERVALS_ops, (int64_t)(r->data_ops - g->data_ops + r->meta_ops - g->meta_ops));
	fs_row_int(&row, FS_IO_INTERVALS_meta_ops, (int64_t)(r->meta_ops - g->meta_ops));
	fs_sink_row(ctx->sink, &row);
	g->io_time = r->io_time;
	g->read_bytes = r->read_bytes;
	g->write_bytes = r->write_bytes;
	g->data_ops = r->data_ops;
	g->meta_ops = r->meta_ops;
}

static void say_blind(struct region *g, const struct fs_source_ctx *ctx)
{
	uint64_t blind = g->h.blind;
	if (!blind || g->said_blind)
		return;
	g->said_blind = true;
	char key[64];
	snprintf(key, sizeof key, "trace.blind.%d", g->pid);
	fs_sink_metaf(ctx->sink, key, "%s%s%s%s%s", (blind & FS_TRACE_BLIND_IO_URING) ? "io_uring used (its I/O is not seen) " : "",
		      (blind & FS_TRACE_BLIND_FILES_FULL) ? "more files than records (the rest in '(other files)') " : "",
		      (blind & FS_TRACE_BLIND_OPS_LOST) ? "op ring overran " : "",
		      (blind & FS_TRACE_BLIND_NO_SPACE) ? "no room for more file records in the region's directory "
							  "(the rest in '(other files)') " : "",
		      (blind & FS_TRACE_BLIND_PEERS_FULL) ? "more socket endpoint pairs than entries "
							    "(the rest in '(other peers)') " : "");
}

/* Read region i's header (and ring), emit what is new. final: its process
 * is gone, this is the last read. Returns 0, or -1 if the region was
 * damaged (then dropped). */
static int update(struct trace_state *s, const struct fs_source_ctx *ctx, int i, bool final)
{
	struct region *g = &s->regions[i];
	struct fs_trace_head h;
	if (fs_trace_read_head(g->fd, &h, false) != 0 || !follows(&g->h, &h)) {
		damaged(s, ctx, i);
		return -1;
	}
	g->h = h;
	emit_interval(s, g, ctx);
	fs_trace_emit_classes(&s->clock, &g->h, g->cls_done, ctx);
	if (h.ops_enabled && fs_trace_emit_ops(&s->clock, &g->h, &s->rd, g->fd, &g->ops_read, final, ctx,
					       ctx->job->hash_paths, &s->ops_rows, MAX_OPS_ROWS, &s->ops_lost) < 0) {
		damaged(s, ctx, i);
		return -1;
	}
	say_blind(g, ctx);
	return 0;
}

/* The last read of region i (its process is gone, or the run ends): its
 * files rows, then the region is closed and so freed. */
static void fold(struct trace_state *s, const struct fs_source_ctx *ctx, int i)
{
	if (update(s, ctx, i, true) != 0)
		return;
	struct region *g = &s->regions[i];
	if (fs_trace_read_files(&s->rd, g->fd, &g->h) < 0) {
		damaged(s, ctx, i);
		return;
	}
	s->files_rows += fs_trace_emit_files(&s->clock, &g->h, s->rd.files, ctx, ctx->job->hash_paths);
	if (fs_trace_read_peers(&s->rd, g->fd) < 0) {
		damaged(s, ctx, i);
		return;
	}
	fs_trace_emit_peers(&s->clock, &g->h, s->rd.peers, ctx, ctx->job->hash_paths);
	drop(s, i);
}

/* Whether pid has a region made by its current image: the region's exe
 * (a tail of the path) is the process's (exe: /proc/PID/exe). */
static bool has_region(const struct trace_state *s, int pid, const char *exe)
{
	size_t n = strlen(exe), keep = sizeof s->regions[0].h.exe - 1;
	const char *tail = n > keep ? exe + n - keep : exe;
	for (int k = 0; k < s->n; k++)
		if (s->regions[k].pid == pid && !strcmp(s->regions[k].h.exe, tail))
			return true;
	return false;
}

/* Ticks this pid has gone without a region, counting this one (entries
 * not counted for RECHECK_S are dropped on the way). */
static int pending_ticks(struct trace_state *s, const struct fs_source_ctx *ctx, int pid)
{
	for (int k = s->npending - 1; k >= 0; k--) {
		struct pending *p = &s->pending[k];
		if (p->pid == pid) {
			p->last_t = ctx->t;
			return ++p->ticks;
		}
		if (p->last_t < ctx->t - RECHECK_S) /* gone, or settled since */
			*p = s->pending[--s->npending];
	}
	if (s->npending == s->cappending) {
		int cap = s->cappending ? 2 * s->cappending : 16;
		struct pending *p = realloc(s->pending, (size_t)cap * sizeof *p);
		if (!p)
			return 0;
		s->pending = p;
		s->cappending = cap;
	}
	s->pending[s->npending++] = (struct pending){pid, 1, ctx->t};
	return 1;
}

static void forget_pending(struct trace_state *s, int pid)
{
	for (int k = 0; k < s->npending; k++)
		if (s->pending[k].pid == pid) {
			s->pending[k] = s->pending[--s->npending];
			return;
		}
}

/* Whether the file at path (a /proc/PID/maps) holds word: 1, 0, or -1 if
 * it cannot be read. Read to its end: /proc/PID/maps comes a page or so per
 * read, and an ASan process's starts with pages of shadow mappings. */
static int maps_have(const char *path, const char *word)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[16384 + 64];
	size_t keep = 0, wlen = strlen(word);
	int found = 0;
	ssize_t n;
	while (!found && (n = read(fd, buf + keep, sizeof buf - 1 - keep)) > 0) {
		size_t len = keep + (size_t)n;
		buf[len] = '\0';
		found = strstr(buf, word) != NULL;
		keep = len < wlen ? len : wlen; /* a word cut between two reads */
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return found;
}

/* Whether job process pid is traced: 1 (a region of its current image),
 * -1 (it is not: said in meta), 0 (not known yet: a process not yet past
 * its exec, a region not yet seen). */
static int judge(struct trace_state *s, const struct fs_source_ctx *ctx, int pid)
{
	char rel[64], path[600], exe[512] = "";
	snprintf(rel, sizeof rel, "%d/exe", pid);
	ssize_t n = readlink(fs_proc_path(path, sizeof path, ctx->paths, rel), exe, sizeof exe - 1);
	if (n <= 0)
		return 0; /* gone */
	exe[n] = '\0';
	/* the job's first process is feedscope itself until it execs: judge it after */
	if (!strcmp(exe, s->self_exe))
		return 0;
	if (has_region(s, pid, exe))
		return 1;
	snprintf(rel, sizeof rel, "%d/maps", pid);
	int loaded = maps_have(fs_proc_path(path, sizeof path, ctx->paths, rel), "libfeedscope-trace");
	if (loaded < 0)
		return 0;
	if (!loaded) {
		/* seen twice, a tick apart: not a process caught between its
		 * exec and the loader's mapping of LD_PRELOAD */
		if (pending_ticks(s, ctx, pid) < 2)
			return 0;
		say_untraced(s, ctx, pid, exe, "the tracer is not loaded (static binary, or LD_PRELOAD removed): "
			     "its file I/O is not seen");
		return -1;
	}
	/* loaded: its region comes next tick, unless it made none */
	if (pending_ticks(s, ctx, pid) < NO_REGION_TICKS)
		return 0;
	say_untraced(s, ctx, pid, exe, "the tracer is loaded but has no region in %s: its file I/O is not seen", s->dir);
	return -1;
}

/* Job processes with no region of their current image: judged when first
 * seen, a traced one again every RECHECK_S (an exec may leave the tracer
 * behind). */
static void check_untraced(struct trace_state *s, const struct fs_source_ctx *ctx)
{
	const struct fs_job *job = ctx->job;
	for (int i = 0; i < job->npids; i++) {
		int pid = job->pids[i];
		double *at = judged(s, pid, false);
		if (at && ctx->t < *at)
			continue;
		int v = judge(s, ctx, pid);
		if (v != 0)
			forget_pending(s, pid);
		if (v > 0 && (at = judged(s, pid, true))) /* again: judge may have grown the table */
			*at = ctx->t + RECHECK_S;
	}
}

/* Whether pid has exited (a zombie has not): not when the job source read
 * it fine this tick (it samples first and publishes the pids it read),
 * else as kill(pid, 0) says. */
static bool gone(const struct fs_job *job, int pid)
{
	for (int i = 0; i < job->npids; i++)
		if (job->pids[i] == pid)
			return false;
	return kill(pid, 0) != 0 && errno == ESRCH;
}

static int trace_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	struct trace_state *s = state;
	fs_trace_clock_update(&s->clock, ctx->now_ns);
	scan(s, ctx);
	for (int i = s->n - 1; i >= 0; i--) { /* backwards: fold and drop move the last one here */
		if (s->regions[i].replaced || gone(ctx->job, s->regions[i].pid))
			fold(s, ctx, i);
		else
			update(s, ctx, i, false);
	}
	check_untraced(s, ctx);
	return FS_SOURCE_OK;
}

static void trace_close(void *state)
{
	struct trace_state *s = state;
	for (int i = 0; i < s->n; i++)
		close(s->regions[i].fd);
	if (s->ino >= 0)
		close(s->ino);
	free(s->regions);
	free(s->judged_pid);
	free(s->judged_next);
	free(s->pending);
	fs_trace_reader_free(&s->rd);
	free(s);
}

/* The regions still open are read a last time at the end (fs_trace_finish,
 * called by the recorder through the ops' finish hook). */
static void trace_finish(void *state, const struct fs_source_ctx *ctx)
{
	struct trace_state *s = state;
	fs_trace_clock_update(&s->clock, ctx->now_ns);
	s->rescan = true; /* the last look: listed whatever inotify said */
	scan(s, ctx);
	while (s->n > 0)
		fold(s, ctx, s->n - 1);
	fs_sink_metaf(ctx->sink, "trace.regions", "%d", s->regions_seen);
	fs_sink_metaf(ctx->sink, "trace.files", "%llu", (unsigned long long)s->files_rows);
	if (s->untraced)
		fs_sink_metaf(ctx->sink, "trace.untraced", "%llu", (unsigned long long)s->untraced);
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
