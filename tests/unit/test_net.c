/* test_net - the net source's parsers and compute functions, the NFS mount
 * tracker, and a live sample of this machine's interfaces. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "source/net_parse.h"
#include "source/nfs.h"
#include "source/source.h"
#include "util/clock.h"

/* A sink that keeps copies of the rows it is given. */
#define MAX_ROWS 256
struct kept_row {
	enum fs_table_id table;
	char text[2][128]; /* the first two TEXT columns */
	struct fs_value v[FS_MAX_COLS];
};

struct collect_sink {
	struct fs_sink sink;
	struct kept_row rows[MAX_ROWS];
	int n, meta;
};

static void collect_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct collect_sink *c = (struct collect_sink *)sink;
	if (c->n >= MAX_ROWS)
		return;
	struct kept_row *k = &c->rows[c->n++];
	k->table = r->table;
	int nt = 0;
	for (int i = 0; i < FS_MAX_COLS; i++) {
		k->v[i] = r->v[i];
		if (r->v[i].kind == FS_V_TEXT) {
			if (nt < 2) {
				snprintf(k->text[nt], sizeof k->text[nt], "%s", r->v[i].s);
				k->v[i].s = k->text[nt++];
			} else {
				k->v[i].s = NULL;
			}
		}
	}
}

static void collect_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct collect_sink *c = (struct collect_sink *)sink;
	c->meta++;
	fprintf(stderr, "meta %s=%s\n", key, value);
}

static void collect_init(struct collect_sink *c)
{
	memset(c, 0, sizeof *c);
	c->sink.row = collect_row;
	c->sink.meta = collect_meta;
}

static double real_of(const struct kept_row *k, int col)
{
	return k->v[col].kind == FS_V_REAL ? k->v[col].d : NAN;
}

static void test_dev_line(void)
{
	char name[32];
	struct fs_net_counters c;
	CHECK(fs_net_parse_dev_line("  eth0: 115778062    2190    3    4    0     0          0         0"
				    "   104679    1360    5    6    0     0       0          0\n",
				    name, sizeof name, &c));
	CHECK_STR(name, "eth0");
	CHECK_INT(c.rx_bytes, 115778062);
	CHECK_INT(c.rx_packets, 2190);
	CHECK_INT(c.rx_errs, 3);
	CHECK_INT(c.rx_drops, 4);
	CHECK_INT(c.tx_bytes, 104679);
	CHECK_INT(c.tx_packets, 1360);
	CHECK_INT(c.tx_errs, 5);
	CHECK_INT(c.tx_drops, 6);

	/* A long name glued to its first number, as old kernels print it. */
	CHECK(fs_net_parse_dev_line("veth1a2b.100:18446744073709551615 1 0 0 0 0 0 0 2 3 0 0 0 0 0 0",
				    name, sizeof name, &c));
	CHECK_STR(name, "veth1a2b.100");
	CHECK(c.rx_bytes == UINT64_MAX);
	CHECK_INT(c.tx_bytes, 2);

	/* Only this line is read: the next line's numbers do not count. */
	CHECK(!fs_net_parse_dev_line("  eth1: 1 2 3 4 5 6 7 8\n  eth2: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
				     name, sizeof name, &c));
	CHECK(!fs_net_parse_dev_line("Inter-|   Receive      |  Transmit\n", name, sizeof name, &c));
	CHECK(!fs_net_parse_dev_line(" face |bytes    packets errs drop fifo frame\n", name, sizeof name, &c));
	CHECK(!fs_net_parse_dev_line("   : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", name, sizeof name, &c));
	char tiny[4];
	CHECK(!fs_net_parse_dev_line("eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", tiny, sizeof tiny, &c));
	CHECK(!fs_net_parse_dev_line("", name, sizeof name, &c));
}

static void test_net_compute(void)
{
	struct fs_net_counters a = {.rx_bytes = 4294967000u, .rx_packets = 100, .rx_errs = 17,
				    .tx_bytes = 5000000000ull, .tx_packets = 10};
	struct fs_net_counters b = {.rx_bytes = 200, .rx_packets = 300, .rx_errs = 0,
				    .tx_bytes = 1000, .tx_packets = 30};
	struct fs_net_rates r;
	fs_net_compute(&a, &b, 0.5, &r);
	CHECK_NEAR(r.rx_bytes_per_s, 496 / 0.5, 1e-9);   /* 32-bit wrap */
	CHECK_NEAR(r.rx_packets_per_s, 400, 1e-9);
	CHECK_NEAR(r.rx_errs_per_s, 0, 0);               /* went backwards */
	CHECK_NEAR(r.tx_bytes_per_s, 0, 0);              /* 64-bit reset */
	CHECK_NEAR(r.tx_packets_per_s, 40, 1e-9);
	CHECK_NEAR(r.tx_drops_per_s, 0, 0);
	fs_net_compute(&a, &b, 0, &r);
	CHECK(isnan(r.rx_bytes_per_s) && isnan(r.tx_drops_per_s));
}

static const char snmp_text[] =
	"Ip: Forwarding DefaultTTL InReceives\n"
	"Ip: 2 64 2217\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
	"CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 12 2 0 0 0 2193 1356 7 0 2 0\n"
	"Udp: InDatagrams NoPorts\n"
	"Udp: 23 0\n";

static void test_tcp(void)
{
	struct fs_tcp_counters a, b;
	CHECK(fs_tcp_parse_snmp(snmp_text, &a));
	CHECK(a.have_in && a.have_out && a.have_retrans);
	CHECK_INT(a.in_segs, 2193);
	CHECK_INT(a.out_segs, 1356);
	CHECK_INT(a.retrans_segs, 7);

	/* Columns are found by name, in any order; a missing one stays unknown. */
	CHECK(fs_tcp_parse_snmp("Tcp: OutSegs MaxConn InSegs\nTcp: 2356 -1 4193\n", &b));
	CHECK(b.have_in && b.have_out && !b.have_retrans);
	CHECK_INT(b.in_segs, 4193);
	CHECK_INT(b.out_segs, 2356);
	struct fs_tcp_rates r;
	fs_tcp_compute(&a, &b, 2.0, &r);
	CHECK_NEAR(r.in_segs_per_s, 1000, 1e-9);
	CHECK_NEAR(r.out_segs_per_s, 500, 1e-9);
	CHECK(isnan(r.retrans_segs_per_s));
	fs_tcp_compute(&a, &a, 0, &r);
	CHECK(isnan(r.in_segs_per_s));

	CHECK(!fs_tcp_parse_snmp("Ip: Forwarding\nIp: 2\n", &b));
	CHECK(!fs_tcp_parse_snmp("Tcp: InSegs OutSegs\n", &b));
	CHECK(!fs_tcp_parse_snmp("Tcp: InSegs OutSegs\nUdp: 1 2\n", &b));
	CHECK(!fs_tcp_parse_snmp("", &b));
	/* A value line shorter than its header: the columns past its end are unknown. */
	CHECK(fs_tcp_parse_snmp("Tcp: InSegs OutSegs RetransSegs\nTcp: 5 6", &b));
	CHECK(b.have_in && b.have_out && !b.have_retrans);
}

#define NFS4_HEAD "device 10.0.0.5:/export/datasets mounted on /mnt/data with fstype nfs4 statvers=1.1\n" \
	"\topts:\trw,vers=4.2,rsize=1048576\n" \
	"\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n" \
	"\tper-op statistics\n" \
	"\t        NULL: 1 1 0 44 24 0 0 0 0\n"

static const char mountstats_a[] =
	"device /dev/vda mounted on / with fstype ext4\n"
	"device nfsd mounted on /proc/fs/nfsd with fstype nfsd\n"
	NFS4_HEAD
	"\t        READ: 100 100 0 16000 104857600 10 400 420 0\n"
	"\t       WRITE: 50 50 0 52428800 6000 1 100 110 0\n"
	"\t    READLINK: 9 9 0 1 1 1 900 900 0\n"
	"\t     READDIR: 9 9 0 1 1 1 900 900 0\n"
	"\t   READ_PLUS: 20 20 0 3200 20971520 2 80 84 0\n"
	"\n"
	"device srv:/old mounted on /mnt/old\\040x with fstype nfs statvers=1.1\n"
	"\topts:\trw,vers=3\n"
	"\tper-op statistics\n"
	"\t        READ: 5 5 0 800 40960 0 10 12\n"
	"\n"
	"device srv:/fresh mounted on /mnt/fresh with fstype nfs4 statvers=1.1\n"
	"\topts:\trw,vers=4.1\n"
	"device tmpfs mounted on /dev/shm with fstype tmpfs\n";

static void test_nfs_parse(void)
{
	const char *pos = mountstats_a;
	struct fs_nfs_entry e;
	CHECK(fs_nfs_next_mount(&pos, &e));
	CHECK_INT(e.dev_len, strlen("10.0.0.5:/export/datasets"));
	CHECK(strncmp(e.dev, "10.0.0.5:/export/datasets", e.dev_len) == 0);
	CHECK(strncmp(e.mnt, "/mnt/data", e.mnt_len) == 0 && e.mnt_len == 9);
	CHECK(e.c.read.have && e.c.write.have);
	CHECK_INT(e.c.read.ops, 120); /* READ + READ_PLUS, not READLINK or READDIR */
	CHECK_INT(e.c.read.bytes_recv, 104857600 + 20971520);
	CHECK_INT(e.c.read.rtt_ms, 480);
	CHECK_INT(e.c.read.exe_ms, 504);
	CHECK_INT(e.c.write.ops, 50);
	CHECK_INT(e.c.write.bytes_sent, 52428800);

	CHECK(fs_nfs_next_mount(&pos, &e)); /* NFSv3, statvers 1.0-style 8 fields */
	CHECK(strncmp(e.mnt, "/mnt/old\\040x", e.mnt_len) == 0);
	CHECK(e.c.read.have && !e.c.write.have);
	CHECK_INT(e.c.read.ops, 5);
	CHECK_INT(e.c.read.exe_ms, 12);

	CHECK(fs_nfs_next_mount(&pos, &e)); /* no per-op section (yet) */
	CHECK(!e.c.read.have && !e.c.write.have);
	CHECK(!fs_nfs_next_mount(&pos, &e));
	CHECK(!fs_nfs_next_mount(&pos, &e));

	pos = "device proc mounted on /proc with fstype proc\n";
	CHECK(!fs_nfs_next_mount(&pos, &e));
	pos = "";
	CHECK(!fs_nfs_next_mount(&pos, &e));

	struct fs_nfs_op op;
	CHECK(!fs_nfs_parse_op(" 1 2 3 4 5 6 7\n 8", &op));
	CHECK(fs_nfs_parse_op(" 1 2 3 4 5 6 7 8", &op));
	CHECK_INT(op.bytes_recv, 5);
	CHECK_INT(op.rtt_ms, 7);

	char out[64];
	const char *esc = "/mnt/a\\040b\\134c\\04";
	CHECK_INT(fs_nfs_unescape(esc, strlen(esc), out), strlen("/mnt/a b\\c\\04"));
	CHECK_STR(out, "/mnt/a b\\c\\04");
}

static void test_nfs_compute(void)
{
	struct fs_nfs_counters a = {
		.read = {.have = true, .ops = 100, .bytes_recv = 1000, .rtt_ms = 400, .exe_ms = 500},
		.write = {.have = true, .ops = 7}};
	struct fs_nfs_counters b = a;
	b.read.ops = 150;
	b.read.bytes_recv = 51000;
	b.read.rtt_ms = 500;
	b.read.exe_ms = 650;
	b.write.ops = 17;
	struct fs_nfs_rates r;
	fs_nfs_compute(&a, &b, 0.5, &r);
	CHECK_NEAR(r.read_ops_per_s, 100, 1e-9);
	CHECK_NEAR(r.read_bytes_per_s, 100000, 1e-9);
	CHECK_NEAR(r.read_rtt_ms, 2, 1e-9);
	CHECK_NEAR(r.read_exe_ms, 3, 1e-9);
	CHECK_NEAR(r.write_ops_per_s, 20, 1e-9);

	fs_nfs_compute(&a, &a, 1, &r); /* no READ in the interval */
	CHECK_NEAR(r.read_ops_per_s, 0, 0);
	CHECK(isnan(r.read_rtt_ms) && isnan(r.read_exe_ms));

	b.write.have = false;
	fs_nfs_compute(&a, &b, 0, &r);
	CHECK(isnan(r.read_ops_per_s) && isnan(r.write_ops_per_s));
	CHECK_NEAR(r.read_rtt_ms, 2, 1e-9); /* a per-READ mean needs no dt */
}

static void test_nfs_tracker(void)
{
	struct collect_sink cs;
	collect_init(&cs);
	struct fs_paths paths = {0};
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &cs.sink, .t = 0, .now_ns = 1000000000};
	struct fs_nfs_tracker tr = {0};

	CHECK_INT(fs_nfs_tracker_update(&tr, mountstats_a, &ctx), 3);
	CHECK_INT(cs.n, 0); /* baselines only */

	/* Next read: the v3 mount is gone, /mnt/data read 60 more (50 READ, 10 READ_PLUS). */
	static const char b[] = NFS4_HEAD
		"\t        READ: 150 150 0 24000 157286400 10 600 630 0\n"
		"\t       WRITE: 50 50 0 52428800 6000 1 100 110 0\n"
		"\t   READ_PLUS: 30 30 0 4800 31457280 2 120 126 0\n"
		"device srv:/fresh mounted on /mnt/fresh with fstype nfs4 statvers=1.1\n";
	ctx.t = 2;
	ctx.now_ns += 2000000000;
	CHECK_INT(fs_nfs_tracker_update(&tr, b, &ctx), 2);
	CHECK_INT(cs.n, 1);
	CHECK_INT(tr.n, 2);
	const struct kept_row *k = &cs.rows[0];
	CHECK_INT(k->table, FS_T_NFS);
	CHECK_STR(k->v[FS_NFS_mount].s, "/mnt/data");
	CHECK_STR(k->v[FS_NFS_server].s, "10.0.0.5:/export/datasets");
	CHECK_NEAR(real_of(k, FS_NFS_t), 2, 0);
	CHECK_NEAR(real_of(k, FS_NFS_read_ops_per_s), 30, 1e-9);
	CHECK_NEAR(real_of(k, FS_NFS_read_bytes_per_s), (52428800 + 10485760) / 2.0, 1e-6);
	CHECK_NEAR(real_of(k, FS_NFS_read_rtt_ms), 240 / 60.0, 1e-9);
	CHECK_NEAR(real_of(k, FS_NFS_read_exe_ms), 252 / 60.0, 1e-9);
	CHECK_NEAR(real_of(k, FS_NFS_write_ops_per_s), 0, 0);

	/* The v3 mount comes back: a baseline, not a row against its old counters. */
	ctx.now_ns += 1000000000;
	CHECK_INT(fs_nfs_tracker_update(&tr, mountstats_a, &ctx), 3);
	CHECK_INT(cs.n, 2); /* /mnt/data again (counters went back: 0 rates) */
	CHECK_NEAR(real_of(&cs.rows[1], FS_NFS_read_ops_per_s), 0, 0);
	CHECK_INT(fs_nfs_tracker_update(&tr, "", &ctx), 0);
	CHECK_INT(tr.n, 0);
	fs_nfs_tracker_free(&tr);
}

static const struct kept_row *find_iface(const struct collect_sink *cs, const char *name)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->rows[i].table == FS_T_NET && cs->rows[i].v[FS_NET_iface].kind == FS_V_TEXT &&
		    strcmp(cs->rows[i].v[FS_NET_iface].s, name) == 0)
			return &cs->rows[i];
	return NULL;
}

static void check_finite_nonneg(const struct kept_row *k, int from, int ncols)
{
	for (int c = from; c < ncols; c++) {
		if (k->v[c].kind == FS_V_REAL)
			CHECK(isfinite(k->v[c].d) && k->v[c].d >= 0);
		else if (k->v[c].kind == FS_V_INT)
			CHECK(k->v[c].i > 0);
	}
}

static void test_live(void)
{
	const struct fs_source_ops *net = fs_source_find("net");
	CHECK(net != NULL);
	if (!net)
		return;
	struct collect_sink cs;
	collect_init(&cs);
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &cs.sink, .t = 0, .now_ns = fs_now_ns()};
	void *state = NULL;
	char why[256] = "";
	int rc = net->open(&state, &ctx, why, sizeof why);
	CHECK_INT(rc, FS_SOURCE_OK);
	if (rc != FS_SOURCE_OK) {
		fprintf(stderr, "net unavailable: %s\n", why);
		return;
	}
	CHECK_INT(net->sample(state, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(cs.n, 0);
	struct timespec ts = {0, 200000000};
	nanosleep(&ts, NULL);
	ctx.t = 0.2;
	ctx.now_ns = fs_now_ns();
	CHECK_INT(net->sample(state, &ctx, why, sizeof why), FS_SOURCE_OK);
	/* tcp (snmp) is read once a second: none yet after 0.2 s, one after 1 s. */
	int tcp_early = 0;
	for (int i = 0; i < cs.n; i++)
		tcp_early += cs.rows[i].table == FS_T_TCP;
	CHECK_INT(tcp_early, 0);
	ts.tv_sec = 1;
	ts.tv_nsec = 0;
	nanosleep(&ts, NULL);
	ctx.t = 1.2;
	ctx.now_ns = fs_now_ns();
	CHECK_INT(net->sample(state, &ctx, why, sizeof why), FS_SOURCE_OK);
	net->close(state);

	const struct kept_row *lo = find_iface(&cs, "lo");
	CHECK(lo != NULL);
	if (access("/sys/class/net/eth0", F_OK) == 0)
		CHECK(find_iface(&cs, "eth0") != NULL);
	else
		fprintf(stderr, "test_net: no eth0 on this machine; checked lo only\n");
	int tcp = 0;
	for (int i = 0; i < cs.n; i++) {
		const struct kept_row *k = &cs.rows[i];
		if (k->table == FS_T_NET)
			check_finite_nonneg(k, FS_NET_rx_bytes_per_s, FS_NET__N);
		else if (k->table == FS_T_TCP) {
			check_finite_nonneg(k, FS_TCP_retrans_segs_per_s, FS_TCP__N);
			tcp++;
		} else if (k->table == FS_T_NFS)
			check_finite_nonneg(k, FS_NFS_read_ops_per_s, FS_NFS__N);
	}
	CHECK_INT(tcp, 1);
}

int main(void)
{
	test_dev_line();
	test_net_compute();
	test_tcp();
	test_nfs_parse();
	test_nfs_compute();
	test_nfs_tracker();
	test_live();
	return check_exit("test_net");
}
