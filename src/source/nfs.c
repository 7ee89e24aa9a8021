/* nfs - /proc/self/mountstats: per-mount NFS READ/WRITE statistics.
 *
 * The text, per mount (statvers=1.1, as the kernel's nfs client prints it):
 *   device srv:/export mounted on /mnt/x with fstype nfs4 statvers=1.1
 *   \topts:\t...   (age, caps, events, bytes, RPC iostats, xprt lines)
 *   \tper-op statistics
 *   \t        READ: ops trans timeouts bytes_sent bytes_recv queue rtt execute errors
 * Other filesystems get the first line only ("... with fstype ext4"). */
#include "source/nfs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

struct fs_nfs_mount {
	char *key;             /* owned block: dev\0mnt\0server\0mount\0 */
	size_t dev_len, mnt_len;
	const char *server;    /* unescaped dev, inside key */
	const char *mount;     /* unescaped mnt, inside key */
	bool seen;
	struct fs_nfs_counters prev;
};

/* The start of the line after l, or the terminating NUL. */
static const char *next_line(const char *l)
{
	const char *n = strchr(l, '\n');
	return n ? n + 1 : l + strlen(l);
}

static const char *word_end(const char *p)
{
	while (*p && *p != ' ' && *p != '\n')
		p++;
	return p;
}

/* "device D mounted on M with fstype T ...": fills dev/mnt, sets *is_nfs. */
static bool parse_device_line(const char *line, struct fs_nfs_entry *e, bool *is_nfs)
{
	if (strncmp(line, "device ", 7) != 0)
		return false;
	const char *p = line + 7;
	e->dev = p;
	p = word_end(p);
	e->dev_len = (size_t)(p - e->dev);
	if (strncmp(p, " mounted on ", 12) != 0)
		return false;
	e->mnt = p += 12;
	p = word_end(p);
	e->mnt_len = (size_t)(p - e->mnt);
	if (strncmp(p, " with fstype ", 13) != 0)
		return false;
	const char *t = p + 13;
	size_t tl = (size_t)(word_end(t) - t);
	*is_nfs = (tl == 3 && memcmp(t, "nfs", 3) == 0) || (tl == 4 && memcmp(t, "nfs4", 4) == 0);
	return e->dev_len > 0 && e->mnt_len > 0;
}

bool fs_nfs_parse_op(const char *p, struct fs_nfs_op *out)
{
	uint64_t v[8];
	memset(out, 0, sizeof *out);
	for (int i = 0; i < 8; i++)
		if (!fs_scan_u64(&p, &v[i]))
			return false;
	/* ops trans timeouts bytes_sent bytes_recv queue rtt execute */
	out->ops = v[0];
	out->bytes_sent = v[3];
	out->bytes_recv = v[4];
	out->rtt_ms = v[6];
	out->exe_ms = v[7];
	out->have = true;
	return true;
}

/* Parse the op line at p and add it to *sum (READ and READ_PLUS both count
 * as reads: NFSv4.2 clients read with READ_PLUS when the server has it). */
static void add_op(struct fs_nfs_op *sum, const char *p)
{
	struct fs_nfs_op op;
	if (!fs_nfs_parse_op(p, &op))
		return;
	sum->ops += op.ops;
	sum->bytes_sent += op.bytes_sent;
	sum->bytes_recv += op.bytes_recv;
	sum->rtt_ms += op.rtt_ms;
	sum->exe_ms += op.exe_ms;
	sum->have = true;
}

/* Read the READ and WRITE lines of the block starting at line; returns the
 * start of the next "device" line (or the end of the text). */
static const char *read_block(const char *line, struct fs_nfs_counters *c)
{
	bool per_op = false;
	memset(c, 0, sizeof *c);
	while (*line && strncmp(line, "device ", 7) != 0) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!per_op)
			per_op = strncmp(p, "per-op statistics", 17) == 0;
		else if (strncmp(p, "READ:", 5) == 0)
			add_op(&c->read, p + 5);
		else if (strncmp(p, "READ_PLUS:", 10) == 0)
			add_op(&c->read, p + 10);
		else if (strncmp(p, "WRITE:", 6) == 0)
			add_op(&c->write, p + 6);
		line = next_line(line);
	}
	return line;
}

bool fs_nfs_next_mount(const char **pos, struct fs_nfs_entry *out)
{
	const char *line = *pos;
	while (*line) {
		bool nfs = false;
		bool hdr = parse_device_line(line, out, &nfs);
		line = next_line(line);
		if (hdr && nfs) {
			*pos = read_block(line, &out->c);
			return true;
		}
	}
	*pos = line;
	return false;
}

static bool is_octal(char c, char max)
{
	return c >= '0' && c <= max;
}

size_t fs_nfs_unescape(const char *s, size_t len, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && is_octal(s[i + 1], '3') &&
		    is_octal(s[i + 2], '7') && is_octal(s[i + 3], '7')) {
			out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return o;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

void fs_nfs_compute(const struct fs_nfs_counters *a, const struct fs_nfs_counters *b, double dt_s,
		    struct fs_nfs_rates *out)
{
	out->read_ops_per_s = out->read_bytes_per_s = NAN;
	out->read_rtt_ms = out->read_exe_ms = out->write_ops_per_s = NAN;
	if (a->read.have && b->read.have) {
		uint64_t ops = fs_counter_delta(a->read.ops, b->read.ops);
		if (dt_s > 0) {
			out->read_ops_per_s = (double)ops / dt_s;
			out->read_bytes_per_s =
				(double)fs_counter_delta(a->read.bytes_recv, b->read.bytes_recv) / dt_s;
		}
		out->read_rtt_ms = ratio(fs_counter_delta(a->read.rtt_ms, b->read.rtt_ms), ops);
		out->read_exe_ms = ratio(fs_counter_delta(a->read.exe_ms, b->read.exe_ms), ops);
	}
	if (a->write.have && b->write.have && dt_s > 0)
		out->write_ops_per_s = (double)fs_counter_delta(a->write.ops, b->write.ops) / dt_s;
}

static struct fs_nfs_mount *find_mount(struct fs_nfs_tracker *tr, const struct fs_nfs_entry *e)
{
	for (int i = 0; i < tr->n; i++) {
		struct fs_nfs_mount *m = &tr->m[i];
		if (!m->seen && m->dev_len == e->dev_len && m->mnt_len == e->mnt_len &&
		    memcmp(m->key, e->dev, e->dev_len) == 0 &&
		    memcmp(m->key + e->dev_len + 1, e->mnt, e->mnt_len) == 0)
			return m;
	}
	return NULL;
}

/* Remember a new mount; NULL when out of memory. */
static struct fs_nfs_mount *add_mount(struct fs_nfs_tracker *tr, const struct fs_nfs_entry *e)
{
	if (tr->n == tr->cap) {
		int cap = tr->cap ? tr->cap * 2 : 4;
		struct fs_nfs_mount *m = realloc(tr->m, (size_t)cap * sizeof *m);
		if (!m)
			return NULL;
		tr->m = m;
		tr->cap = cap;
	}
	size_t dl = e->dev_len, ml = e->mnt_len;
	char *key = malloc(2 * (dl + ml + 2));
	if (!key)
		return NULL;
	struct fs_nfs_mount *m = &tr->m[tr->n++];
	memset(m, 0, sizeof *m);
	m->key = key;
	m->dev_len = dl;
	m->mnt_len = ml;
	memcpy(key, e->dev, dl);
	key[dl] = '\0';
	memcpy(key + dl + 1, e->mnt, ml);
	key[dl + 1 + ml] = '\0';
	char *server = key + dl + ml + 2;
	size_t sl = fs_nfs_unescape(e->dev, dl, server);
	char *mount = server + sl + 1;
	fs_nfs_unescape(e->mnt, ml, mount);
	m->server = server;
	m->mount = mount;
	return m;
}

static void emit_nfs(const struct fs_source_ctx *ctx, const struct fs_nfs_mount *m,
		     const struct fs_nfs_rates *r, double dt_s)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_NFS, ctx->t);
	fs_row_text(&row, FS_NFS_mount, m->mount);
	fs_row_text(&row, FS_NFS_server, m->server);
	fs_row_real(&row, FS_NFS_read_ops_per_s, r->read_ops_per_s);
	fs_row_real(&row, FS_NFS_read_bytes_per_s, r->read_bytes_per_s);
	fs_row_real(&row, FS_NFS_read_rtt_ms, r->read_rtt_ms);
	fs_row_real(&row, FS_NFS_read_exe_ms, r->read_exe_ms);
	fs_row_real(&row, FS_NFS_write_ops_per_s, r->write_ops_per_s);
	fs_row_real(&row, FS_NFS_dt_s, dt_s);
	fs_sink_row(ctx->sink, &row);
}

int fs_nfs_tracker_update(struct fs_nfs_tracker *tr, const char *text,
			  const struct fs_source_ctx *ctx)
{
	double dt_s = (double)(ctx->now_ns - tr->prev_ns) / 1e9;
	for (int i = 0; i < tr->n; i++)
		tr->m[i].seen = false;
	int count = 0;
	const char *pos = text;
	struct fs_nfs_entry e;
	while (fs_nfs_next_mount(&pos, &e)) {
		count++;
		struct fs_nfs_mount *m = find_mount(tr, &e);
		if (m) {
			const struct fs_nfs_counters *p = &m->prev;
			if ((p->read.have && e.c.read.have) || (p->write.have && e.c.write.have)) {
				struct fs_nfs_rates r;
				fs_nfs_compute(p, &e.c, dt_s, &r);
				emit_nfs(ctx, m, &r, dt_s);
			}
		} else {
			m = add_mount(tr, &e);
		}
		if (m) {
			m->prev = e.c;
			m->seen = true;
		}
	}
	int k = 0;
	for (int i = 0; i < tr->n; i++) {
		if (tr->m[i].seen)
			tr->m[k++] = tr->m[i];
		else
			free(tr->m[i].key);
	}
	tr->n = k;
	tr->prev_ns = ctx->now_ns;
	return count;
}

void fs_nfs_tracker_clear(struct fs_nfs_tracker *tr)
{
	for (int i = 0; i < tr->n; i++)
		free(tr->m[i].key);
	tr->n = 0;
}

void fs_nfs_tracker_free(struct fs_nfs_tracker *tr)
{
	fs_nfs_tracker_clear(tr);
	free(tr->m);
	tr->m = NULL;
	tr->cap = 0;
}
