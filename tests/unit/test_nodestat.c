/* test_nodestat - the exporter's machine figures (analysis/load/nodestat.c,
 * serve/nodesample.c): the real machine-wide sources read a fixture /proc
 * and /sys whose counters the test moves by known amounts between two
 * samples; every total must be that increase exactly (bytes, requests,
 * milliseconds, microseconds of stall, packets, faults), whatever the
 * interval was. Then a disk and an interface vanish (dropped) and new ones
 * appear (a baseline first, then their own increase), a row without its
 * interval adds nothing, and the sources' up/down from meta. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/load/nodestat.h"
#include "check.h"
#include "serve/nodesample.h"

static char root[256];

static void put(const char *rel, const char *fmt, ...)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void dirs(void)
{
	static const char *const d[] = {"proc", "proc/net", "proc/pressure", "proc/sys", "proc/sys/fs", "sys", "sys/block",
					"sys/block/vda", "sys/block/sdb", "sys/class", "sys/class/net", "sys/class/net/eth0",
					"shm"};
	for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", root, d[i]);
		CHECK(mkdir(path, 0755) == 0);
	}
	put("sys/class/net/eth0/speed", "1000\n");
}

/* The counters of one moment: k scales nothing, the caller picks values. */
struct moment {
	unsigned long long user, sys, idle, iowait;
	unsigned long long vda_reads, vda_sectors, vda_read_ms, vda_writes, vda_wsectors, vda_write_ms, vda_io_ms,
		vda_weighted_ms, vda_flushes;
	bool vda, sdb;
	unsigned long long sdb_reads, sdb_sectors;
	unsigned long long rx_bytes, rx_packets, tx_bytes, tx_packets;
	bool eth1;
	unsigned long long psi_some_us, psi_full_us;
	unsigned long long majflt, pgpgin_kib, in_segs, out_segs, retrans;
};

static void write_moment(const struct moment *m)
{
	put("proc/stat", "cpu  %llu 0 %llu %llu %llu 0 0 0 0 0\ncpu0 %llu 0 %llu %llu %llu 0 0 0 0 0\n"
			 "cpu1 %llu 0 %llu %llu %llu 0 0 0 0 0\nintr 0\n",
	    m->user, m->sys, m->idle, m->iowait, m->user / 2, m->sys / 2, m->idle / 2, m->iowait / 2, m->user - m->user / 2,
	    m->sys - m->sys / 2, m->idle - m->idle / 2, m->iowait - m->iowait / 2);
	char vda[256] = "", sdb[256] = "";
	if (m->vda)
		snprintf(vda, sizeof vda, " 253 0 vda %llu 0 %llu %llu %llu 0 %llu %llu 0 %llu %llu 0 0 0 0 %llu 5\n"
				      " 253 1 vda1 %llu 0 %llu %llu 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
			 m->vda_reads, m->vda_sectors, m->vda_read_ms, m->vda_writes, m->vda_wsectors, m->vda_write_ms,
			 m->vda_io_ms, m->vda_weighted_ms, m->vda_flushes, m->vda_reads, m->vda_sectors, m->vda_read_ms);
	if (m->sdb)
		snprintf(sdb, sizeof sdb, "   8 16 sdb %llu 0 %llu 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n", m->sdb_reads,
			 m->sdb_sectors);
	put("proc/diskstats", "%s%s", vda, sdb);
	put("proc/net/dev",
	    "Inter-|   Receive                                                |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	    "  eth0: %llu %llu 0 0 0 0 0 0 %llu %llu 0 0 0 0 0 0\n%s",
	    m->rx_bytes, m->rx_packets, m->tx_bytes, m->tx_packets,
	    m->eth1 ? "  eth1: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n" : "");
	put("proc/net/snmp",
	    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs "
	    "OutSegs RetransSegs InErrs OutRsts InCsumErrors\nTcp: 1 200 120000 -1 10 5 0 0 1 %llu %llu %llu 0 0 0\n",
	    m->in_segs, m->out_segs, m->retrans);
	put("proc/pressure/io", "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n",
	    m->psi_some_us, m->psi_full_us);
	put("proc/meminfo", "MemTotal:       1000000 kB\nMemFree:         200000 kB\nMemAvailable:    600000 kB\n"
			    "Cached:          300000 kB\nDirty:              100 kB\nWriteback:            0 kB\n"
			    "Shmem:             5000 kB\nSwapTotal:         1000 kB\nSwapFree:           400 kB\n");
	put("proc/vmstat", "pgpgin %llu\npgpgout 0\npswpin 0\npgmajfault %llu\n", m->pgpgin_kib, m->majflt);
	put("proc/sys/fs/dentry-state", "4242 100 45 0 0 0\n");
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

static const struct fs_nodestat_disk *disk(const struct fs_nodestat *s, const char *name)
{
	for (int i = 0; i < s->ndisks; i++)
		if (!strcmp(s->disks[i].device, name))
			return &s->disks[i];
	return NULL;
}

static const struct fs_nodestat_iface *iface(const struct fs_nodestat *s, const char *name)
{
	for (int i = 0; i < s->nifaces; i++)
		if (!strcmp(s->ifaces[i].name, name))
			return &s->ifaces[i];
	return NULL;
}

static void check_sources(const struct fs_nodestat *s)
{
	CHECK_INT(s->nsources, 5);
	for (int i = 0; i < s->nsources; i++) {
		CHECK(s->sources[i].up);
		CHECK(strstr("cpu psi mem disk net", s->sources[i].name) != NULL);
	}
}

static void test_sources(void)
{
	struct moment m = {.user = 1000, .sys = 500, .idle = 8000, .iowait = 100, .vda = true, .vda_reads = 100,
			   .vda_sectors = 8000, .vda_read_ms = 50, .vda_writes = 10, .vda_wsectors = 800, .vda_write_ms = 20,
			   .vda_io_ms = 1000, .vda_weighted_ms = 2000, .vda_flushes = 3, .rx_bytes = 1000, .rx_packets = 10,
			   .tx_bytes = 2000, .tx_packets = 20, .psi_some_us = 5000000, .psi_full_us = 1000000, .majflt = 50,
			   .pgpgin_kib = 400, .in_segs = 1000, .out_segs = 900, .retrans = 3};
	write_moment(&m);
	char err[256];
	struct fs_nodesample *ns = fs_nodesample_open(err, sizeof err);
	CHECK(ns != NULL);
	if (!ns)
		return;
	const struct fs_nodestat *s = fs_nodesample_take(ns, 0);
	CHECK_INT(s->samples, 1);
	check_sources(s);
	CHECK_INT(s->ndisks, 0); /* a baseline: no interval yet */
	CHECK_INT(s->nifaces, 0);

	/* known increases; the interval is whatever it is (about 1 s: mem and
	 * tcp write a row a second) */
	m.user += 60, m.sys += 20, m.idle += 110, m.iowait += 10;
	m.vda_reads += 1234, m.vda_sectors += 98765, m.vda_read_ms += 4321, m.vda_writes += 7, m.vda_wsectors += 56;
	m.vda_write_ms += 9, m.vda_io_ms += 300, m.vda_weighted_ms += 700, m.vda_flushes += 2;
	m.rx_bytes += 123456789, m.rx_packets += 4321, m.tx_bytes += 987, m.tx_packets += 6;
	m.psi_some_us += 250000, m.psi_full_us += 100001;
	m.majflt += 17, m.pgpgin_kib += 100, m.in_segs += 11, m.out_segs += 12, m.retrans += 1;
	m.sdb = true, m.sdb_reads = 5, m.sdb_sectors = 40, m.eth1 = true; /* new: baselines only */
	sleep_s(1.05);
	write_moment(&m);
	s = fs_nodesample_take(ns, 1.05);
	CHECK_INT(s->samples, 2);
	const struct fs_nodestat_disk *d = disk(s, "vda");
	CHECK(d != NULL);
	CHECK(disk(s, "vda1") == NULL); /* a partition: never */
	CHECK(disk(s, "sdb") == NULL);  /* first seen: its baseline */
	if (d) {
		CHECK(d->reads == 1234);
		CHECK(d->read_bytes == 98765.0 * 512);
		CHECK(d->read_ms == 4321);
		CHECK(d->writes == 7);
		CHECK(d->write_bytes == 56.0 * 512);
		CHECK(d->write_ms == 9);
		CHECK(d->io_ms == 300);
		CHECK(d->weighted_ms == 700);
		CHECK(d->flushes == 2);
		CHECK(d->discard_bytes == 0);
	}
	const struct fs_nodestat_iface *f = iface(s, "eth0");
	CHECK(f != NULL);
	CHECK(iface(s, "eth1") == NULL);
	if (f) {
		CHECK(f->rx_bytes == 123456789);
		CHECK(f->rx_packets == 4321);
		CHECK(f->tx_bytes == 987);
		CHECK(f->tx_packets == 6);
		CHECK(f->rx_errs == 0);
		CHECK(f->speed_bytes_per_s == 125e6);
	}
	CHECK_INT(s->npsi, 1);
	CHECK_STR(s->psi[0].resource, "io");
	CHECK(s->psi[0].some_us == 250000);
	CHECK(s->psi[0].full_us == 100001);
	CHECK(s->majflt == 17);
	CHECK(s->pgpgin_bytes == 102400);
	CHECK(s->have_tcp && s->tcp_in_segs == 11 && s->tcp_out_segs == 12 && s->tcp_retrans_segs == 1);
	CHECK(s->mem[FS_NODE_MEM_TOTAL] == 1000000.0 * 1024);
	CHECK(s->mem[FS_NODE_MEM_AVAILABLE] == 600000.0 * 1024);
	CHECK(s->mem[FS_NODE_MEM_SWAP_USED] == 600.0 * 1024);
	CHECK(s->mem[FS_NODE_MEM_DENTRIES] == 4242);
	CHECK_INT(s->ncpu, 2);
	CHECK_NEAR(s->cpu_ratio[FS_NODE_USER], 60.0 / 200, 1e-12);
	CHECK_NEAR(s->cpu_ratio[FS_NODE_IDLE], 110.0 / 200, 1e-12);
	double sum = 0, cpu_s = 0;
	for (int k = 0; k < FS_NODE__MODES; k++)
		sum += s->cpu_ratio[k], cpu_s += s->cpu_s[k];
	CHECK_NEAR(sum, 1, 1e-12);
	/* the shares add up to 1: cpu_s is 2 CPUs x the interval, whatever it
	 * was (at least the 1.05 s slept); the disk's utilization is its 300 ms
	 * over that interval (each source reads its own clock: within 1 ms) */
	double dt = cpu_s / 2;
	CHECK(dt >= 1.05);
	if (d)
		CHECK_NEAR(d->util_ratio, 0.3 / dt, 1e-3);
	CHECK_INT(s->ncores, 2);
	CHECK_NEAR(s->core_busy[0], 40.0 / 100, 1e-12);

	/* vda and eth1 are gone, sdb moves: vda dropped, sdb's own increase */
	m.vda = false, m.sdb_reads += 3, m.sdb_sectors += 24, m.eth1 = false, m.rx_bytes += 1;
	sleep_s(0.2);
	write_moment(&m);
	s = fs_nodesample_take(ns, 1.25);
	CHECK(disk(s, "vda") == NULL);
	d = disk(s, "sdb");
	CHECK(d != NULL && d->reads == 3 && d->read_bytes == 24.0 * 512);
	CHECK(iface(s, "eth1") == NULL);
	f = iface(s, "eth0");
	CHECK(f != NULL && f->rx_bytes == 123456790);
	/* vda comes back: a baseline, then from 0 */
	m.vda = true;
	sleep_s(0.2);
	write_moment(&m);
	s = fs_nodesample_take(ns, 1.45);
	CHECK(disk(s, "vda") == NULL);
	m.vda_reads += 2;
	sleep_s(0.2);
	write_moment(&m);
	s = fs_nodesample_take(ns, 1.65);
	d = disk(s, "vda");
	CHECK(d != NULL && d->reads == 2);
	CHECK_INT(s->samples, 5);
	fs_nodesample_close(ns);
}

/* Rows folded by hand: no interval, no addition; meta. */
static void test_fold(void)
{
	static struct fs_nodestat s;
	fs_nodestat_init(&s);
	struct fs_row r;
	fs_row_init(&r, FS_T_DISK, 1);
	fs_row_text(&r, FS_DISK_device, "nvme0n1");
	fs_row_real(&r, FS_DISK_read_bytes_per_s, 1e6);
	fs_row_real(&r, FS_DISK_discard_bytes_per_s, NAN); /* not counted by this kernel */
	fs_nodestat_row(&s, &r); /* no dt_s: nothing added, but it is there */
	fs_nodestat_end(&s);
	CHECK_INT(s.ndisks, 1);
	CHECK(s.disks[0].read_bytes == 0);
	CHECK(isnan(s.disks[0].discard_bytes));
	fs_row_real(&r, FS_DISK_dt_s, 0.5);
	fs_nodestat_row(&s, &r);
	fs_nodestat_end(&s);
	CHECK(s.disks[0].read_bytes == 500000);
	CHECK(isnan(s.disks[0].discard_bytes));
	CHECK(isnan(s.majflt)); /* no mem row yet: unknown, not 0 */
	fs_nodestat_meta(&s, "source.psi", "unavailable: no pressure stall information");
	fs_nodestat_meta(&s, "source.gpu", "disabled");
	fs_nodestat_meta(&s, "disk.sector_bytes", "512");
	CHECK_INT(s.nsources, 1);
	CHECK_STR(s.sources[0].name, "psi");
	CHECK(!s.sources[0].up);
	CHECK_INT(s.samples, 2);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/test_nodestat.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	dirs();
	char p[512];
	setenv("FEEDSCOPE_PROC_ROOT", strcat(strcpy(p, root), "/proc"), 1);
	setenv("FEEDSCOPE_SYS_ROOT", strcat(strcpy(p, root), "/sys"), 1);
	setenv("FEEDSCOPE_SHM_PATH", strcat(strcpy(p, root), "/shm"), 1);
	test_fold();
	test_sources();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return check_exit("test_nodestat");
}
