/* stalls (render) - stalls as text and JSON (stalls.h). */
#include "render/stalls.h"

#include <math.h>
#include <string.h>

#include "util/text.h"

static const char *nz(const char *s)
{
	return s ? s : "";
}

void fs_stall_phrase(char *out, size_t cap, const struct fs_stall_what *w)
{
	char raw[900], tgt[400];
	const char *sc = nz(w->syscall);
	size_t o;
	if (!w->state)
		o = (size_t)snprintf(raw, sizeof raw, "gone");
	else if (!strcmp(sc, "running"))
		o = (size_t)snprintf(raw, sizeof raw, "%c running (no system call)", w->state);
	else if (!*sc)
		o = (size_t)snprintf(raw, sizeof raw, "%c (system call unknown)", w->state);
	else if (!strcmp(sc, "none"))
		o = (size_t)snprintf(raw, sizeof raw, "%c outside a system call", w->state);
	else
		o = (size_t)snprintf(raw, sizeof raw, "%c in %s", w->state, sc);
	tgt[0] = '\0';
	if (nz(w->peer)[0] && nz(w->kind)[0] && strcmp(w->kind, "unix"))
		snprintf(tgt, sizeof tgt, " on %s %s", w->kind, w->peer);
	else if (nz(w->kind)[0] && !strcmp(w->kind, "unix"))
		snprintf(tgt, sizeof tgt, " on unix socket %s", nz(w->peer)[0] ? w->peer : "(unnamed)");
	else if (nz(w->kind)[0] && (!strcmp(w->kind, "polled") || !strcmp(w->kind, "pipe") || !strcmp(w->kind, "anon")))
		snprintf(tgt, sizeof tgt, " on %s", nz(w->target));
	else if (nz(w->target)[0])
		snprintf(tgt, sizeof tgt, " on %s%s%s", nz(w->kind)[0] && strcmp(w->kind, "path") ? w->kind : "",
			 nz(w->kind)[0] && strcmp(w->kind, "path") ? " " : "", w->target);
	if (o < sizeof raw)
		o += (size_t)snprintf(raw + o, sizeof raw - o, "%s", tgt);
	if (o < sizeof raw && nz(w->wchan)[0] && strcmp(sc, "running"))
		snprintf(raw + o, sizeof raw - o, " (wchan %s)", w->wchan);
	fs_text_escape(out, cap, raw);
}

int fs_stall_python_top(const char *dump, int n, char *out, size_t cap)
{
	const char *p = dump ? strstr(dump, "Current thread ") : NULL;
	if (!p && dump)
		p = strstr(dump, "Thread ");
	if (!p && dump)
		p = strstr(dump, "Stack (most recent call first)");
	char raw[1024];
	size_t o = 0;
	int k = 0;
	raw[0] = '\0';
	for (p = p ? strchr(p, '\n') : NULL; p && k < n; p = strchr(p + 1, '\n')) {
		const char *line = p + 1;
		char file[512], func[128];
		int lineno;
		if (sscanf(line, "  File \"%511[^\"]\", line %d in %127[^\n]", file, &lineno, func) != 3)
			break; /* the thread's block ended */
		const char *base = strrchr(file, '/');
		int w = snprintf(raw + o, sizeof raw - o, "%s%s (%s:%d)", k ? " < " : "", func, base ? base + 1 : file,
				 lineno);
		if (w < 0 || (size_t)w >= sizeof raw - o)
			break;
		o += (size_t)w;
		k++;
	}
	fs_text_escape(out, cap, raw);
	return k;
}

static void what_of(const struct fs_stall_proc *p, struct fs_stall_what *w)
{
	*w = (struct fs_stall_what){.state = p->state[0], .syscall = p->syscall, .fd = p->fd, .kind = p->target_kind,
				    .target = p->target, .peer = p->peer, .wchan = p->wchan};
}

static void text_proc(FILE *out, const struct fs_stall_proc *p)
{
	char phrase[1200], comm[300], top[1200], why[400], ks[1600];
	struct fs_stall_what w;
	what_of(p, &w);
	fs_stall_phrase(phrase, sizeof phrase, &w);
	fprintf(out, "      %s %d (%s) %s\n", p->role, p->pid, fs_text_escape(comm, sizeof comm, p->comm), phrase);
	if (p->python_stack && fs_stall_python_top(p->python_stack, 4, top, sizeof top) > 0)
		fprintf(out, "        Python: %s\n", top);
	else
		fprintf(out, "        Python: %s\n", fs_text_escape(why, sizeof why, p->python[0] ? p->python : "none"));
	if (p->kstack[0])
		fprintf(out, "        kernel: %s\n", fs_text_escape(ks, sizeof ks, p->kstack));
}

void fs_stalls_render_text(FILE *out, const struct fs_stalls *s)
{
	if (!s || s->n == 0)
		return;
	double longest = 0;
	for (int i = 0; i < s->n; i++)
		if (!isnan(s->v[i].t_end) && s->v[i].t_end - s->v[i].t_start > longest)
			longest = s->v[i].t_end - s->v[i].t_start;
	fprintf(out, "\n  stalls: %d (no progress for longer than the bound; the longest %.1f s)\n", s->n, longest);
	for (int i = 0; i < s->n; i++) {
		const struct fs_stall_rec *r = &s->v[i];
		char basis[300];
		fprintf(out, "    stall %d: from t = %.1f s, found at t = %.1f s (bound %.3g s; %s); ", r->stall,
			r->t_start, r->t_detect, r->bound_s, fs_text_escape(basis, sizeof basis, r->basis));
		if (isnan(r->t_end))
			fprintf(out, "no end recorded (feedscope stopped during it)\n");
		else
			fprintf(out, "progress again at t = %.1f s, after %.1f s\n", r->t_end, r->t_end - r->t_start);
		for (int pass = 0; pass < 2; pass++) /* the workers first: the loop waits on them */
			for (int k = 0; k < r->nprocs; k++)
				if ((pass == 0) == !!strcmp(r->procs[k].role, "main"))
					text_proc(out, &r->procs[k]);
	}
}

static void json_proc(struct fs_json *j, const struct fs_stall_proc *p)
{
	char top[1200];
	fs_json_object(j, NULL);
	fs_json_int(j, "pid", p->pid);
	fs_json_int(j, "ppid", p->ppid);
	fs_json_string(j, "role", p->role);
	fs_json_string(j, "comm", p->comm);
	fs_json_string(j, "state", p->state[0] ? p->state : NULL);
	fs_json_string(j, "syscall", p->syscall[0] ? p->syscall : NULL);
	if (p->syscall_nr >= 0)
		fs_json_int(j, "syscall_nr", p->syscall_nr);
	else
		fs_json_string(j, "syscall_nr", NULL);
	if (p->fd >= 0)
		fs_json_int(j, "fd", p->fd);
	else
		fs_json_string(j, "fd", NULL);
	fs_json_string(j, "target", p->target[0] ? p->target : NULL);
	fs_json_string(j, "target_kind", p->target_kind[0] ? p->target_kind : NULL);
	fs_json_string(j, "peer", p->peer[0] ? p->peer : NULL);
	fs_json_string(j, "wchan", p->wchan[0] ? p->wchan : NULL);
	fs_json_string(j, "kernel_stack", p->kstack[0] ? p->kstack : NULL);
	fs_json_string(j, "python", p->python[0] ? p->python : NULL);
	fs_json_string(j, "python_top", p->python_stack && fs_stall_python_top(p->python_stack, 4, top, sizeof top) > 0
						? top : NULL);
	fs_json_string(j, "python_stack", p->python_stack);
	fs_json_end(j);
}

void fs_stalls_render_json(struct fs_json *j, const struct fs_stalls *s)
{
	fs_json_array(j, "stalls");
	for (int i = 0; s && i < s->n; i++) {
		const struct fs_stall_rec *r = &s->v[i];
		fs_json_object(j, NULL);
		fs_json_int(j, "stall", r->stall);
		fs_json_number(j, "t_start", r->t_start);
		fs_json_number(j, "t_detect", r->t_detect);
		fs_json_number(j, "t_end", r->t_end);
		fs_json_number(j, "seconds", isnan(r->t_end) ? NAN : r->t_end - r->t_start);
		fs_json_number(j, "bound_s", r->bound_s);
		fs_json_string(j, "basis", r->basis);
		fs_json_array(j, "processes");
		for (int k = 0; k < r->nprocs; k++)
			json_proc(j, &r->procs[k]);
		fs_json_end(j);
		fs_json_end(j);
	}
	fs_json_end(j);
}
