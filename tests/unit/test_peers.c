/* The data network vs the job's own traffic (src/analysis/load/peers.c) on two
 * golden run files, one per node, written through the real store with
 * hand-chosen peers rows. Each row's expected class is said next to it,
 * and every per-process figure is worked out by hand below. Then a run
 * file without a peers table (an older feedscope): no rows, no error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/load/peers.h"
#include "analysis/load/query.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9

static char dir[] = "/tmp/fs-peers-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

#define ROW(sink, ...) golden_row(sink, FS_T_PEERS, 0, __VA_ARGS__)

/* Node A: ranks 100 and 101, the launcher 99 (its rendezvous store). */
static void node_a(struct fs_sink *s)
{
	fs_sink_meta(s, "pid", "99");
	/* 0, 1: both ends of one gloo connection between the two ranks: collective */
	ROW(s, "pid=100 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=40000 peer_addr=10.0.0.1 "
	       "peer_port=40001 read_bytes=1000 write_bytes=2000 read_s=0.5 write_s=0.25 calls=10 first_t=1 last_t=9");
	ROW(s, "pid=101 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=40001 peer_addr=10.0.0.1 "
	       "peer_port=40000 read_bytes=2000 write_bytes=1000 read_s=0.25 write_s=0.5 calls=10 first_t=1 last_t=9");
	/* 2: the store's wildcard listener */
	ROW(s, "pid=99 kind=listen family=inet local_addr=0.0.0.0 local_port=29500");
	/* 3: rank 100 to the store on loopback (the store's side made no call): collective by the listener */
	ROW(s, "pid=100 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=50000 peer_addr=127.0.0.1 "
	       "peer_port=29500 read_bytes=10 write_bytes=20 read_s=0.125 write_s=0.125 calls=4 first_t=0.5 last_t=0.75");
	/* 4, 5, 6: rank 100's data from an object store, two connections and a folded entry: data */
	ROW(s, "pid=100 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=50010 peer_addr=192.168.1.5 "
	       "peer_port=443 read_bytes=1000000 write_bytes=500 read_s=2 write_s=0.5 calls=100 first_t=1 last_t=5");
	ROW(s, "pid=100 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=50011 peer_addr=192.168.1.5 "
	       "peer_port=443 read_bytes=300000 write_bytes=500 read_s=1 write_s=0 calls=30 first_t=2 last_t=6");
	ROW(s, "pid=100 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=NULL peer_addr=192.168.1.5 "
	       "peer_port=443 read_bytes=5000 write_bytes=0 read_s=0.5 write_s=0 calls=5 first_t=6 last_t=7");
	/* 7: and from a second server: data */
	ROW(s, "pid=100 thread=main kind=peer family=inet local_addr=10.0.0.1 local_port=50012 peer_addr=192.168.1.6 "
	       "peer_port=8080 read_bytes=1000 write_bytes=0 read_s=0.25 write_s=0 calls=2 first_t=3 last_t=4");
	/* 8: rank 101 to an HTTP server on loopback that is no job process (node B's
	 * listener on port 8000 is another host's): data */
	ROW(s, "pid=101 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=50100 peer_addr=127.0.0.1 "
	       "peer_port=8000 read_bytes=4000 write_bytes=100 read_s=1 write_s=0 calls=8 first_t=2 last_t=4");
	/* 9: rank 101's end of a connection from node B's rank: collective (its pair is in run B) */
	ROW(s, "pid=101 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=40003 peer_addr=10.0.0.2 "
	       "peer_port=40002 read_bytes=700 write_bytes=300 read_s=0.125 write_s=0.125 calls=6 first_t=1 last_t=2");
	/* 10: the launcher listens on 10.0.0.1:29400 too */
	ROW(s, "pid=99 kind=listen family=inet local_addr=10.0.0.1 local_port=29400");
	/* 11: the store's Unix listener; 12: a rank connected to it (collective); 13: to a daemon's (ipc: no network) */
	ROW(s, "pid=99 kind=listen family=unix local_addr=/tmp/store.sock");
	ROW(s, "pid=100 thread=main kind=peer family=unix local_addr=(unnamed) peer_addr=/tmp/store.sock "
	       "read_bytes=50 write_bytes=50 read_s=0 write_s=0 calls=2");
	ROW(s, "pid=100 thread=main kind=peer family=unix local_addr=(unnamed) peer_addr=/run/daemon.sock "
	       "read_bytes=60 write_bytes=40 read_s=0.25 write_s=0 calls=2 first_t=8 last_t=8.5");
	/* 14: the store's accepted side of 12: collective (a job socket connected to its path) */
	ROW(s, "pid=99 thread=other kind=peer family=unix local_addr=/tmp/store.sock peer_addr=(unnamed) "
	       "read_bytes=50 write_bytes=50 read_s=0 write_s=0 calls=2");
	/* 15: a socketpair: ipc; 16: unconnected datagrams, 17: (other peers): unattributed */
	ROW(s, "pid=100 thread=main kind=peer family=unix local_addr=(unnamed) peer_addr=(unnamed) "
	       "read_bytes=7 write_bytes=7 read_s=0 write_s=0 calls=2");
	ROW(s, "pid=100 thread=main kind=unconnected family=inet local_addr=0.0.0.0 local_port=5353 "
	       "read_bytes=300 write_bytes=0 read_s=0 write_s=0 calls=3");
	ROW(s, "pid=100 thread=main kind=other local_addr='(other peers)' read_bytes=11 write_bytes=0 read_s=0 "
	       "write_s=0 calls=1");
	/* 18: datagrams to row 16's bound socket, which receives from anyone as a listener does: collective */
	ROW(s, "pid=101 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=50300 peer_addr=127.0.0.1 "
	       "peer_port=5353 read_bytes=0 write_bytes=30 read_s=0 write_s=0 calls=1");
	/* 19: the launcher's accepted end of a probe from this host whose own socket made no call
	 * (local = its wildcard listener's port, peer on loopback): collective */
	ROW(s, "pid=99 thread=other kind=peer family=inet local_addr=127.0.0.1 local_port=29500 peer_addr=127.0.0.1 "
	       "peer_port=51000 read_bytes=0 write_bytes=0 read_s=0 write_s=0 calls=1");
	/* 20: the same from another host: its peer is no job endpoint: data (moving no bytes: not in the top) */
	ROW(s, "pid=99 thread=other kind=peer family=inet local_addr=10.0.0.1 local_port=29500 peer_addr=10.0.0.7 "
	       "peer_port=51000 read_bytes=0 write_bytes=0 read_s=0 write_s=0 calls=1");
}

/* Node B: rank 100 (the same pid as node A's rank: another host). */
static void node_b(struct fs_sink *s)
{
	fs_sink_meta(s, "pid", "100");
	/* 0: the other end of node A's row 9: collective */
	ROW(s, "pid=100 thread=other kind=peer family=inet local_addr=10.0.0.2 local_port=40002 peer_addr=10.0.0.1 "
	       "peer_port=40003 read_bytes=300 write_bytes=700 read_s=0.125 write_s=0.125 calls=6 first_t=1 last_t=2");
	/* 1: to node A's launcher on its explicit address: collective */
	ROW(s, "pid=100 thread=main kind=peer family=inet local_addr=10.0.0.2 local_port=50200 peer_addr=10.0.0.1 "
	       "peer_port=29400 read_bytes=5 write_bytes=5 read_s=0 write_s=0 calls=2");
	/* 2: to node A's wildcard store on 10.0.0.1 (an address of node A's sockets): collective */
	ROW(s, "pid=100 thread=main kind=peer family=inet local_addr=10.0.0.2 local_port=50201 peer_addr=10.0.0.1 "
	       "peer_port=29500 read_bytes=6 write_bytes=6 read_s=0 write_s=0 calls=2");
	/* 3: a listener on 0.0.0.0:8000 (matches only node B's own loopback) */
	ROW(s, "pid=100 kind=listen family=inet local_addr=0.0.0.0 local_port=8000");
	/* 4: to 10.0.0.9:29500, an address of no job host: data */
	ROW(s, "pid=100 thread=main kind=peer family=inet local_addr=10.0.0.2 local_port=50202 peer_addr=10.0.0.9 "
	       "peer_port=29500 read_bytes=900 write_bytes=100 read_s=0.5 write_s=0 calls=2 first_t=3 last_t=5");
}

static const enum fs_peer_class want_a[] = {
	FS_PEER_COLLECTIVE, FS_PEER_COLLECTIVE, FS_PEER_UNATTRIBUTED, FS_PEER_COLLECTIVE, FS_PEER_DATA, FS_PEER_DATA,
	FS_PEER_DATA, FS_PEER_DATA, FS_PEER_DATA, FS_PEER_COLLECTIVE, FS_PEER_UNATTRIBUTED, FS_PEER_UNATTRIBUTED,
	FS_PEER_COLLECTIVE, FS_PEER_IPC, FS_PEER_COLLECTIVE, FS_PEER_IPC, FS_PEER_UNATTRIBUTED, FS_PEER_UNATTRIBUTED,
	FS_PEER_COLLECTIVE, FS_PEER_COLLECTIVE, FS_PEER_DATA,
};
static const enum fs_peer_class want_b[] = {
	FS_PEER_COLLECTIVE, FS_PEER_COLLECTIVE, FS_PEER_COLLECTIVE, FS_PEER_UNATTRIBUTED, FS_PEER_DATA,
};
#define NA (sizeof want_a / sizeof want_a[0])
#define NB (sizeof want_b / sizeof want_b[0])

static void write_run(const char *name, void (*fill)(struct fs_sink *))
{
	char path[256];
	path_of(path, sizeof path, name);
	struct fs_store *st = golden_create(path);
	if (!st)
		return;
	fill(fs_store_sink(st));
	fs_store_close(st);
}

static const struct fs_peer_proc *proc(const struct fs_peers_report *r, int run, int pid)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->procs[i].run == run && r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

static void load(const char *name, int run, struct fs_peer_rows *rows)
{
	char path[256], err[512];
	struct fs_q q;
	path_of(path, sizeof path, name);
	CHECK(fs_q_open(&q, path, err, sizeof err) == 0);
	CHECK_INT(fs_peers_load(&q, run, rows), 0);
	CHECK(fs_q_failed(&q) == NULL);
	fs_q_close(&q);
}

static void check_sum(const struct fs_peer_sum *s, double rb, double wb, double sec, double calls)
{
	CHECK_NEAR(s->read_bytes, rb, EXACT);
	CHECK_NEAR(s->write_bytes, wb, EXACT);
	CHECK_NEAR(s->seconds, sec, EXACT);
	CHECK_NEAR(s->calls, calls, EXACT);
}

static void test_two_nodes(void)
{
	write_run("a.db", node_a);
	write_run("b.db", node_b);
	struct fs_peer_rows rows = {0};
	load("a.db", 0, &rows);
	load("b.db", 1, &rows);
	CHECK_INT((long)rows.n, (long)(NA + NB));
	struct fs_peers_report rep;
	CHECK_INT(fs_peers_analyse(&rows, &rep), 0);
	for (size_t i = 0; i < rows.n && i < NA + NB; i++) {
		enum fs_peer_class want = i < NA ? want_a[i] : want_b[i - NA];
		if (rep.row_class[i] != want)
			fprintf(stderr, "row %zu (run %d pid %d %s:%d -> %s:%d): %s, expected %s\n", i, rows.v[i].run,
				rows.v[i].pid, rows.v[i].local_addr, rows.v[i].local_port, rows.v[i].peer_addr,
				rows.v[i].peer_port, fs_peer_class_name(rep.row_class[i]), fs_peer_class_name(want));
		CHECK_INT(rep.row_class[i], want);
	}
	/* processes: run 0 pids 99, 100, 101; run 1 pid 100 */
	CHECK_INT((long)rep.n, 4);
	const struct fs_peer_proc *p = proc(&rep, 0, 100);
	CHECK(p != NULL);
	if (p) {
		/* data: rows 4 5 6 7: read 1e6+3e5+5000+1000, write 500+500+0+0;
		 * seconds 2.5+1+0.5+0.25; calls 100+30+5+2 */
		check_sum(&p->cls[FS_PEER_DATA], 1306000, 1000, 4.25, 137);
		/* collective: rows 0 3 12: read 1000+10+50, write 2000+20+50, s 0.75+0.25+0, calls 10+4+2 */
		check_sum(&p->cls[FS_PEER_COLLECTIVE], 1060, 2070, 1.0, 16);
		/* ipc: rows 13 15 */
		check_sum(&p->cls[FS_PEER_IPC], 67, 47, 0.25, 4);
		check_sum(&p->cls[FS_PEER_UNATTRIBUTED], 311, 0, 0, 4);
		/* data from t=1 (row 4) to t=7 (row 6) */
		CHECK_NEAR(p->data_span_s, 6, EXACT);
		CHECK_NEAR(p->data_bytes_per_s, (1306000.0 + 1000) / 6, 1e-6);
		/* top: 192.168.1.5:443 (1305000 + 1000 bytes, 4 s), 192.168.1.6:8080 */
		CHECK_INT(p->ntop, 2);
		CHECK_STR(p->top[0].addr, "192.168.1.5");
		CHECK_INT(p->top[0].port, 443);
		CHECK_NEAR(p->top[0].bytes, 1306000, EXACT);
		CHECK_NEAR(p->top[0].seconds, 4.0, EXACT);
		CHECK_STR(p->top[1].addr, "192.168.1.6");
		CHECK_INT(p->top[1].port, 8080);
		CHECK_NEAR(p->top[1].bytes, 1000, EXACT);
	}
	p = proc(&rep, 0, 101);
	CHECK(p != NULL);
	if (p) {
		check_sum(&p->cls[FS_PEER_DATA], 4000, 100, 1, 8);
		/* collective: rows 1 9 18 */
		check_sum(&p->cls[FS_PEER_COLLECTIVE], 2700, 1330, 1.0, 17);
		CHECK_INT(p->ntop, 1);
		CHECK_STR(p->top[0].addr, "127.0.0.1");
		CHECK_INT(p->top[0].port, 8000);
	}
	p = proc(&rep, 1, 100); /* node B's rank, apart from node A's pid 100 */
	CHECK(p != NULL);
	if (p) {
		check_sum(&p->cls[FS_PEER_COLLECTIVE], 311, 711, 0.25, 10);
		check_sum(&p->cls[FS_PEER_DATA], 900, 100, 0.5, 2);
		CHECK_NEAR(p->data_span_s, 2, EXACT);
		CHECK_NEAR(p->data_bytes_per_s, 500, EXACT);
	}
	p = proc(&rep, 0, 99);
	CHECK(p != NULL);
	if (p) {
		/* rows 14 19 collective, 20 data */
		check_sum(&p->cls[FS_PEER_COLLECTIVE], 50, 50, 0, 3);
		check_sum(&p->cls[FS_PEER_DATA], 0, 0, 0, 1);
		CHECK_INT(p->ntop, 0);
		CHECK(isnan(p->data_span_s));
		CHECK(isnan(p->data_bytes_per_s));
	}
	fs_peers_report_free(&rep);

	/* node A alone: row 9's other end is not given, so it is data now (its
	 * peer is no job host's endpoint any more) */
	struct fs_peer_rows only_a = {0};
	load("a.db", 0, &only_a);
	CHECK_INT(fs_peers_analyse(&only_a, &rep), 0);
	if (rep.row_class && only_a.n == NA)
		CHECK_INT(rep.row_class[9], FS_PEER_DATA);
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&only_a);
	fs_peer_rows_free(&rows);
}

/* A run file from before the peers table: nothing, and no error. */
static void test_old(void)
{
	char path[256];
	write_run("old.db", node_b);
	path_of(path, sizeof path, "old.db");
	CHECK_INT(golden_sql(path, "DROP TABLE peers"), 0);
	struct fs_peer_rows rows = {0};
	load("old.db", 0, &rows);
	CHECK_INT((long)rows.n, 0);
	struct fs_peers_report rep;
	CHECK_INT(fs_peers_analyse(&rows, &rep), 0);
	CHECK_INT((long)rep.n, 0);
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&rows);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_two_nodes();
	test_old();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_peers");
}
