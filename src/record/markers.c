#include "record/markers.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/parse.h"
#include "util/text.h"

/* A step as its S1/S2 record gives it; an S2's is held (with the
 * connection it came on, fd >= 0) until its device figure comes. */
struct step {
	int fd; /* held: its connection; -1: a free place */
	uint64_t pid, epoch, step, since_ns;
	double t, wait_s, compute_s;
	/* the parts of next() (the hook's, optional): its sampler, the queue
	 * get (wall, and the thread's CPU in it), the pin thread's CPU; NaN:
	 * not sent */
	double index_s, get_s, get_cpu_s, pin_cpu_s;
	char loader[128];
};

struct fs_markers {
	int listen_fd;
	int conns[FS_MARKERS_MAX_CONNS];
	int nconns;
	int polled; /* conns[0..polled) are in the loop's poll set */
	uid_t job_uid;
	char address[108];
	uint64_t records, steps, phases, metas, stages, bad, refused, strangers, cleaned;
	/* S2 steps waiting for their D1, in arrival order: held[first..first+nheld)
	 * (mod FS_MARKERS_MAX_HELD), free places among them (fd -1) once written;
	 * allocated at the first S2 */
	struct step *held;
	int first, nheld;
	uint64_t announced, device, unmatched;
};

/* The listen backlog (capped by net.core.somaxconn): connections wait there
 * until the loop accepts them, so a stranger who connects in bursts must not
 * fill it before the job's own connect() comes. */
#define LISTEN_BACKLOG 4096
/* At most this many connections accepted per drain: a stranger connecting
 * in a loop cannot keep the loop from its ticks. */
#define ACCEPT_PER_DRAIN 1024

struct fs_markers *fs_markers_open(char *why, size_t whylen)
{
	struct fs_markers *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	uint64_t nonce = 0;
	if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
		nonce = (uint64_t)getpid() * 2654435761u ^ (uint64_t)(uintptr_t)m;
	m->job_uid = geteuid();
	snprintf(m->address, sizeof m->address, "@feedscope-%d-%016llx", (int)getpid(),
		 (unsigned long long)nonce);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(m->address);
	memcpy(sa.sun_path, m->address, n);
	sa.sun_path[0] = '\0'; /* abstract namespace */
	m->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0 ||
	    bind(m->listen_fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0 ||
	    listen(m->listen_fd, LISTEN_BACKLOG) < 0) {
		snprintf(why, whylen, "cannot listen on %s: %s", m->address, strerror(errno));
		if (m->listen_fd >= 0)
			close(m->listen_fd);
		free(m);
		return NULL;
	}
	return m;
}

void fs_markers_set_job_uid(struct fs_markers *m, uid_t uid)
{
	m->job_uid = uid;
}

const char *fs_markers_address(const struct fs_markers *m)
{
	return m->address;
}

int fs_markers_fds(struct fs_markers *m, int *fds, int cap)
{
	int n = 0;
	if (n < cap)
		fds[n++] = m->listen_fd;
	m->polled = 0;
	for (int i = 0; i < m->nconns && n < cap; i++, m->polled++)
		fds[n++] = m->conns[i];
	return n;
}

size_t fs_markers_clean(char *out, size_t cap, const char *in, size_t len, bool *changed)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, i = 0;
	*changed = false;
	if (cap == 0)
		return 0;
	while (i < len) {
		uint32_t c = 0;
		size_t n = fs_text_utf8_decode(s + i, len - i, &c);
		bool bad = n == 0 || fs_text_is_control(c); /* one definition: util/text.h */
		size_t w = bad ? 1 : n;
		if (o + w >= cap) { /* cut at a character boundary */
			*changed = true;
			break;
		}
		if (bad)
			out[o] = '?';
		else
			memcpy(out + o, s + i, n);
		*changed |= bad;
		o += w;
		i += n ? n : 1;
	}
	out[o] = '\0';
	return o;
}

/* Copy the next word into out[cap], cleaned (fs_markers_clean); false if
 * absent or too long. *changed is set when something was replaced. */
static bool word(const char **p, char *out, size_t cap, bool *changed)
{
	const char *tok;
	size_t len = fs_next_word(p, &tok);
	bool c = false;
	if (len == 0 || len >= cap)
		return false;
	fs_markers_clean(out, cap, tok, len, &c);
	*changed |= c;
	return true;
}

/* A meta key: printable ASCII without blanks, under cap bytes. */
static bool key_word(const char **p, char *out, size_t cap)
{
	const char *tok;
	size_t len = fs_next_word(p, &tok);
	if (len == 0 || len >= cap)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)tok[i] <= 0x20 || (unsigned char)tok[i] >= 0x7f)
			return false;
	memcpy(out, tok, len);
	out[len] = '\0';
	return true;
}

static bool number(const char **p, uint64_t *v)
{
	const char *tok;
	size_t len = fs_next_word(p, &tok);
	const char *q = tok;
	return len > 0 && fs_scan_u64(&q, v) && q == tok + len;
}

static double rel_s(uint64_t t_ns, uint64_t start_ns)
{
	return ((double)t_ns - (double)start_ns) / 1e9;
}

/* The fields of an S1 or S2 record into *st. Returns 0, 1 if the loader's
 * name was cleaned, -1 if malformed. */
static int parse_step(const char *p, struct step *st, uint64_t start_ns)
{
	uint64_t t_ns, wait_ns, compute_ns, part[4];
	bool changed = false;
	if (!number(&p, &st->pid) || !word(&p, st->loader, sizeof st->loader, &changed) || !number(&p, &st->epoch) ||
	    !number(&p, &st->step) || !number(&p, &t_ns) || !number(&p, &wait_ns) || !number(&p, &compute_ns))
		return -1;
	st->t = rel_s(t_ns, start_ns);
	st->wait_s = (double)wait_ns / 1e9;
	st->compute_s = (double)compute_ns / 1e9;
	st->index_s = st->get_s = st->get_cpu_s = st->pin_cpu_s = NAN;
	if (!*p)
		return changed;
	/* the four parts of next(), all or none */
	for (int i = 0; i < 4; i++)
		if (!number(&p, &part[i]))
			return -1;
	if (*p)
		return -1;
	st->index_s = (double)part[0] / 1e9;
	st->get_s = (double)part[1] / 1e9;
	st->get_cpu_s = (double)part[2] / 1e9;
	st->pin_cpu_s = (double)part[3] / 1e9;
	return changed;
}

/* A steps row; device_idle_s NaN: NULL (not measured). */
static void write_step(const struct step *st, double device_idle_s, struct fs_sink *sink)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_STEPS, st->t);
	fs_row_int(&r, FS_STEPS_pid, (int64_t)st->pid);
	fs_row_text(&r, FS_STEPS_loader, st->loader);
	fs_row_int(&r, FS_STEPS_epoch, (int64_t)st->epoch);
	fs_row_int(&r, FS_STEPS_step, (int64_t)st->step);
	fs_row_real(&r, FS_STEPS_wait_s, st->wait_s);
	fs_row_real(&r, FS_STEPS_compute_s, st->compute_s);
	fs_row_real(&r, FS_STEPS_device_idle_s, device_idle_s);
	fs_row_real(&r, FS_STEPS_index_s, st->index_s);
	fs_row_real(&r, FS_STEPS_get_s, st->get_s);
	fs_row_real(&r, FS_STEPS_get_cpu_s, st->get_cpu_s);
	fs_row_real(&r, FS_STEPS_pin_cpu_s, st->pin_cpu_s);
	fs_sink_row(sink, &r);
}

/* The held step at place i is written (device_idle_s NaN: without its
 * figure) and its place freed; the free places at the front are let go. */
static void release(struct fs_markers *m, int i, double device_idle_s, struct fs_sink *sink)
{
	struct step *h = &m->held[i];
	write_step(h, device_idle_s, sink);
	m->device += !isnan(device_idle_s);
	h->fd = -1;
	while (m->nheld > 0 && m->held[m->first].fd < 0) {
		m->first = (m->first + 1) % FS_MARKERS_MAX_HELD;
		m->nheld--;
	}
}

/* An S2 step: held until its D1. With the hold full, the oldest held step
 * is written without its figure first. */
static void hold(struct fs_markers *m, int conn, const struct step *st, uint64_t now_ns, struct fs_sink *sink)
{
	if (!m->held) {
		m->held = calloc(FS_MARKERS_MAX_HELD, sizeof *m->held);
		if (!m->held) { /* out of memory: the step goes without its figure */
			write_step(st, NAN, sink);
			return;
		}
	}
	if (m->nheld == FS_MARKERS_MAX_HELD)
		release(m, m->first, NAN, sink);
	struct step *h = &m->held[(m->first + m->nheld++) % FS_MARKERS_MAX_HELD];
	*h = *st;
	h->fd = conn;
	h->since_ns = now_ns;
	m->announced++;
}

/* D1 PID LOADER EPOCH STEP IDLE_NS|- : the device figure of a held step
 * of the same connection, which is written now. One that finds none (it
 * was written without: held too long, or its connection closed) is
 * counted and dropped. */
static int parse_device(struct fs_markers *m, int conn, const char *p, struct fs_sink *sink)
{
	struct step k;
	uint64_t idle_ns = 0;
	bool changed = false, unknown = false;
	const char *tok;
	if (!number(&p, &k.pid) || !word(&p, k.loader, sizeof k.loader, &changed) || !number(&p, &k.epoch) ||
	    !number(&p, &k.step))
		return -1;
	const char *q = p;
	if (fs_next_word(&q, &tok) == 1 && *tok == '-')
		unknown = true, p = q;
	else if (!number(&p, &idle_ns))
		return -1;
	if (*p)
		return -1;
	for (int j = 0; j < m->nheld; j++) {
		int i = (m->first + j) % FS_MARKERS_MAX_HELD;
		const struct step *h = &m->held[i];
		if (h->fd == conn && h->pid == k.pid && h->epoch == k.epoch && h->step == k.step &&
		    !strcmp(h->loader, k.loader)) {
			release(m, i, unknown ? NAN : (double)idle_ns / 1e9, sink);
			return 0; /* (a cleaned name was counted with its S2) */
		}
	}
	m->unmatched++;
	return 0;
}

static int parse_phase(const char *p, struct fs_sink *sink, uint64_t start_ns)
{
	uint64_t pid, t0, t1;
	char name[128];
	bool changed = false;
	if (!number(&p, &pid) || !word(&p, name, sizeof name, &changed) || !number(&p, &t0) ||
	    !number(&p, &t1) || *p || t1 < t0)
		return -1;
	struct fs_row r;
	fs_row_init(&r, FS_T_PHASES, 0);
	fs_row_real(&r, FS_PHASES_t_start, rel_s(t0, start_ns));
	fs_row_real(&r, FS_PHASES_t_end, rel_s(t1, start_ns));
	fs_row_int(&r, FS_PHASES_pid, (int64_t)pid);
	fs_row_text(&r, FS_PHASES_name, name);
	fs_sink_row(sink, &r);
	return changed;
}

/* The kinds of stage a G1 record may name (docs/markers.md, "Stages"). */
static const char *const stage_kinds[] = {"worker", "fetch", "getitem", "transform", "collate"};

/* G1 PID LOADER T_NS DT_NS KIND CALLS WALL_NS CPU_NS NAME: a DataLoader
 * worker's time in one stage of its pipeline in the DT_NS before T_NS
 * (since its previous flush). */
static int parse_stage(const char *p, struct fs_sink *sink, uint64_t start_ns)
{
	uint64_t pid, t_ns, dt_ns, calls, wall_ns, cpu_ns;
	char loader[128], kind[16], name[128];
	bool changed = false;
	if (!number(&p, &pid) || !word(&p, loader, sizeof loader, &changed) || !number(&p, &t_ns) || !number(&p, &dt_ns) ||
	    !key_word(&p, kind, sizeof kind) || !number(&p, &calls) || !number(&p, &wall_ns) ||
	    !number(&p, &cpu_ns) || !word(&p, name, sizeof name, &changed) || *p)
		return -1;
	bool known = false;
	for (size_t i = 0; i < sizeof stage_kinds / sizeof stage_kinds[0]; i++)
		known |= !strcmp(kind, stage_kinds[i]);
	if (!known)
		return -1;
	struct fs_row r;
	fs_row_init(&r, FS_T_LOADER_STAGES, rel_s(t_ns, start_ns));
	fs_row_real(&r, FS_LOADER_STAGES_dt_s, (double)dt_ns / 1e9);
	fs_row_int(&r, FS_LOADER_STAGES_pid, (int64_t)pid);
	fs_row_text(&r, FS_LOADER_STAGES_loader, loader);
	fs_row_text(&r, FS_LOADER_STAGES_kind, kind);
	fs_row_text(&r, FS_LOADER_STAGES_stage, name);
	fs_row_int(&r, FS_LOADER_STAGES_calls, (int64_t)calls);
	fs_row_real(&r, FS_LOADER_STAGES_wall_s, (double)wall_ns / 1e9);
	fs_row_real(&r, FS_LOADER_STAGES_cpu_s, (double)cpu_ns / 1e9);
	fs_sink_row(sink, &r);
	return changed;
}

static int parse_meta(const char *p, struct fs_sink *sink)
{
	uint64_t pid;
	char key[128], value[FS_MARKERS_MAX_VALUE + 1];
	bool changed = false;
	if (!number(&p, &pid) || !key_word(&p, key, sizeof key))
		return -1;
	if (strncmp(key, "loader.", 7) && strncmp(key, "hook.", 5) && strncmp(key, "user.", 5))
		return -1; /* the job may not write feedscope's own keys */
	if (*p == ' ')
		p++;
	fs_markers_clean(value, sizeof value, p, strlen(p), &changed);
	fs_sink_meta(sink, key, value);
	return changed;
}

int fs_markers_record(struct fs_markers *m, int conn, const char *rec, size_t len, struct fs_sink *sink,
		      uint64_t start_ns, uint64_t now_ns)
{
	char buf[FS_MARKERS_MAX_RECORD + 1];
	if (len < 3 || len > FS_MARKERS_MAX_RECORD || memchr(rec, '\0', len) || memchr(rec, '\n', len))
		return -1;
	memcpy(buf, rec, len);
	buf[len] = '\0';
	if (!strncmp(buf, "S1 ", 3) || (m && !strncmp(buf, "S2 ", 3))) {
		struct step st;
		int rc = parse_step(buf + 3, &st, start_ns);
		if (rc >= 0 && buf[1] == '1')
			write_step(&st, NAN, sink);
		else if (rc >= 0)
			hold(m, conn, &st, now_ns, sink);
		return rc;
	}
	if (m && !strncmp(buf, "D1 ", 3))
		return parse_device(m, conn, buf + 3, sink);
	if (!strncmp(buf, "P1 ", 3))
		return parse_phase(buf + 3, sink, start_ns);
	if (!strncmp(buf, "M1 ", 3))
		return parse_meta(buf + 3, sink);
	if (!strncmp(buf, "G1 ", 3))
		return parse_stage(buf + 3, sink, start_ns);
	return -1;
}

int fs_markers_parse(const char *rec, size_t len, struct fs_sink *sink, uint64_t start_ns)
{
	return fs_markers_record(NULL, -1, rec, len, sink, start_ns, 0);
}

/* (The front of the hold is never a free place: release() lets them go.) */
void fs_markers_expire(struct fs_markers *m, struct fs_sink *sink, uint64_t now_ns)
{
	while (m->nheld > 0 && now_ns >= m->held[m->first].since_ns + FS_MARKERS_HOLD_NS)
		release(m, m->first, NAN, sink);
}

/* Connection fd is closing: its held steps are written without their
 * figure (the job's process is gone, or never sends it). */
static void release_conn(struct fs_markers *m, int fd, struct fs_sink *sink)
{
	/* release() only frees places and moves the front past free ones:
	 * the window as it was still holds every step of fd */
	int first = m->first, n = m->nheld;
	for (int j = 0; j < n; j++) {
		int i = (first + j) % FS_MARKERS_MAX_HELD;
		if (m->held[i].fd == fd)
			release(m, i, NAN, sink);
	}
}

/* Whether the peer of connection fd may write records: a process of the
 * job's uid, or root (which can ptrace the job and write the run file
 * anyway, so refusing it would protect nothing). */
static bool peer_allowed(const struct fs_markers *m, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof cred)
		return false;
	return cred.uid == m->job_uid || cred.uid == 0;
}

/* Accept pending connections: a stranger's is closed at once, unread, and
 * never takes one of the job's slots. */
static void accept_all(struct fs_markers *m)
{
	for (int k = 0; k < ACCEPT_PER_DRAIN; k++) {
		int fd = accept4(m->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (!peer_allowed(m, fd)) {
			m->strangers++;
			close(fd);
		} else if (m->nconns == FS_MARKERS_MAX_CONNS) {
			m->refused++;
			close(fd);
		} else {
			m->conns[m->nconns++] = fd;
		}
	}
}

/* Read every pending record of connection i. Returns false once it closed. */
static bool read_conn(struct fs_markers *m, int fd, struct fs_sink *sink, uint64_t start_ns, uint64_t now_ns)
{
	char buf[FS_MARKERS_MAX_RECORD + 1];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0)
			return false; /* every holder of the connection is gone */
		m->records++;
		int rc = (size_t)n > FS_MARKERS_MAX_RECORD ? -1
							   : fs_markers_record(m, fd, buf, (size_t)n, sink, start_ns, now_ns);
		if (rc < 0) {
			m->bad++;
			continue;
		}
		m->cleaned += rc > 0;
		switch (buf[0]) {
		case 'S': m->steps++; break;
		case 'P': m->phases++; break;
		case 'D': break; /* a step's device figure: counted by parse_device */
		case 'G': m->stages++; break;
		default: m->metas++; break;
		}
	}
}

/* Read conns[from..]: a closed one is replaced by the last (so after a
 * drain conns[polled..] may miss one moved below polled: it is in the next
 * poll set, built before the loop waits again). */
static void read_from(struct fs_markers *m, int from, struct fs_sink *sink, uint64_t start_ns)
{
	uint64_t now_ns = fs_now_ns();
	for (int i = from; i < m->nconns;) {
		if (read_conn(m, m->conns[i], sink, start_ns, now_ns)) {
			i++;
			continue;
		}
		release_conn(m, m->conns[i], sink);
		close(m->conns[i]);
		m->conns[i] = m->conns[--m->nconns];
	}
}

void fs_markers_drain(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns)
{
	accept_all(m);
	read_from(m, 0, sink, start_ns);
	if (m->nheld)
		fs_markers_expire(m, sink, fs_now_ns());
}

void fs_markers_unpolled(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns)
{
	if (m->polled < m->nconns)
		read_from(m, m->polled, sink, start_ns);
	if (m->nheld) /* each tick: a step held too long is written without its figure */
		fs_markers_expire(m, sink, fs_now_ns());
}

void fs_markers_close(struct fs_markers *m, struct fs_sink *sink, uint64_t start_ns)
{
	if (!m)
		return;
	fs_markers_drain(m, sink, start_ns);
	while (m->nheld > 0) /* the job is done: what is held goes without its figure */
		release(m, m->first, NAN, sink);
	fs_sink_metaf(sink, "markers.records", "%llu", (unsigned long long)m->records);
	fs_sink_metaf(sink, "markers.steps", "%llu", (unsigned long long)m->steps);
	fs_sink_metaf(sink, "markers.phases", "%llu", (unsigned long long)m->phases);
	fs_sink_metaf(sink, "markers.meta", "%llu", (unsigned long long)m->metas);
	if (m->stages) /* only where the hook timed the workers' stages */
		fs_sink_metaf(sink, "markers.stages", "%llu", (unsigned long long)m->stages);
	fs_sink_metaf(sink, "markers.bad_records", "%llu", (unsigned long long)m->bad);
	if (m->refused)
		fs_sink_metaf(sink, "markers.refused_connections", "%llu", (unsigned long long)m->refused);
	fs_sink_metaf(sink, "markers.cleaned_records", "%llu", (unsigned long long)m->cleaned);
	fs_sink_metaf(sink, "markers.refused_peers", "%llu", (unsigned long long)m->strangers);
	if (m->announced) /* only where the job had a device timeline */
		fs_sink_metaf(sink, "markers.device_steps", "%llu", (unsigned long long)m->device);
	if (m->unmatched)
		fs_sink_metaf(sink, "markers.device_unmatched", "%llu", (unsigned long long)m->unmatched);
	for (int i = 0; i < m->nconns; i++)
		close(m->conns[i]);
	close(m->listen_fd);
	free(m->held);
	free(m);
}
