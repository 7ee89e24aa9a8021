/* stall_probe - at a stall: what each process of the job is blocked on
 * (source/blocked.h), its Python stack through the hook's faulthandler,
 * the stall's line on stderr, and its rows (stall_int.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/stall_int.h"
#include "render/stalls.h"
#include "util/log.h"
#include "util/pfile.h"

/* Add why to what could not be read, once per kind of reason. */
static void missing(struct fs_stall *d, const char *why)
{
	if (!why[0] || strstr(d->missing, why) || strstr(why, "No such file"))
		return;
	size_t n = strlen(d->missing);
	snprintf(d->missing + n, sizeof d->missing - n, "%s%s", n ? "; " : "", why);
}

/* Whether pid catches sig (SigCgt of /proc/PID/status): a handler is
 * still there, so the signal cannot kill it. */
static bool catches(const struct fs_stall *d, int pid, int sig)
{
	char rel[64], path[512];
	struct fs_buf buf = {0};
	snprintf(rel, sizeof rel, "%d/status", pid);
	bool yes = false;
	if (fs_read_file(fs_proc_path(path, sizeof path, d->o.paths, rel), &buf) >= 0) {
		const char *p = strstr(buf.data, "\nSigCgt:");
		unsigned long long mask;
		yes = p && sscanf(p + 8, "%llx", &mask) == 1 && sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
	}
	fs_buf_free(&buf);
	return yes;
}

/* "S in read on fifo /data/q.fifo" (render/stalls.h), from the reading. */
static void describe(char *out, size_t cap, const struct fs_blocked *b)
{
	char num[32];
	const char *name = NULL;
	if (b->have_syscall && b->sc.kind == FS_SC_CALL) {
		snprintf(num, sizeof num, "syscall %ld", b->sc.nr);
		name = fs_syscall_name(b->sc.nr) ? fs_syscall_name(b->sc.nr) : num;
	} else if (b->have_syscall) {
		name = b->sc.kind == FS_SC_RUNNING ? "running" : "none";
	}
	struct fs_stall_what w = {.state = b->state, .syscall = name, .fd = b->fd, .kind = b->target_kind,
				  .target = b->target, .peer = b->peer, .wchan = b->wchan};
	fs_stall_phrase(out, cap, &w);
}

static char *dump_path(const struct fs_stall *d, int pid, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%d", d->o.stacks_dir, pid);
	return out;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Ask p's process for its stacks, where it registered the signal. */
static void ask_stacks(struct fs_stall *d, struct stall_probe *p)
{
	char path[512];
	int sig = d->o.stacks_signal;
	if (!d->o.stacks_dir) {
		snprintf(p->python, sizeof p->python, "needs the hook (the job ran without it)");
		return;
	}
	if (!fs_stall_is_hooked(d, &p->b)) {
		snprintf(p->python, sizeof p->python, "not hooked (not a Python process of the hook's)");
		return;
	}
	if (!catches(d, p->b.pid, sig)) {
		snprintf(p->python, sizeof p->python, "not asked: its handler for signal %d is gone", sig);
		return;
	}
	p->from = file_size(dump_path(d, p->b.pid, path, sizeof path));
	if (p->from < 0)
		p->from = 0;
	p->seen = p->from;
	if (syscall(SYS_tgkill, p->b.pid, p->b.pid, sig) < 0) {
		snprintf(p->python, sizeof p->python, "not asked: %s", strerror(errno));
		return;
	}
	p->signalled = true;
	snprintf(p->python, sizeof p->python, "no dump within %g s%s", FS_STALL_DUMP_WAIT_S,
		 p->b.state == 'D' ? " (in D: the handler runs when its call returns)" : "");
}

void fs_stall_probe_start(struct fs_stall *d, double last, double t)
{
	for (int i = 0; i < d->nprobes; i++)
		free(d->probes[i].stack);
	free(d->probes);
	d->nprobes = 0;
	d->probes = calloc(d->nprocs ? (size_t)d->nprocs : 1, sizeof *d->probes);
	for (int i = 0; d->probes && i < d->nprocs; i++) {
		struct stall_probe *p = &d->probes[d->nprobes];
		if (fs_blocked_read(d->o.paths, d->procs[i].pid, true, &p->b) < 0)
			continue; /* gone meanwhile */
		snprintf(p->role, sizeof p->role, "%s", d->procs[i].role);
		missing(d, p->b.syscall_why);
		missing(d, p->b.kstack_why);
		d->nprobes++;
	}
	/* the start now (the exporter's gauge), the processes when the stacks are in */
	struct fs_row r;
	fs_row_init(&r, FS_T_STALLS, 0);
	fs_row_int(&r, FS_STALLS_stall, d->nstalls);
	fs_row_text(&r, FS_STALLS_event, "start");
	fs_row_real(&r, FS_STALLS_t, t);
	fs_row_real(&r, FS_STALLS_t_start, last);
	fs_row_real(&r, FS_STALLS_bound_s, d->s_bound);
	fs_row_text(&r, FS_STALLS_basis, d->basis);
	fs_row_int(&r, FS_STALLS_procs, d->nprobes);
	fs_sink_row(d->inner, &r);
	/* the line, from the kernel's side: the stacks take a while */
	char line[1536], phrase[400];
	size_t o = (size_t)snprintf(line, sizeof line, "stall %d: no %s for %.1f s (bound %.3g s; %s) since t = %.1f s",
				    d->nstalls, d->steps ? "step" : "progress", t - last, d->s_bound, d->basis, last);
	int shown = 0, asked = 0;
	for (int pass = 0; pass < 2; pass++) /* workers first: the loop waits on them */
		for (int i = 0; i < d->nprobes && o < sizeof line; i++) {
			struct stall_probe *p = &d->probes[i];
			if ((pass == 0) != !!strcmp(p->role, "main"))
				continue;
			if (shown++ == 6) {
				o += (size_t)snprintf(line + o, sizeof line - o, "; %d more", d->nprobes - 6);
				break;
			}
			describe(phrase, sizeof phrase, &p->b);
			o += (size_t)snprintf(line + o, sizeof line - o, "; %s %d %s", p->role, p->b.pid, phrase);
		}
	for (int i = 0; i < d->nprobes; i++) {
		ask_stacks(d, &d->probes[i]);
		asked += d->probes[i].signalled;
	}
	if (o < sizeof line && d->o.stacks_dir)
		snprintf(line + o, sizeof line - o, "; Python stacks asked of %d processes", asked);
	else if (o < sizeof line)
		snprintf(line + o, sizeof line - o, "; Python stacks need the hook");
	fs_error("%s", line);
}

/* Read the new part of p's dump into p->stack; true when it grew and then
 * stayed the same size for a look (faulthandler writes it in one go). */
static bool read_dump(const struct fs_stall *d, struct stall_probe *p, bool last_look)
{
	char path[512];
	off_t size = file_size(dump_path(d, p->b.pid, path, sizeof path));
	bool stable = size > p->from && size == p->seen;
	p->seen = size;
	if (!(stable || (last_look && size > p->from)))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t len = (size_t)(size - p->from) < FS_STALL_STACK_BYTES ? (size_t)(size - p->from) : FS_STALL_STACK_BYTES;
	free(p->stack);
	p->stack = malloc(len + 1);
	ssize_t n = p->stack ? pread(fd, p->stack, len, p->from) : -1;
	close(fd);
	if (n <= 0) {
		free(p->stack);
		p->stack = NULL;
		return false;
	}
	p->stack[n] = '\0';
	snprintf(p->python, sizeof p->python, "dumped by the hook (faulthandler)");
	return true;
}

bool fs_stall_probe_collect(struct fs_stall *d, double t)
{
	bool last_look = t >= d->s_deadline, all = true;
	for (int i = 0; i < d->nprobes; i++) {
		struct stall_probe *p = &d->probes[i];
		if (p->signalled && !p->done)
			p->done = read_dump(d, p, last_look);
		all &= !p->signalled || p->done;
	}
	return all || last_look;
}

static void write_proc(struct fs_stall *d, const struct stall_probe *p)
{
	const struct fs_blocked *b = &p->b;
	struct fs_row r;
	char st[2] = {b->state, '\0'}, args[160] = "";
	fs_row_init(&r, FS_T_STALL_PROCS, 0);
	fs_row_int(&r, FS_STALL_PROCS_stall, d->nstalls);
	fs_row_int(&r, FS_STALL_PROCS_pid, b->pid);
	fs_row_int(&r, FS_STALL_PROCS_ppid, b->ppid);
	fs_row_text(&r, FS_STALL_PROCS_role, p->role);
	fs_row_text(&r, FS_STALL_PROCS_comm, b->comm);
	fs_row_text(&r, FS_STALL_PROCS_state, st);
	if (b->have_syscall && b->sc.kind == FS_SC_CALL) {
		const char *name = fs_syscall_name(b->sc.nr);
		char num[32];
		snprintf(num, sizeof num, "syscall %ld", b->sc.nr);
		fs_row_text(&r, FS_STALL_PROCS_syscall, name ? name : num);
		fs_row_int(&r, FS_STALL_PROCS_syscall_nr, b->sc.nr);
		snprintf(args, sizeof args, "0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx", (unsigned long long)b->sc.args[0],
			 (unsigned long long)b->sc.args[1], (unsigned long long)b->sc.args[2],
			 (unsigned long long)b->sc.args[3], (unsigned long long)b->sc.args[4],
			 (unsigned long long)b->sc.args[5]);
		fs_row_text(&r, FS_STALL_PROCS_args, args);
	} else if (b->have_syscall) {
		fs_row_text(&r, FS_STALL_PROCS_syscall, b->sc.kind == FS_SC_RUNNING ? "running" : "none");
	}
	if (b->fd >= 0)
		fs_row_int(&r, FS_STALL_PROCS_fd, b->fd);
	fs_row_text(&r, FS_STALL_PROCS_target, b->target[0] ? b->target : NULL);
	fs_row_text(&r, FS_STALL_PROCS_target_kind, b->target_kind[0] ? b->target_kind : NULL);
	fs_row_text(&r, FS_STALL_PROCS_peer, b->peer[0] ? b->peer : NULL);
	fs_row_text(&r, FS_STALL_PROCS_wchan, b->wchan[0] ? b->wchan : NULL);
	fs_row_text(&r, FS_STALL_PROCS_kernel_stack, b->kstack[0] ? b->kstack : NULL);
	fs_row_text(&r, FS_STALL_PROCS_python_stack, p->stack);
	fs_row_text(&r, FS_STALL_PROCS_python, p->python);
	fs_sink_row(d->inner, &r);
}

void fs_stall_probe_write(struct fs_stall *d)
{
	for (int i = 0; i < d->nprobes; i++) {
		write_proc(d, &d->probes[i]);
		free(d->probes[i].stack);
	}
	free(d->probes);
	d->probes = NULL;
	d->nprobes = 0;
}
