/* Unit tests of src/source/traceread.c: a tracer region read by pread
 * into private copies. A region file written here the way the tracer lays
 * it out: the header, the records marked used (and only those), the op
 * ring's complete entries (one being written stops the read until the
 * process is gone, a lapped one is lost); then the same file truncated or
 * rewritten under the reader: errors, never a fault. And the io_classes
 * rows made from a header's per-class counters: one per (thread, class)
 * that moved, holding the increase. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "source/tracefmt.h"
#include "source/traceread.h"

static int new_file(size_t size)
{
	int fd = memfd_create("region", MFD_CLOEXEC);
	if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static struct fs_trace_region *map(int fd, size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

static void claim(struct fs_trace_region *r, int i, const char *path)
{
	struct fs_trace_file *f = &r->files[i];
	snprintf(f->path, sizeof f->path, "%s", path);
	f->path_len = (uint32_t)strlen(path);
	f->reads = 10u + (uint64_t)i;
	f->state = FS_TRACE_READY;
	r->used[i / 64] |= 1ull << (i % 64);
}

static void test_head_and_files(void)
{
	size_t size = fs_trace_region_size(0);
	int fd = new_file(size);
	struct fs_trace_region *r = fd >= 0 ? map(fd, size) : NULL;
	CHECK(r != NULL);
	if (!r)
		return;
	struct fs_trace_head h;
	CHECK_INT(fs_trace_read_head(fd, &h, true), -1); /* no magic yet: being created */
	r->magic = FS_TRACE_MAGIC;
	r->version = FS_TRACE_VERSION;
	r->pid = 4242;
	r->io_time = 77;
	claim(r, 0, "(other files)");
	claim(r, 5, "/data/a");
	claim(r, 6, "/data/b");
	claim(r, 900, "/data/c");
	memset(r->files[6].path, 'x', sizeof r->files[6].path); /* no NUL in the file */
	r->files[7].state = FS_TRACE_READY; /* not marked used: not read */
	CHECK_INT(fs_trace_read_head(fd, &h, true), 0);
	CHECK_INT(h.pid, 4242);
	CHECK_INT(h.io_time, 77);
	struct fs_trace_reader rd = {0};
	CHECK_INT(fs_trace_read_files(&rd, fd, &h), 4);
	CHECK_STR(rd.files[5].path, "/data/a");
	CHECK_INT(rd.files[5].reads, 15);
	CHECK_INT(rd.files[900].reads, 910);
	CHECK_INT(strlen(rd.files[6].path), FS_TRACE_PATH - 1);
	CHECK(fs_trace_used(&h, 900) && !fs_trace_used(&h, 7));

	/* the header says a version this build does not read */
	r->version = FS_TRACE_VERSION + 1;
	CHECK_INT(fs_trace_read_head(fd, &h, false), -1);
	r->version = FS_TRACE_VERSION;
	/* truncated to less than its records: the header reads, the rest not */
	munmap(r, size);
	CHECK(ftruncate(fd, (off_t)(sizeof h + 100)) == 0);
	CHECK_INT(fs_trace_read_head(fd, &h, false), 0);
	CHECK_INT(fs_trace_read_head(fd, &h, true), -1);
	CHECK_INT(fs_trace_read_files(&rd, fd, &h), -1);
	/* truncated to nothing */
	CHECK(ftruncate(fd, 0) == 0);
	CHECK_INT(fs_trace_read_head(fd, &h, false), -1);
	CHECK_INT(fs_trace_read_files(&rd, fd, &h), -1);
	fs_trace_reader_free(&rd);
	close(fd);
}

static void put_op(struct fs_trace_region *r, uint64_t pos, int file, bool complete)
{
	struct fs_trace_op *o = &r->ops[pos % FS_TRACE_OPS];
	memset(o, 0, sizeof *o);
	o->seq = complete ? pos + 1 : 0;
	o->offset = (int64_t)pos * 4096;
	o->file = (uint16_t)file;
	o->op = FS_TRACE_OP_READ;
}

static void test_ops(void)
{
	size_t size = fs_trace_region_size(1);
	int fd = new_file(size);
	struct fs_trace_region *r = fd >= 0 ? map(fd, size) : NULL;
	CHECK(r != NULL);
	if (!r)
		return;
	r->magic = FS_TRACE_MAGIC;
	r->version = FS_TRACE_VERSION;
	r->pid = 7;
	r->ops_enabled = 1;
	claim(r, 0, "(other files)");
	claim(r, 3, "/data/ops");
	for (uint64_t p = 0; p < 12; p++)
		put_op(r, p, 3, p != 10); /* 10 is being written */
	r->ops_head = 12;
	struct fs_trace_head h;
	CHECK_INT(fs_trace_read_head(fd, &h, true), 0);
	struct fs_trace_reader rd = {0};
	uint64_t pos = 0, lost = 0;
	const struct fs_trace_op *ops;
	CHECK_INT(fs_trace_read_ops(&rd, fd, &h, &pos, false, &lost, &ops), 10);
	CHECK_INT(pos, 10);
	CHECK_INT(lost, 0);
	CHECK_INT(ops[9].offset, 9 * 4096);
	CHECK_INT(fs_trace_read_ops(&rd, fd, &h, &pos, false, &lost, &ops), 0); /* still being written */
	CHECK_INT(pos, 10);
	CHECK_INT(fs_trace_read_ops(&rd, fd, &h, &pos, true, &lost, &ops), 1); /* gone: 10 lost, 11 read */
	CHECK_INT(pos, 12);
	CHECK_INT(lost, 1);
	CHECK_INT(ops[0].offset, 11 * 4096);
	const struct fs_trace_file *f = fs_trace_read_name(&rd, fd, 3);
	CHECK(f && !strcmp(f->path, "/data/ops"));
	CHECK(fs_trace_read_name(&rd, fd, 4) == NULL);
	CHECK(fs_trace_read_name(&rd, fd, FS_TRACE_FILES) == NULL);

	/* the writers lapped the reader: what was overwritten is lost */
	uint64_t head = 12 + FS_TRACE_OPS + 5;
	for (uint64_t p = head - FS_TRACE_OPS; p < head; p++)
		put_op(r, p, 3, true);
	r->ops_head = head;
	CHECK_INT(fs_trace_read_head(fd, &h, false), 0);
	int n = fs_trace_read_ops(&rd, fd, &h, &pos, false, &lost, &ops);
	CHECK_INT(n, FS_TRACE_OPS);
	CHECK_INT(lost, 1 + 5);
	CHECK_INT(pos, head);
	CHECK_INT(ops[0].offset, (int64_t)(head - FS_TRACE_OPS) * 4096);
	/* the ring cut off under the reader */
	r->ops_head = head + 4;
	for (uint64_t p = head; p < head + 4; p++)
		put_op(r, p, 3, true);
	CHECK_INT(fs_trace_read_head(fd, &h, false), 0);
	munmap(r, size);
	CHECK(ftruncate(fd, (off_t)fs_trace_region_size(0)) == 0);
	CHECK_INT(fs_trace_read_ops(&rd, fd, &h, &pos, false, &lost, &ops), -1);
	fs_trace_reader_free(&rd);
	close(fd);
}

/* keeps the io_classes rows it is given (texts copied) */
struct rows {
	struct fs_sink sink;
	int n;
	struct fs_row r[16];
	char text[16][2][16];
};

static void keep_row(struct fs_sink *sink, const struct fs_row *row)
{
	struct rows *c = (struct rows *)sink;
	CHECK_INT(row->table, FS_T_IO_CLASSES);
	if (c->n == 16)
		return;
	c->r[c->n] = *row;
	snprintf(c->text[c->n][0], 16, "%s", row->v[FS_IO_CLASSES_class].s);
	snprintf(c->text[c->n][1], 16, "%s", row->v[FS_IO_CLASSES_thread].s);
	c->n++;
}

static void no_meta(struct fs_sink *sink, const char *key, const char *value)
{
	(void)sink, (void)key, (void)value;
}

static void test_classes(void)
{
	struct fs_trace_head h;
	memset(&h, 0, sizeof h);
	h.pid = 77;
	h.clock_kind = FS_TRACE_CLOCK_NS;
	struct fs_trace_class done[FS_TRACE_THREADS][FS_TRACE_CLASSES];
	memset(done, 0, sizeof done);
	struct fs_trace_timebase tb = {0, 0, 0};
	struct rows c = {{keep_row, no_meta, NULL}, 0, {{0}}, {{""}}};
	struct fs_source_ctx ctx = {NULL, &c.sink, NULL, 1.5, 0, false};
	struct fs_trace_class *sock = &h.cls[FS_TRACE_MAIN][FS_TRACE_CLASS_SOCKET];
	*sock = (struct fs_trace_class){2000000000u, 600, 500000000u, 700, 0, 250000000u, 8};
	h.cls[FS_TRACE_OTHER_THREADS][FS_TRACE_CLASS_FILE].calls = 3;
	h.cls[FS_TRACE_OTHER_THREADS][FS_TRACE_CLASS_FILE].sync_time = 1000000000u;
	CHECK_INT(fs_trace_emit_classes(&tb, &h, done, &ctx), 2);
	CHECK_INT(c.n, 2);
	const struct fs_row *r = &c.r[0];
	CHECK(!strcmp(c.text[0][0], "socket") && !strcmp(c.text[0][1], "main"));
	CHECK_INT(r->v[FS_IO_CLASSES_pid].i, 77);
	CHECK(r->v[FS_IO_CLASSES_t].d == 1.5);
	CHECK(r->v[FS_IO_CLASSES_read_s].d == 2.0 && r->v[FS_IO_CLASSES_write_s].d == 0.5);
	CHECK(r->v[FS_IO_CLASSES_meta_s].d == 0.25 && r->v[FS_IO_CLASSES_sync_s].d == 0.0);
	CHECK_INT(r->v[FS_IO_CLASSES_read_bytes].i, 600);
	CHECK_INT(r->v[FS_IO_CLASSES_write_bytes].i, 700);
	CHECK_INT(r->v[FS_IO_CLASSES_calls].i, 8);
	CHECK(!strcmp(c.text[1][0], "file") && !strcmp(c.text[1][1], "other"));
	CHECK(c.r[1].v[FS_IO_CLASSES_sync_s].d == 1.0);
	/* nothing moved: no row; then only the increase */
	CHECK_INT(fs_trace_emit_classes(&tb, &h, done, &ctx), 0);
	sock->calls += 2;
	sock->read_bytes += 50;
	CHECK_INT(fs_trace_emit_classes(&tb, &h, done, &ctx), 1);
	CHECK_INT(c.r[2].v[FS_IO_CLASSES_calls].i, 2);
	CHECK_INT(c.r[2].v[FS_IO_CLASSES_read_bytes].i, 50);
	CHECK(c.r[2].v[FS_IO_CLASSES_read_s].d == 0.0);
	/* a counter that went down (a damaged region) gives 0, not a huge number */
	sock->calls -= 5;
	CHECK_INT(fs_trace_emit_classes(&tb, &h, done, &ctx), 1);
	CHECK_INT(c.r[3].v[FS_IO_CLASSES_calls].i, 0);
	CHECK(!strcmp(fs_trace_class_name(FS_TRACE_CLASS_DEVICE), "device"));
	CHECK(!strcmp(fs_trace_class_name(FS_TRACE_CLASSES), "?"));
}

/* keeps the peers rows it is given (texts copied: kind, family, local, peer) */
struct peer_rows {
	struct fs_sink sink;
	int n;
	struct fs_row r[8];
	char text[8][4][80];
};

static void keep_peer(struct fs_sink *sink, const struct fs_row *row)
{
	struct peer_rows *c = (struct peer_rows *)sink;
	CHECK_INT(row->table, FS_T_PEERS);
	if (c->n == 8)
		return;
	c->r[c->n] = *row;
	const int cols[4] = {FS_PEERS_kind, FS_PEERS_family, FS_PEERS_local_addr, FS_PEERS_peer_addr};
	for (int k = 0; k < 4; k++)
		snprintf(c->text[c->n][k], 80, "%s", row->v[cols[k]].kind == FS_V_TEXT ? row->v[cols[k]].s : "NULL");
	c->n++;
}

static struct fs_trace_endpoint ep(int fam, int port, const void *addr, uint32_t len)
{
	struct fs_trace_endpoint e;
	memset(&e, 0, sizeof e);
	e.family = (uint8_t)fam;
	e.port = (uint16_t)port;
	e.addr_len = len;
	memcpy(e.addr, addr, len < FS_TRACE_ADDR ? len : FS_TRACE_ADDR);
	return e;
}

/* peers rows from a region's table: one per thread kind with calls, one
 * per listener, "(other peers)" for entry 0, unclaimed entries skipped;
 * a damaged entry (address length past its field, unknown family) cannot
 * make the reader read past it. The table read back through a sparse
 * file: the unclaimed entries are holes, read as FREE. */
static void test_peers_rows(void)
{
	size_t size = fs_trace_region_size(0);
	char path[] = "/tmp/fs-peers-region-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	unlink(path);
	struct fs_trace_peer p[5];
	memset(p, 0, sizeof p);
	p[0].cnt[FS_TRACE_MAIN].calls = 2; /* (other peers) */
	p[0].cnt[FS_TRACE_MAIN].read_bytes = 9;
	const uint8_t lo6[16] = {[15] = 1}, v4[4] = {10, 0, 0, 7};
	p[1] = (struct fs_trace_peer){.state = FS_TRACE_READY, .kind = FS_TRACE_PEER_CONNECTED};
	p[1].local = ep(FS_TRACE_FAM_INET6, 40000, lo6, 16);
	p[1].peer = ep(FS_TRACE_FAM_INET6, 29500, lo6, 16);
	p[1].cnt[FS_TRACE_OTHER_THREADS] = (struct fs_trace_peer_count){100, 200, 1000000000u, 500000000u, 3};
	p[2] = (struct fs_trace_peer){.state = FS_TRACE_READY, .kind = FS_TRACE_PEER_LISTEN};
	p[2].local = ep(FS_TRACE_FAM_INET, 29500, v4, 4);
	p[3] = (struct fs_trace_peer){.state = FS_TRACE_CLAIMING, .kind = FS_TRACE_PEER_CONNECTED};
	p[3].cnt[FS_TRACE_MAIN].calls = 1; /* not READY: no row */
	p[4] = (struct fs_trace_peer){.state = FS_TRACE_READY, .kind = FS_TRACE_PEER_CONNECTED};
	p[4].local = ep(FS_TRACE_FAM_UNIX, 0, "@abstract", 9);
	p[4].peer = ep(9, 0, "", 0);
	p[4].local.addr_len = 1000; /* damaged */
	p[4].cnt[FS_TRACE_MAIN].calls = 1;
	off_t at = (off_t)offsetof(struct fs_trace_region, peers);
	CHECK(pwrite(fd, p, sizeof p, at) == (ssize_t)sizeof p);
	struct fs_trace_reader rd;
	memset(&rd, 0, sizeof rd);
	CHECK_INT(fs_trace_read_peers(&rd, fd), 0);
	struct fs_trace_head h;
	memset(&h, 0, sizeof h);
	h.pid = 77;
	h.clock_kind = FS_TRACE_CLOCK_NS;
	struct fs_trace_timebase tb = {0, 0, 0};
	struct peer_rows c;
	memset(&c, 0, sizeof c);
	c.sink = (struct fs_sink){keep_peer, no_meta, NULL};
	struct fs_source_ctx ctx = {NULL, &c.sink, NULL, 1.5, 0, false};
	CHECK_INT(fs_trace_emit_peers(&tb, &h, rd.peers, &ctx, false), 4);
	CHECK_INT(c.n, 4);
	CHECK(!strcmp(c.text[0][0], "other") && !strcmp(c.text[0][2], "(other peers)"));
	CHECK_INT(c.r[0].v[FS_PEERS_read_bytes].i, 9);
	CHECK(!strcmp(c.text[1][0], "peer") && !strcmp(c.text[1][1], "inet6"));
	CHECK(!strcmp(c.text[1][2], "::1") && !strcmp(c.text[1][3], "::1"));
	CHECK_INT(c.r[1].v[FS_PEERS_local_port].i, 40000);
	CHECK_INT(c.r[1].v[FS_PEERS_peer_port].i, 29500);
	CHECK(c.r[1].v[FS_PEERS_read_s].d == 1.0 && c.r[1].v[FS_PEERS_write_s].d == 0.5);
	CHECK_INT(c.r[1].v[FS_PEERS_calls].i, 3);
	CHECK(!strcmp(c.text[1][0], "peer"));
	CHECK(!strcmp(c.text[2][0], "listen") && !strcmp(c.text[2][2], "10.0.0.7"));
	CHECK(c.r[2].v[FS_PEERS_thread].kind == FS_V_NULL && c.r[2].v[FS_PEERS_calls].kind == FS_V_NULL);
	/* the damaged entry: its address clipped to its field, the unknown peer family without one */
	CHECK(!strcmp(c.text[3][1], "unix") && !strcmp(c.text[3][2], "@abstract"));
	CHECK(!strcmp(c.text[3][3], "NULL") && !strcmp(c.text[3][0], "peer"));
	/* --hash-paths: the Unix name hashed, an IP address kept */
	c.n = 0;
	CHECK_INT(fs_trace_emit_peers(&tb, &h, rd.peers, &ctx, true), 4);
	CHECK(!strcmp(c.text[1][2], "::1") && strlen(c.text[3][2]) == 16 && !strchr(c.text[3][2], '@'));
	fs_trace_reader_free(&rd);
	close(fd);
}

int main(void)
{
	test_head_and_files();
	test_ops();
	test_classes();
	test_peers_rows();
	return check_exit("test_trace_read");
}
