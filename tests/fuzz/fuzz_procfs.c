/* fuzz_procfs - libFuzzer target: every parser of /proc and /sys text
 * (src/source/: disk_parse.c, mountinfo.c, net_parse.c, procstat.c, cpu.c, psi.c, mem.c,
 * nfs.c, cgroup.c) and the compute functions fed by what they parsed.
 *
 * The input's first byte picks the parser (see `parsers` below, modulo
 * their count); the rest is the file's text, copied into a buffer of
 * exactly its length + 1 so that a read past the end is an ASan error.
 * Parsers with a public function are called directly, line by line where
 * they take a line; psi, mem and cpu (whose parsing lives inside the
 * source) run as sources over a private root (FEEDSCOPE_PROC_ROOT-style
 * fs_paths under a temporary directory), as tests/tools/replay.c does, with
 * rows going to the tests' text sink and then to /dev/null.
 * Built and run by `make fuzz` (tests/fuzz/run.sh). */
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "source/cgroup.h"
#include "source/cpu.h"
#include "source/disk.h"
#include "source/mountinfo.h"
#include "source/net_parse.h"
#include "source/nfs.h"
#include "source/procstat.h"
#include "source/source.h"
#include "util/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[200];
static struct fs_paths paths;
static FILE *devnull;
static struct dump_sink sink;

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static void remove_root(void)
{
	if (root[0])
		nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/fuzz_procfs.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		perror("fuzz_procfs: mkdtemp");
		exit(1);
	}
	atexit(remove_root);
	snprintf(paths.proc, sizeof paths.proc, "%s/proc", root);
	snprintf(paths.sys, sizeof paths.sys, "%s/sys", root);
	snprintf(paths.shm, sizeof paths.shm, "%s/shm", root);
	char d[512];
	snprintf(d, sizeof d, "%s/pressure", paths.proc);
	if (mkdir(paths.proc, 0755) < 0 || mkdir(d, 0755) < 0 || mkdir(paths.sys, 0755) < 0) {
		perror("fuzz_procfs: mkdir");
		exit(1);
	}
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		exit(1);
	dump_sink_init(&sink, devnull, root);
	fs_log_set_quiet(true);
	return 0;
}

/* Call fn on each line of text (each starting after a '\n'). */
static void each_line(const char *text, void (*fn)(const char *line, void *arg), void *arg)
{
	for (const char *l = text; l;) {
		fn(l, arg);
		l = strchr(l, '\n');
		if (l)
			l++;
	}
}

/* ---- pure parsers ---- */

struct disk_prev {
	bool have;
	struct fs_disk_counters c;
};

static void disk_line(const char *line, void *arg)
{
	struct disk_prev *p = arg;
	unsigned maj, min;
	char name[FS_DISK_NAME_MAX];
	struct fs_disk_counters c;
	if (!fs_disk_parse_line(line, &maj, &min, name, sizeof name, &c))
		return;
	(void)fs_disk_unused(&c);
	struct fs_disk_rates r;
	if (p->have) {
		fs_disk_compute(&p->c, &c, 1000000000ull, &r);
		fs_disk_compute(&c, &p->c, 1, &r);
	}
	fs_disk_compute(&c, &c, 0, &r);
	p->c = c;
	p->have = true;
}

static void mountinfo_line(const char *line, void *arg)
{
	(void)arg;
	const char *end = strchr(line, '\n');
	size_t len = end ? (size_t)(end - line) : strlen(line);
	char *copy = malloc(len + 1);
	if (!copy)
		return;
	memcpy(copy, line, len);
	copy[len] = '\0';
	char small[8], big[4096];
	(void)fs_mountinfo_unescape(copy, len, small, sizeof small);
	(void)fs_mountinfo_unescape(copy, len, big, sizeof big);
	struct fs_mountinfo_entry e;
	(void)fs_mountinfo_parse_line(copy, &e);
	free(copy);
}

/* The whole-file parser, its lookups, and the line parser on each line. */
static void parse_mountinfo(const char *text)
{
	struct fs_mountinfo mi;
	if (fs_mountinfo_parse(text, &mi) == 0) {
		(void)fs_mountinfo_has_root(&mi);
		for (int i = 0; i < mi.n; i++) {
			const struct fs_mountinfo_entry *e = &mi.v[i];
			char opt[256];
			(void)fs_mountinfo_by_id(&mi, e->parent);
			(void)fs_mountinfo_by_dev(&mi, e->maj, e->min);
			(void)fs_mountinfo_option(e, "upperdir", opt, sizeof opt);
			(void)fs_mountinfo_option(e, "lowerdir", opt, 4);
		}
	}
	fs_mountinfo_free(&mi);
	each_line(text, mountinfo_line, NULL);
}

struct net_prev {
	bool have;
	struct fs_net_counters c;
};

static void net_line(const char *line, void *arg)
{
	struct net_prev *p = arg;
	char name[32];
	struct fs_net_counters c;
	if (!fs_net_parse_dev_line(line, name, sizeof name, &c))
		return;
	struct fs_net_rates r;
	if (p->have)
		fs_net_compute(&p->c, &c, 0.1, &r);
	fs_net_compute(&c, &c, 0, &r);
	p->c = c;
	p->have = true;
}

static void parse_net(const char *text)
{
	struct net_prev p = {0};
	each_line(text, net_line, &p);
	struct fs_tcp_counters a = {0}, b;
	struct fs_tcp_rates r;
	if (fs_tcp_parse_snmp(text, &b)) {
		fs_tcp_compute(&a, &b, 1.0, &r);
		fs_tcp_compute(&b, &a, 1e-9, &r);
	}
}

static void parse_procstat(const char *text)
{
	struct fs_pstat st;
	struct fs_pio io = {0};
	struct fs_schedstat ss;
	struct fs_pcounters a = {0}, b = {0};
	if (fs_pstat_parse(text, &st)) {
		b.cpu_ticks = st.utime + st.stime;
		b.majflt = st.majflt;
	}
	b.have_io = fs_pio_parse(text, &io);
	b.io = io;
	if (fs_schedstat_parse(text, &ss))
		(void)fs_thread_pct((double)ss.run_ns, 1e9, 0.1);
	struct fs_prates r;
	fs_prates_compute(&a, &b, 0.1, 100, &r);
	fs_prates_compute(&b, &a, 0.1, 0, &r);
}

static void nfs_op_line(const char *line, void *arg)
{
	(void)arg;
	const char *colon = strchr(line, ':');
	const char *nl = strchr(line, '\n');
	struct fs_nfs_op op;
	if (colon && (!nl || colon < nl))
		(void)fs_nfs_parse_op(colon + 1, &op);
}

static void parse_nfs(const char *text)
{
	const char *pos = text;
	struct fs_nfs_entry e, prev = {0};
	struct fs_nfs_rates r;
	for (int n = 0; n < 1000 && fs_nfs_next_mount(&pos, &e); n++) {
		char *buf = malloc(e.dev_len + e.mnt_len + 2);
		if (!buf)
			return;
		(void)fs_nfs_unescape(e.dev, e.dev_len, buf);
		(void)fs_nfs_unescape(e.mnt, e.mnt_len, buf);
		free(buf);
		fs_nfs_compute(&prev.c, &e.c, 1.0, &r);
		prev = e;
	}
	each_line(text, nfs_op_line, NULL);
	struct fs_nfs_tracker tr = {0};
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &sink.sink, .now_ns = 1000000000ull};
	(void)fs_nfs_tracker_update(&tr, text, &ctx);
	ctx.t = 1, ctx.now_ns *= 2;
	(void)fs_nfs_tracker_update(&tr, text, &ctx);
	fs_nfs_tracker_clear(&tr);
	(void)fs_nfs_tracker_update(&tr, text, &ctx);
	fs_nfs_tracker_free(&tr);
}

static void parse_cgroup(const char *text)
{
	struct fs_cg_mounts m;
	fs_cg_parse_mountinfo(text, &m);
	struct fs_cg_member mb;
	(void)fs_cg_parse_member(text, &mb);
	struct fs_cg_cpu a = {0}, b;
	struct fs_cg_rates r;
	for (int v = 1; v <= 2; v++) {
		fs_cg_parse_cpu_stat(text, v, &b);
		fs_cg_rates_compute(&a, &b, 0.1, &r);
		fs_cg_rates_compute(&b, &b, 0, &r);
		a = b;
	}
	const char *nl = strchr(text, '\n');
	(void)fs_cg_quota_v1(text, nl ? nl + 1 : NULL);
	(void)fs_cg_quota_v2(text);
	(void)fs_cg_mem_limit(text);
}

/* ---- sources whose parsing is internal: run them over a private root ---- */

static void put(const char *rel, const char *text, size_t len)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", paths.proc, rel);
	FILE *f = fopen(p, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(p);
		exit(1);
	}
}

static void run_source(const char *name)
{
	const struct fs_source_ops *ops = fs_source_find(name);
	if (!ops)
		abort();
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &sink.sink, .now_ns = 1000000000ull};
	void *state = NULL;
	char why[512];
	if (ops->open(&state, &ctx, why, sizeof why) != FS_SOURCE_OK)
		return;
	for (int i = 1; i <= 2; i++) {
		ctx.t = i * 0.1;
		ctx.now_ns += 100000000ull;
		(void)ops->sample(state, &ctx, why, sizeof why);
	}
	if (ops->finish)
		ops->finish(state, &ctx);
	ops->close(state);
}

/* text[len]; the part after the first form feed, if any, is the second file */
static void run_files(const char *name, const char *first, const char *second, const char *text,
		      size_t len)
{
	const char *ff = memchr(text, '\f', len);
	size_t n1 = ff ? (size_t)(ff - text) : len;
	put(first, text, n1);
	if (second)
		put(second, ff ? ff + 1 : "", ff ? len - n1 - 1 : 0);
	run_source(name);
}

static void src_cpu(const char *t, size_t n) { run_files("cpu", "stat", NULL, t, n); }
static void src_mem(const char *t, size_t n) { run_files("mem", "meminfo", "vmstat", t, n); }

static void src_psi(const char *t, size_t n)
{
	put("pressure/cpu", t, n);
	put("pressure/memory", t, n);
	run_files("psi", "pressure/io", NULL, t, n);
}

static void p_disk(const char *t, size_t n) { (void)n; struct disk_prev p = {0}; each_line(t, disk_line, &p); }
static void p_mountinfo(const char *t, size_t n) { (void)n; parse_mountinfo(t); }
static void p_net(const char *t, size_t n) { (void)n; parse_net(t); }
static void p_procstat(const char *t, size_t n) { (void)n; parse_procstat(t); }
static void p_nfs(const char *t, size_t n) { (void)n; parse_nfs(t); }
static void p_cgroup(const char *t, size_t n) { (void)n; parse_cgroup(t); }

static void (*const parsers[])(const char *text, size_t len) = {
	p_disk,     /* 0: /proc/diskstats */
	p_mountinfo, /* 1: /proc/PID/mountinfo */
	p_net,      /* 2: /proc/net/dev and /proc/net/snmp */
	p_procstat, /* 3: /proc/PID/stat, io, schedstat */
	src_cpu,    /* 4: /proc/stat, through the cpu source */
	src_psi,    /* 5: /proc/pressure/{cpu,memory,io}, through the psi source */
	src_mem,    /* 6: /proc/meminfo \f /proc/vmstat, through the mem source */
	p_nfs,      /* 7: /proc/self/mountstats */
	p_cgroup,   /* 8: mountinfo, /proc/PID/cgroup, cpu.stat, cpu.max, memory.max */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t which = data[0] % (sizeof parsers / sizeof parsers[0]);
	size_t len = size - 1;
	char *text = malloc(len + 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, len);
	text[len] = '\0';
	parsers[which](text, len);
	free(text);
	return 0;
}
