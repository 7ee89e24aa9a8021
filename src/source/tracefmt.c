#include "source/tracefmt.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/pathhash.h"
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static uint64_t read_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return 0;
#endif
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void fs_trace_clock_init(struct fs_trace_timebase *c, uint64_t now_ns)
{
	(void)now_ns;
	c->tsc_start = read_tsc();
	c->ns_start = mono_ns();
	c->ticks_per_ns = 0;
	if (!c->tsc_start)
		return;
	/* A first rate from 2 ms of watching both clocks, so that even a job
	 * shorter than a tick gets its times; every tick refines it. */
	uint64_t ns;
	while ((ns = mono_ns()) < c->ns_start + 2000000)
		;
	c->ticks_per_ns = (double)(read_tsc() - c->tsc_start) / (double)(ns - c->ns_start);
}

void fs_trace_clock_update(struct fs_trace_timebase *c, uint64_t now_ns)
{
	(void)now_ns;
	uint64_t tsc = read_tsc(), ns = mono_ns();
	if (ns > c->ns_start + 10000000 && tsc > c->tsc_start)
		c->ticks_per_ns = (double)(tsc - c->tsc_start) / (double)(ns - c->ns_start);
}

double fs_trace_clock_seconds(const struct fs_trace_timebase *c, const struct fs_trace_head *r, uint64_t units)
{
	if (r->clock_kind == FS_TRACE_CLOCK_NS)
		return (double)units / 1e9;
	return c->ticks_per_ns > 0 ? (double)units / c->ticks_per_ns / 1e9 : NAN;
}

uint64_t fs_trace_clock_mono(const struct fs_trace_timebase *c, const struct fs_trace_head *r, uint64_t stamp)
{
	if (r->clock_kind == FS_TRACE_CLOCK_NS)
		return stamp;
	if (c->ticks_per_ns <= 0)
		return 0;
	double off_ns = ((double)stamp - (double)r->tsc0) / c->ticks_per_ns;
	return (uint64_t)((double)r->mono0_ns + off_ns);
}

/* the records are private copies (traceread.c): plain reads */
static uint64_t ld(const uint64_t *p)
{
	return *p;
}

/* t of the run for a region clock reading (NaN if none). */
static double run_t(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
		    const struct fs_source_ctx *ctx, uint64_t stamp)
{
	if (!stamp)
		return NAN;
	uint64_t mono = fs_trace_clock_mono(c, r, stamp);
	if (!mono)
		return NAN;
	double start_ns = (double)ctx->now_ns - ctx->t * 1e9;
	return ((double)mono - start_ns) / 1e9;
}

/* The path as the files and ops tables show it. --hash-paths: the keyed
 * hash (util/pathhash.h) of (full length, FNV-1a of the full path, the tail
 * kept), so a long path's hash still depends on all of it. */
static void path_text(const struct fs_trace_file *f, bool hash_paths, char *out, size_t cap)
{
	if (hash_paths)
		fs_pathhash_text(fs_pathhash_parts(f->path_len, f->path_hash, f->path, strnlen(f->path, sizeof f->path)),
				 out, cap);
	else if (f->path_len >= FS_TRACE_PATH)
		snprintf(out, cap, "...%s", f->path);
	else
		snprintf(out, cap, "%s", f->path);
}

uint64_t fs_trace_emit_files(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			     const struct fs_trace_file *files, const struct fs_source_ctx *ctx, bool hash_paths)
{
	uint64_t n = 0;
	for (int i = 0; i < FS_TRACE_FILES; i++) {
		const struct fs_trace_file *f = &files[i];
		if (!fs_trace_used(r, i) || f->state != FS_TRACE_READY)
			continue;
		uint64_t ops = ld(&f->opens) + ld(&f->reads) + ld(&f->writes) + ld(&f->seeks) + ld(&f->stats) +
			       ld(&f->mmaps) + ld(&f->fsyncs);
		if (ops == 0)
			continue;
		char path[FS_TRACE_PATH + 8], hist[FS_TRACE_HIST * 21 + 4], hash[24];
		path_text(f, hash_paths, path, sizeof path);
		snprintf(hash, sizeof hash, "%016llx", (unsigned long long)f->path_hash);
		size_t len = 0;
		hist[len++] = '[';
		for (int b = 0; b < FS_TRACE_HIST; b++)
			len += (size_t)snprintf(hist + len, sizeof hist - len, "%s%llu", b ? "," : "",
						(unsigned long long)ld(&f->hist[b]));
		snprintf(hist + len, sizeof hist - len, "]");
		struct fs_row row;
		fs_row_init(&row, FS_T_FILES, 0);
		fs_row_int(&row, FS_FILES_pid, r->pid);
		fs_row_text(&row, FS_FILES_path, i == 0 ? "(other files)" : path);
		fs_row_int(&row, FS_FILES_opens, (int64_t)ld(&f->opens));
		fs_row_int(&row, FS_FILES_reads, (int64_t)ld(&f->reads));
		fs_row_int(&row, FS_FILES_read_bytes, (int64_t)ld(&f->read_bytes));
		fs_row_int(&row, FS_FILES_writes, (int64_t)ld(&f->writes));
		fs_row_int(&row, FS_FILES_write_bytes, (int64_t)ld(&f->write_bytes));
		fs_row_int(&row, FS_FILES_seq_reads, (int64_t)ld(&f->seq_reads));
		fs_row_int(&row, FS_FILES_consec_reads, (int64_t)ld(&f->consec_reads));
		fs_row_int(&row, FS_FILES_meta_ops, (int64_t)ld(&f->meta_ops));
		fs_row_real(&row, FS_FILES_read_time_s, fs_trace_clock_seconds(c, r, ld(&f->read_time)));
		fs_row_real(&row, FS_FILES_write_time_s, fs_trace_clock_seconds(c, r, ld(&f->write_time)));
		fs_row_real(&row, FS_FILES_meta_time_s, fs_trace_clock_seconds(c, r, ld(&f->meta_time)));
		fs_row_text(&row, FS_FILES_size_hist, hist);
		fs_row_real(&row, FS_FILES_first_t, run_t(c, r, ctx, ld(&f->first)));
		fs_row_real(&row, FS_FILES_last_t, run_t(c, r, ctx, ld(&f->last)));
		fs_row_int(&row, FS_FILES_seeks, (int64_t)ld(&f->seeks));
		fs_row_int(&row, FS_FILES_stats, (int64_t)ld(&f->stats));
		fs_row_int(&row, FS_FILES_mmaps, (int64_t)ld(&f->mmaps));
		fs_row_int(&row, FS_FILES_fsyncs, (int64_t)ld(&f->fsyncs));
		fs_row_int(&row, FS_FILES_max_offset, (int64_t)ld(&f->max_offset));
		fs_row_int(&row, FS_FILES_stdio_ops, (int64_t)ld(&f->stdio_ops));
		fs_row_text(&row, FS_FILES_path_hash, i == 0 ? NULL : hash_paths ? path : hash);
		fs_row_real(&row, FS_FILES_sync_time_s, fs_trace_clock_seconds(c, r, ld(&f->sync_time)));
		fs_row_real(&row, FS_FILES_main_write_time_s, fs_trace_clock_seconds(c, r, ld(&f->main_write_time)));
		fs_row_real(&row, FS_FILES_main_sync_time_s, fs_trace_clock_seconds(c, r, ld(&f->main_sync_time)));
		fs_row_real(&row, FS_FILES_main_meta_time_s, fs_trace_clock_seconds(c, r, ld(&f->main_meta_time)));
		fs_sink_row(ctx->sink, &row);
		n++;
	}
	return n;
}

const char *fs_trace_class_name(int cls)
{
	static const char *const names[FS_TRACE_CLASSES] = {"file", "socket", "pipe", "device", "other"};
	return cls >= 0 && cls < FS_TRACE_CLASSES ? names[cls] : "?";
}

static bool class_same(const struct fs_trace_class *a, const struct fs_trace_class *b)
{
	return a->calls == b->calls && a->read_time == b->read_time && a->write_time == b->write_time &&
	       a->sync_time == b->sync_time && a->meta_time == b->meta_time && a->read_bytes == b->read_bytes &&
	       a->write_bytes == b->write_bytes;
}

/* b - a, 0 where a counter went down (a region the reader cannot trust:
 * never a huge number) */
static uint64_t grew(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

uint64_t fs_trace_emit_classes(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			       struct fs_trace_class done[FS_TRACE_THREADS][FS_TRACE_CLASSES],
			       const struct fs_source_ctx *ctx)
{
	uint64_t n = 0;
	for (int th = 0; th < FS_TRACE_THREADS; th++)
		for (int k = 0; k < FS_TRACE_CLASSES; k++) {
			const struct fs_trace_class *now = &r->cls[th][k];
			struct fs_trace_class *was = &done[th][k];
			if (class_same(now, was))
				continue;
			struct fs_row row;
			fs_row_init(&row, FS_T_IO_CLASSES, ctx->t);
			fs_row_int(&row, FS_IO_CLASSES_pid, r->pid);
			fs_row_text(&row, FS_IO_CLASSES_class, fs_trace_class_name(k));
			fs_row_text(&row, FS_IO_CLASSES_thread, th == FS_TRACE_MAIN ? "main" : "other");
			fs_row_real(&row, FS_IO_CLASSES_read_s, fs_trace_clock_seconds(c, r, grew(was->read_time, now->read_time)));
			fs_row_int(&row, FS_IO_CLASSES_read_bytes, (int64_t)grew(was->read_bytes, now->read_bytes));
			fs_row_real(&row, FS_IO_CLASSES_write_s, fs_trace_clock_seconds(c, r, grew(was->write_time, now->write_time)));
			fs_row_int(&row, FS_IO_CLASSES_write_bytes, (int64_t)grew(was->write_bytes, now->write_bytes));
			fs_row_real(&row, FS_IO_CLASSES_sync_s, fs_trace_clock_seconds(c, r, grew(was->sync_time, now->sync_time)));
			fs_row_real(&row, FS_IO_CLASSES_meta_s, fs_trace_clock_seconds(c, r, grew(was->meta_time, now->meta_time)));
			fs_row_int(&row, FS_IO_CLASSES_calls, (int64_t)grew(was->calls, now->calls));
			fs_sink_row(ctx->sink, &row);
			*was = *now;
			n++;
		}
	return n;
}

void fs_trace_addr_text(const struct fs_trace_endpoint *ep, char *out, size_t cap)
{
	out[0] = '\0';
	if (ep->family == FS_TRACE_FAM_INET && ep->addr_len == 4)
		inet_ntop(AF_INET, ep->addr, out, (socklen_t)cap);
	else if (ep->family == FS_TRACE_FAM_INET6 && ep->addr_len == 16)
		inet_ntop(AF_INET6, ep->addr, out, (socklen_t)cap);
	else if (ep->family == FS_TRACE_FAM_UNIX && ep->addr_len == 0)
		snprintf(out, cap, "(unnamed)");
	else if (ep->family == FS_TRACE_FAM_UNIX)
		snprintf(out, cap, "%.*s", (int)(ep->addr_len < FS_TRACE_ADDR ? ep->addr_len : FS_TRACE_ADDR),
			 (const char *)ep->addr);
}

static const char *family_name(int fam)
{
	static const char *const names[] = {NULL, "inet", "inet6", "unix", "other"};
	return fam >= 0 && fam <= FS_TRACE_FAM_OTHER ? names[fam] : "other";
}

static bool has_port(const struct fs_trace_endpoint *ep)
{
	return ep->family == FS_TRACE_FAM_INET || ep->family == FS_TRACE_FAM_INET6;
}

/* One endpoint into the row's address and port columns: NULL where there is
 * none (no peer, a Unix socket, a folded entry's local port). An IP
 * address is no path and stays in clear under --hash-paths; a Unix
 * socket's name is one (a filesystem path, or an abstract name that often
 * holds one), so it is hashed like the files' paths. */
static void put_endpoint(struct fs_row *row, int addr_col, int port_col, const struct fs_trace_endpoint *ep,
			 bool hash_paths, char *buf, size_t cap)
{
	fs_trace_addr_text(ep, buf, cap);
	if (hash_paths && ep->family == FS_TRACE_FAM_UNIX && ep->addr_len > 0)
		fs_pathhash_text(fs_pathhash_str(buf, strlen(buf)), buf, cap);
	if (buf[0])
		fs_row_text(row, addr_col, buf);
	if (has_port(ep) && ep->port)
		fs_row_int(row, port_col, ep->port);
}

static const char *peer_kind(const struct fs_trace_peer *p)
{
	if (p->kind == FS_TRACE_PEER_LISTEN)
		return "listen";
	return p->peer.family == FS_TRACE_FAM_NONE ? "unconnected" : "peer";
}

/* One row of entry p (index i) for thread kind th (-1: a listener, no counters). */
static void emit_peer(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
		      const struct fs_source_ctx *ctx, bool hash_paths, const struct fs_trace_peer *p, int i, int th)
{
	char la[80], pa[80];
	struct fs_row row;
	fs_row_init(&row, FS_T_PEERS, 0);
	fs_row_int(&row, FS_PEERS_pid, r->pid);
	if (i == 0) {
		fs_row_text(&row, FS_PEERS_kind, "other");
		fs_row_text(&row, FS_PEERS_local_addr, "(other peers)");
	} else {
		fs_row_text(&row, FS_PEERS_kind, peer_kind(p));
		fs_row_text(&row, FS_PEERS_family, family_name(p->local.family ? p->local.family : p->peer.family));
		put_endpoint(&row, FS_PEERS_local_addr, FS_PEERS_local_port, &p->local, hash_paths, la, sizeof la);
		put_endpoint(&row, FS_PEERS_peer_addr, FS_PEERS_peer_port, &p->peer, hash_paths, pa, sizeof pa);
	}
	if (th >= 0) {
		const struct fs_trace_peer_count *k = &p->cnt[th];
		fs_row_text(&row, FS_PEERS_thread, th == FS_TRACE_MAIN ? "main" : "other");
		fs_row_int(&row, FS_PEERS_read_bytes, (int64_t)k->read_bytes);
		fs_row_int(&row, FS_PEERS_write_bytes, (int64_t)k->write_bytes);
		fs_row_real(&row, FS_PEERS_read_s, fs_trace_clock_seconds(c, r, k->read_time));
		fs_row_real(&row, FS_PEERS_write_s, fs_trace_clock_seconds(c, r, k->write_time));
		fs_row_int(&row, FS_PEERS_calls, (int64_t)k->calls);
		fs_row_real(&row, FS_PEERS_first_t, run_t(c, r, ctx, p->first));
		fs_row_real(&row, FS_PEERS_last_t, run_t(c, r, ctx, p->last));
	}
	fs_sink_row(ctx->sink, &row);
}

uint64_t fs_trace_emit_peers(const struct fs_trace_timebase *c, const struct fs_trace_head *r,
			     const struct fs_trace_peer *peers, const struct fs_source_ctx *ctx, bool hash_paths)
{
	uint64_t n = 0;
	for (int i = 0; i < FS_TRACE_PEERS; i++) {
		const struct fs_trace_peer *p = &peers[i];
		if (i > 0 && p->state != FS_TRACE_READY)
			continue;
		if (i > 0 && p->kind == FS_TRACE_PEER_LISTEN) {
			emit_peer(c, r, ctx, hash_paths, p, i, -1);
			n++;
			continue;
		}
		for (int th = 0; th < FS_TRACE_THREADS; th++)
			if (p->cnt[th].calls || p->cnt[th].write_bytes) { /* write_bytes alone: a sendfile destination */
				emit_peer(c, r, ctx, hash_paths, p, i, th);
				n++;
			}
	}
	return n;
}

static const char *op_name(int op)
{
	static const char *const names[] = {"?", "read", "write", "open", "close", "stat", "seek", "fsync", "mmap", "other"};
	return op >= 0 && op <= FS_TRACE_OP_OTHER ? names[op] : "?";
}

int fs_trace_emit_ops(const struct fs_trace_timebase *c, const struct fs_trace_head *r, struct fs_trace_reader *rd,
		      int fd, uint64_t *pos, bool final, const struct fs_source_ctx *ctx, bool hash_paths,
		      uint64_t *rows, uint64_t max_rows, uint64_t *lost)
{
	const struct fs_trace_op *ops;
	int n = fs_trace_read_ops(rd, fd, r, pos, final, lost, &ops);
	if (n < 0)
		return -1;
	fs_trace_names_forget(rd);
	for (int k = 0; k < n; k++) {
		const struct fs_trace_op *o = &ops[k];
		if (*rows >= max_rows) {
			(*lost)++;
			continue;
		}
		char path[FS_TRACE_PATH + 8] = "";
		const struct fs_trace_file *f = fs_trace_read_name(rd, fd, o->file);
		if (f)
			path_text(f, hash_paths, path, sizeof path);
		struct fs_row row;
		fs_row_init(&row, FS_T_OPS, run_t(c, r, ctx, o->start));
		fs_row_int(&row, FS_OPS_pid, r->pid);
		fs_row_int(&row, FS_OPS_tid, o->tid);
		fs_row_text(&row, FS_OPS_path, path[0] ? path : NULL);
		fs_row_text(&row, FS_OPS_op, op_name(o->op));
		if (o->offset >= 0)
			fs_row_int(&row, FS_OPS_offset, o->offset);
		fs_row_int(&row, FS_OPS_length, (int64_t)o->length);
		fs_row_real(&row, FS_OPS_duration_s, fs_trace_clock_seconds(c, r, o->duration));
		fs_row_int(&row, FS_OPS_result, o->result);
		fs_row_text(&row, FS_OPS_layer, o->layer ? "stdio" : "posix");
		fs_sink_row(ctx->sink, &row);
		(*rows)++;
	}
	return n;
}
