/* peers.c - data network vs traffic between the job's processes (peers.h).
 *
 * Every lookup is a binary search in a sorted set of endpoint keys, so a
 * multi-node report (ranks x 256 entries x 2 thread kinds, per node) costs
 * n log n, not n^2.
 */
#include "analysis/load/peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int text_port(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}

static double num0(sqlite3_stmt *st, int i)
{
	double v = fs_q_col(st, i);
	return isnan(v) ? 0 : v;
}

static enum fs_peer_kind kind_of(const char *k)
{
	if (!strcmp(k, "peer"))
		return FS_PEER_KIND_PEER;
	if (!strcmp(k, "listen"))
		return FS_PEER_KIND_LISTEN;
	if (!strcmp(k, "unconnected"))
		return FS_PEER_KIND_UNCONNECTED;
	return FS_PEER_KIND_OTHER;
}

static struct fs_peer_row *push(struct fs_peer_rows *rows)
{
	if (rows->n == rows->cap) {
		size_t cap = rows->cap ? 2 * rows->cap : 64;
		struct fs_peer_row *v = realloc(rows->v, cap * sizeof *v);
		if (!v)
			return NULL;
		rows->v = v;
		rows->cap = cap;
	}
	struct fs_peer_row *r = &rows->v[rows->n++];
	memset(r, 0, sizeof *r);
	return r;
}

int fs_peers_load(struct fs_q *q, int run, struct fs_peer_rows *rows)
{
	long errors = q->errors;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT pid, thread, kind, family, local_addr, local_port, peer_addr, "
				     "peer_port, read_bytes, write_bytes, read_s, write_s, calls, first_t, last_t "
				     "FROM peers ORDER BY rowid");
	int rc = 0;
	while (fs_q_step(q, st)) {
		struct fs_peer_row *r = push(rows);
		if (!r) {
			rc = -1;
			break;
		}
		r->run = run;
		r->pid = sqlite3_column_int(st, 0);
		r->main_thread = !strcmp(fs_q_col_text(st, 1), "main");
		r->kind = kind_of(fs_q_col_text(st, 2));
		snprintf(r->family, sizeof r->family, "%s", fs_q_col_text(st, 3));
		snprintf(r->local_addr, sizeof r->local_addr, "%s", fs_q_col_text(st, 4));
		r->local_port = text_port(st, 5);
		snprintf(r->peer_addr, sizeof r->peer_addr, "%s", fs_q_col_text(st, 6));
		r->peer_port = text_port(st, 7);
		r->read_bytes = num0(st, 8);
		r->write_bytes = num0(st, 9);
		r->read_s = num0(st, 10);
		r->write_s = num0(st, 11);
		r->calls = num0(st, 12);
		r->first_t = fs_q_col(st, 13);
		r->last_t = fs_q_col(st, 14);
	}
	sqlite3_finalize(st);
	return rc < 0 || q->errors != errors ? -1 : 0;
}

void fs_peer_rows_free(struct fs_peer_rows *rows)
{
	free(rows->v);
	memset(rows, 0, sizeof *rows);
}

const char *fs_peer_class_name(enum fs_peer_class c)
{
	static const char *const names[] = {"data", "collective", "ipc", "unattributed"};
	return (unsigned)c < 4 ? names[c] : "?";
}

/* ---- endpoint keys ---- */

/* An endpoint as the rule compares it: run is the run file for an address
 * that names something on its own host only (loopback, a Unix path), else
 * -1 (the same address is the same endpoint on every node). */
struct key {
	int run;
	const char *a;
	int ap;
	const char *b; /* the second endpoint of a pair key ("" otherwise) */
	int bp;
};

struct keyset {
	struct key *v;
	size_t n, cap;
};

static int key_cmp(const void *x, const void *y)
{
	const struct key *p = x, *q = y;
	if (p->run != q->run)
		return p->run < q->run ? -1 : 1;
	if (p->ap != q->ap)
		return p->ap < q->ap ? -1 : 1;
	if (p->bp != q->bp)
		return p->bp < q->bp ? -1 : 1;
	int c = strcmp(p->a, q->a);
	return c ? c : strcmp(p->b, q->b);
}

static int key_add(struct keyset *s, struct key k)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct key *v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = k;
	return 0;
}

static bool key_has(const struct keyset *s, struct key k)
{
	return s->n && bsearch(&k, s->v, s->n, sizeof k, key_cmp) != NULL;
}

static bool is_unix(const struct fs_peer_row *r)
{
	return !strcmp(r->family, "unix");
}

static bool is_ip(const struct fs_peer_row *r)
{
	return !strcmp(r->family, "inet") || !strcmp(r->family, "inet6");
}

/* An address that means "this host" wherever it is seen. */
static bool host_local(const char *addr)
{
	return !strncmp(addr, "127.", 4) || !strcmp(addr, "::1");
}

static bool wildcard(const char *addr)
{
	return !strcmp(addr, "0.0.0.0") || !strcmp(addr, "::");
}

static bool unnamed(const char *addr)
{
	return !addr[0] || !strcmp(addr, "(unnamed)");
}

static struct key ep(const struct fs_peer_row *r, const char *addr, int port)
{
	int run = is_unix(r) || host_local(addr) ? r->run : -1;
	return (struct key){run, addr, port, "", 0};
}

/* The sets the rule looks things up in. */
struct index {
	struct keyset pairs;   /* (local, peer) of every connected IP socket */
	struct keyset listens; /* listening IP endpoints; wildcards expanded (below) */
	struct keyset unix_named; /* (run, path) of Unix sockets bound or listening in the job */
	struct keyset unix_peers; /* (run, path) that a job Unix socket is connected to */
};

static void index_free(struct index *x)
{
	free(x->pairs.v);
	free(x->listens.v);
	free(x->unix_named.v);
	free(x->unix_peers.v);
}

/* A wildcard listener (0.0.0.0:P, [::]:P) in run R accepts on every address
 * of its host: on loopback (key (R, "*lo", P)) and on each address a socket
 * of run R has as its local one (keys (-1, A, P)). */
static int add_wildcard(struct index *x, const struct fs_peer_rows *rows, const struct fs_peer_row *l)
{
	if (key_add(&x->listens, (struct key){l->run, "*lo", l->local_port, "", 0}) < 0)
		return -1;
	for (size_t j = 0; j < rows->n; j++) {
		const struct fs_peer_row *s = &rows->v[j];
		if (s->run == l->run && is_ip(s) && s->kind == FS_PEER_KIND_PEER && s->local_addr[0] &&
		    !host_local(s->local_addr) && !wildcard(s->local_addr) &&
		    key_add(&x->listens, (struct key){-1, s->local_addr, l->local_port, "", 0}) < 0)
			return -1;
	}
	return 0;
}

static int index_row(struct index *x, const struct fs_peer_rows *rows, const struct fs_peer_row *r)
{
	/* a bound datagram socket with no fixed peer receives from anyone, as a
	 * listener accepts anyone */
	bool listens = r->kind == FS_PEER_KIND_LISTEN || r->kind == FS_PEER_KIND_UNCONNECTED;
	if (is_ip(r) && listens && r->local_port >= 0)
		return wildcard(r->local_addr) ? add_wildcard(x, rows, r)
					       : key_add(&x->listens, ep(r, r->local_addr, r->local_port));
	if (is_ip(r) && r->kind == FS_PEER_KIND_PEER && r->local_port >= 0) {
		struct key k = ep(r, r->local_addr, r->local_port), p = ep(r, r->peer_addr, r->peer_port);
		if (k.run != p.run) /* one of the two is host-local: the pair is of this host */
			k.run = p.run = r->run;
		return key_add(&x->pairs, (struct key){k.run, k.a, k.ap, p.a, p.ap});
	}
	if (is_unix(r) && !unnamed(r->local_addr) &&
	    key_add(&x->unix_named, (struct key){r->run, r->local_addr, -1, "", 0}) < 0)
		return -1;
	if (is_unix(r) && r->kind == FS_PEER_KIND_PEER && !unnamed(r->peer_addr) &&
	    key_add(&x->unix_peers, (struct key){r->run, r->peer_addr, -1, "", 0}) < 0)
		return -1;
	return 0;
}

static int index_build(struct index *x, const struct fs_peer_rows *rows)
{
	memset(x, 0, sizeof *x);
	for (size_t i = 0; i < rows->n; i++)
		if (index_row(x, rows, &rows->v[i]) < 0)
			return -1;
	struct keyset *sets[] = {&x->pairs, &x->listens, &x->unix_named, &x->unix_peers};
	for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
		if (sets[k]->n)
			qsort(sets[k]->v, sets[k]->n, sizeof(struct key), key_cmp);
	return 0;
}

/* Whether a job process listens on (addr, port) as seen from r's host. */
static bool job_listens(const struct index *x, const struct fs_peer_row *r, const char *addr, int port)
{
	if (key_has(&x->listens, ep(r, addr, port)))
		return true;
	return host_local(addr) && key_has(&x->listens, (struct key){r->run, "*lo", port, "", 0});
}

/* The other end of r's connection is a traced socket of the job, or r's
 * peer is an endpoint the job listens on, or r was accepted by a job
 * listener from this host (a launcher's store probed by a local process
 * whose own socket made no call). */
static bool ip_collective(const struct index *x, const struct fs_peer_row *r)
{
	if (host_local(r->peer_addr) && r->local_port >= 0 && job_listens(x, r, r->local_addr, r->local_port))
		return true; /* also an accepted entry folded over its peers' ports */
	if (r->peer_port < 0)
		return false;
	struct key p = ep(r, r->peer_addr, r->peer_port);
	if (r->local_port >= 0) {
		struct key k = ep(r, r->local_addr, r->local_port);
		if (k.run != p.run)
			k.run = p.run = r->run;
		if (key_has(&x->pairs, (struct key){p.run, p.a, p.ap, k.a, k.ap}))
			return true;
	}
	return job_listens(x, r, r->peer_addr, r->peer_port);
}

static enum fs_peer_class classify(const struct index *x, const struct fs_peer_row *r)
{
	if (r->kind != FS_PEER_KIND_PEER)
		return FS_PEER_UNATTRIBUTED;
	if (is_ip(r))
		return ip_collective(x, r) ? FS_PEER_COLLECTIVE : FS_PEER_DATA;
	if (is_unix(r)) {
		/* no network: the job's own (a path it binds, or accepted on a
		 * path a job socket connected to), else local IPC (a daemon, a
		 * socketpair, feedscope's marker socket) */
		if (!unnamed(r->peer_addr) && key_has(&x->unix_named, (struct key){r->run, r->peer_addr, -1, "", 0}))
			return FS_PEER_COLLECTIVE;
		if (!unnamed(r->local_addr) && key_has(&x->unix_peers, (struct key){r->run, r->local_addr, -1, "", 0}))
			return FS_PEER_COLLECTIVE;
		return FS_PEER_IPC;
	}
	return FS_PEER_UNATTRIBUTED;
}

/* ---- per process ---- */

/* A row's place in the per-process order: qsort has no context argument,
 * so the keys travel with the index. */
struct ord {
	int run, pid;
	size_t i;
};

static int ord_cmp(const void *x, const void *y)
{
	const struct ord *a = x, *b = y;
	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Add data row r to the process's top peers (merged by peer address and
 * port), keeping the FS_PEERS_TOP busiest. scratch holds every data peer of
 * the process seen so far (n of them). */
static int top_add(struct fs_peer_top **scratch, size_t *n, size_t *cap, const struct fs_peer_row *r)
{
	for (size_t i = 0; i < *n; i++) {
		struct fs_peer_top *t = &(*scratch)[i];
		if (t->port == r->peer_port && !strcmp(t->addr, r->peer_addr)) {
			t->bytes += r->read_bytes + r->write_bytes;
			t->seconds += r->read_s + r->write_s;
			return 0;
		}
	}
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct fs_peer_top *v = realloc(*scratch, c * sizeof *v);
		if (!v)
			return -1;
		*scratch = v;
		*cap = c;
	}
	struct fs_peer_top *t = &(*scratch)[(*n)++];
	snprintf(t->addr, sizeof t->addr, "%s", r->peer_addr);
	t->port = r->peer_port;
	t->bytes = r->read_bytes + r->write_bytes;
	t->seconds = r->read_s + r->write_s;
	return 0;
}

static int top_cmp(const void *x, const void *y)
{
	const struct fs_peer_top *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return strcmp(a->addr, b->addr);
}

static void sum_add(struct fs_peer_sum *s, const struct fs_peer_row *r)
{
	s->read_bytes += r->read_bytes;
	s->write_bytes += r->write_bytes;
	s->seconds += r->read_s + r->write_s;
	s->calls += r->calls;
}

/* One process's rows (ord[0..n)) into p. */
static int proc_fill(struct fs_peer_proc *p, const struct fs_peer_rows *rows, const enum fs_peer_class *cls,
		     const struct ord *ord, size_t n)
{
	memset(p, 0, sizeof *p);
	p->run = ord[0].run;
	p->pid = ord[0].pid;
	double first = INFINITY, last = -INFINITY;
	struct fs_peer_top *scratch = NULL;
	size_t ns = 0, cap = 0;
	for (size_t k = 0; k < n; k++) {
		const struct fs_peer_row *r = &rows->v[ord[k].i];
		enum fs_peer_class c = cls[ord[k].i];
		sum_add(&p->cls[c], r);
		if (c != FS_PEER_DATA)
			continue;
		if (r->read_bytes + r->write_bytes > 0 && top_add(&scratch, &ns, &cap, r) < 0) {
			free(scratch);
			return -1;
		}
		if (r->first_t < first)
			first = r->first_t;
		if (r->last_t > last)
			last = r->last_t;
	}
	if (ns)
		qsort(scratch, ns, sizeof *scratch, top_cmp);
	p->ntop = (int)(ns < FS_PEERS_TOP ? ns : FS_PEERS_TOP);
	if (p->ntop)
		memcpy(p->top, scratch, (size_t)p->ntop * sizeof *scratch);
	free(scratch);
	p->data_span_s = isfinite(first) && isfinite(last) && last > first ? last - first : NAN;
	const struct fs_peer_sum *d = &p->cls[FS_PEER_DATA];
	p->data_bytes_per_s = p->data_span_s > 0 ? (d->read_bytes + d->write_bytes) / p->data_span_s : NAN;
	return 0;
}

static int procs_fill(struct fs_peers_report *out, const struct fs_peer_rows *rows)
{
	struct ord *ord = malloc(rows->n * sizeof *ord);
	out->procs = calloc(rows->n, sizeof *out->procs);
	if (!ord || !out->procs) {
		free(ord);
		return -1;
	}
	for (size_t i = 0; i < rows->n; i++)
		ord[i] = (struct ord){rows->v[i].run, rows->v[i].pid, i};
	qsort(ord, rows->n, sizeof *ord, ord_cmp);
	int rc = 0;
	for (size_t i = 0; i < rows->n && rc == 0;) {
		size_t j = i + 1;
		while (j < rows->n && ord[j].run == ord[i].run && ord[j].pid == ord[i].pid)
			j++;
		rc = proc_fill(&out->procs[out->n++], rows, out->row_class, ord + i, j - i);
		i = j;
	}
	free(ord);
	return rc;
}

int fs_peers_analyse(const struct fs_peer_rows *rows, struct fs_peers_report *out)
{
	memset(out, 0, sizeof *out);
	if (rows->n == 0)
		return 0;
	struct index x;
	memset(&x, 0, sizeof x);
	out->row_class = malloc(rows->n * sizeof *out->row_class);
	if (!out->row_class || index_build(&x, rows) < 0) {
		index_free(&x);
		fs_peers_report_free(out);
		return -1;
	}
	for (size_t i = 0; i < rows->n; i++)
		out->row_class[i] = classify(&x, &rows->v[i]);
	index_free(&x);
	if (procs_fill(out, rows) < 0) {
		fs_peers_report_free(out);
		return -1;
	}
	return 0;
}

void fs_peers_report_free(struct fs_peers_report *r)
{
	free(r->procs);
	free(r->row_class);
	memset(r, 0, sizeof *r);
}

void fs_net_unknown(struct fs_net *n)
{
	n->data_bytes = n->data_s = n->coll_bytes = n->coll_s = n->top_bytes = NAN;
	n->top_peer[0] = '\0';
}

void fs_net_add(struct fs_net *n, const struct fs_peer_proc *P)
{
	if (isnan(n->data_bytes))
		n->data_bytes = n->data_s = n->coll_bytes = n->coll_s = n->top_bytes = 0;
	const struct fs_peer_sum *d = &P->cls[FS_PEER_DATA], *c = &P->cls[FS_PEER_COLLECTIVE];
	n->data_bytes += d->read_bytes + d->write_bytes;
	n->data_s += d->seconds;
	n->coll_bytes += c->read_bytes + c->write_bytes;
	n->coll_s += c->seconds;
	if (P->ntop > 0 && P->top[0].bytes > n->top_bytes) {
		n->top_bytes = P->top[0].bytes;
		if (P->top[0].port >= 0)
			snprintf(n->top_peer, sizeof n->top_peer, "%.79s:%d", P->top[0].addr, P->top[0].port);
		else
			snprintf(n->top_peer, sizeof n->top_peer, "%.79s", P->top[0].addr);
	}
}
