/* jobranks - the `ranks` table: which rank of a distributed job each of the
 * job's processes is, from the rank variables of its environment (RANK,
 * OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...: rankenv.c), hook or no hook.
 *
 * /proc/PID/environ holds the environment a program was started with, so it
 * is read when a process is first seen and again only when it runs another
 * program: exec changes its comm or, visible exactly when environ is
 * readable, the env_start/env_end fields of its stat (a process first seen
 * between fork and exec shows its parent's environment until then). A row is
 * written when the values differ from the process's last row. The text read
 * never leaves this file: it is parsed in a fixed buffer, only the numeric
 * values of the rank variables are kept, and the buffer is wiped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "source/job_int.h"

/* Re-reads allowed per process: a program that renames itself (prctl
 * PR_SET_NAME) changes its comm without an exec. */
#define JOB_ENV_MAX_READS 8

static const int rank_cols[FS_RANKENV__N] = {
	[FS_RANKENV_RANK] = FS_RANKS_rank,
	[FS_RANKENV_LOCAL_RANK] = FS_RANKS_local_rank,
	[FS_RANKENV_WORLD_SIZE] = FS_RANKS_world_size,
	[FS_RANKENV_NODE_RANK] = FS_RANKS_node_rank,
};

/* Is p's parent in the job? Then the process whose stat said so (read this
 * tick through the descriptors of its /proc directory) is the job's. */
static bool parent_in_job(struct job_state *s, const struct jproc *p)
{
	int ppid = p->now.st.ppid;
	return p->pid == s->root || (s->adopt && s->self_pid > 0 && ppid == s->self_pid) ||
	       (ppid > 0 && job_find(s, ppid));
}

static bool same_image(const struct jenv *e, const struct fs_pstat *st)
{
	return e->read && e->start == st->env_start && e->end == st->env_end &&
	       strcmp(e->comm, st->comm) == 0;
}

static void say_env(struct job_state *s, const struct fs_source_ctx *ctx, int pid, int err)
{
	if (s->said_env)
		return;
	s->said_env = true;
	char rel[32], path[512];
	snprintf(rel, sizeof rel, "%d/environ", pid);
	fs_sink_metaf(ctx->sink, "job.ranks",
		      "cannot read %s: %s; processes feedscope may not read have no ranks rows",
		      fs_proc_path(path, sizeof path, &s->paths, rel), strerror(err));
}

/* Read p's environment into s->envbuf. It is opened through p's task
 * directory: ".." of that descriptor is the /proc/PID directory of the very
 * process it was opened for, so a pid reused since gives an error, never
 * another process's environment. Returns the length (*cut: longer than
 * FS_RANKENV_CAP, read up to it), or -1 with errno set. */
static ssize_t read_environ(struct job_state *s, const struct jproc *p, bool *cut)
{
	*cut = false;
	if (p->task_fd < 0) {
		errno = ENOENT;
		return -1;
	}
	int fd = openat(p->task_fd, "../environ", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < FS_RANKENV_CAP) {
		ssize_t got = read(fd, s->envbuf + n, FS_RANKENV_CAP - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			explicit_bzero(s->envbuf, n);
			close(fd);
			errno = err;
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	char more;
	*cut = n == FS_RANKENV_CAP && read(fd, &more, 1) == 1;
	explicit_bzero(&more, sizeof more);
	close(fd);
	return (ssize_t)n;
}

static void emit(const struct fs_source_ctx *ctx, const struct jproc *p, const struct fs_rankenv *e)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_RANKS, ctx->t);
	fs_row_int(&r, FS_RANKS_pid, p->pid);
	fs_row_int(&r, FS_RANKS_ppid, p->now.st.ppid);
	for (int k = 0; k < FS_RANKENV__N; k++)
		if (e->have[k])
			fs_row_int(&r, rank_cols[k], e->value[k]);
	fs_row_text(&r, FS_RANKS_var, e->var[FS_RANKENV_RANK]);
	fs_row_real(&r, FS_RANKS_t, ctx->t);
	fs_sink_row(ctx->sink, &r);
}

void job_ranks_sample(struct job_state *s, const struct fs_source_ctx *ctx, struct jproc *p)
{
	struct jenv *e = &p->env;
	const struct fs_pstat *st = &p->now.st;
	if (!s->envbuf || st->state == 'Z' || st->state == 'X' || same_image(e, st) ||
	    e->reads >= JOB_ENV_MAX_READS || !parent_in_job(s, p))
		return;
	e->read = true;
	e->reads++;
	snprintf(e->comm, sizeof e->comm, "%s", st->comm);
	e->start = st->env_start;
	e->end = st->env_end;
	bool cut;
	ssize_t n = read_environ(s, p, &cut);
	if (n < 0) {
		if (errno == EACCES || errno == EPERM)
			say_env(s, ctx, p->pid, errno);
		return; /* gone, or no environ (a fixture tree): nothing to say */
	}
	if (n == 0)
		return; /* exiting (its memory is gone), or started with no environment */
	struct fs_rankenv now;
	bool any = fs_rankenv_parse(s->envbuf, (size_t)n, cut, &now);
	explicit_bzero(s->envbuf, (size_t)n);
	/* A first image without rank variables gives no row; a later one
	 * without them, after a row, gives a row of NULLs ("no longer"). */
	if ((!any && !e->emitted) || (e->emitted && fs_rankenv_equal(&now, &e->last)))
		return;
	emit(ctx, p, &now);
	e->last = now;
	e->emitted = true;
}
