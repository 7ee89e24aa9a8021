/* probe - the raw ceilings of the storage under a directory (bench/probe/probe.h,
 * docs/probe.md): options, the text table or the JSON document, and the
 * record in the probes database. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/probe/probe.h"
#include "bench/host/usage.h"
#include "cmd/cmd.h"
#include "render/fio_json.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/log.h"
#include "util/parse.h"

static const char usage_text[] =
	"usage: feedscope probe --dir DIR [OPTIONS]\n"
	"\n"
	"Measure the raw ceilings of the storage under DIR: sequential read (1 MiB,\n"
	"O_DIRECT, io_uring QD16), 4 KiB random read IOPS at QD1 and QD32, metadata\n"
	"ops/s, fsync latency. DIR must be empty (or a feedscope dataset); the probe\n"
	"works in a directory of its own inside it and removes it. The result is kept\n"
	"per device for `feedscope report` (docs/probe.md).\n"
	"\n"
	"      --dir DIR       the directory to measure (must exist)\n"
	"      --size SIZE     the test file (default 1 GiB, less when space is short;\n"
	"                      at least 16 MiB; K, M, G, T are powers of 1024)\n"
	"      --runtime S     seconds per timed test (default 3)\n"
	"      --only LIST     tests to run, comma-separated: seq,qd1,qd32,meta,fsync\n"
	"                      (default all five), and randread (4 KiB random reads at --qd)\n"
	"      --meta-files N  files of the metadata test (default 2000)\n"
	"      --engine E      the read tests' engine: io_uring (default), psync, mmap\n"
	"      --buffered      read through the page cache (no O_DIRECT; the file is read\n"
	"                      once first, so reads are page cache hits)\n"
	"      --qd N          queue depth of the randread test (default 1)\n"
	"      --json          one JSON document on stdout\n"
	"      --output-format F  text (default), json (as --json), or fio: fio's own\n"
	"                      JSON shape (fio --output-format=json), a job per read test\n"
	"      --no-save       do not record the result in the probes database\n"
	"                      (only a full probe is recorded: all five tests, the\n"
	"                      default engine, no --buffered)\n"
	"  -h, --help          this help\n"
	"\n"
	"The probes database: $FEEDSCOPE_PROBE_DB, else /var/lib/feedscope/probes.db\n"
	"(root) or ~/.local/state/feedscope/probes.db.\n";

enum { O_DIR = 256, O_SIZE, O_RUNTIME, O_ONLY, O_FILES, O_ENGINE, O_BUFFERED, O_QD, O_JSON, O_NOSAVE, O_FORMAT };

static const struct option long_opts[] = {
	{"dir", required_argument, NULL, O_DIR},        {"size", required_argument, NULL, O_SIZE},
	{"runtime", required_argument, NULL, O_RUNTIME}, {"only", required_argument, NULL, O_ONLY},
	{"meta-files", required_argument, NULL, O_FILES}, {"engine", required_argument, NULL, O_ENGINE},
	{"buffered", no_argument, NULL, O_BUFFERED},     {"qd", required_argument, NULL, O_QD},
	{"json", no_argument, NULL, O_JSON},             {"no-save", no_argument, NULL, O_NOSAVE},
	{"output-format", required_argument, NULL, O_FORMAT},
	{"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0},
};

static const struct {
	const char *name;
	unsigned bit;
} test_names[] = {
	{"seq", FS_PROBE_SEQ},   {"qd1", FS_PROBE_QD1},     {"qd32", FS_PROBE_QD32},
	{"meta", FS_PROBE_META}, {"fsync", FS_PROBE_FSYNC}, {"randread", FS_PROBE_RANDREAD},
};
#define NTESTS 6

/* "seq,qd32" -> bits; false on an unknown or empty name. */
static bool parse_only(const char *s, unsigned *bits, char *bad, size_t badcap)
{
	*bits = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", s);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = 0;
		while (i < NTESTS && strcmp(test_names[i].name, t))
			i++;
		if (i == NTESTS) {
			snprintf(bad, badcap, "%s", t);
			return false;
		}
		*bits |= test_names[i].bit;
	}
	snprintf(bad, badcap, "%s", s);
	return *bits != 0;
}

/* "16M", "1GiB", "1073741824" -> bytes (K, M, G, T: powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	double v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return false;
	static const char units[] = "KMGT";
	const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
	if (*end && !u)
		return false;
	if (u) {
		v *= pow(1024, (double)(u - units + 1));
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "ib"))
			end += strlen(end);
	}
	if (*end || v >= 18e18)
		return false;
	*out = (uint64_t)v;
	return true;
}

static void json_lat(struct fs_json *j, const char *key, const struct fs_probe_lat *l)
{
	fs_json_object(j, key);
	fs_json_number(j, "p50", l->p50_us);
	fs_json_number(j, "p90", l->p90_us);
	fs_json_number(j, "p99", l->p99_us);
	fs_json_number(j, "p99.9", l->p999_us);
	fs_json_number(j, "max", l->max_us);
	fs_json_int(j, "count", (long long)l->count);
	fs_json_end(j);
}

static void json_reads(struct fs_json *j, const char *key, const char *fig, double v, int block, unsigned qd,
		       const struct fs_probe_lat *l)
{
	fs_json_object(j, key);
	fs_json_number(j, fig, v);
	fs_json_int(j, "block_bytes", block);
	fs_json_int(j, "qd", qd);
	json_lat(j, "lat_us", l);
	fs_json_end(j);
}

static void render_json(const struct fs_probe_result *r, const char *saved)
{
	struct fs_json j;
	fs_json_init(&j, stdout);
	fs_json_object(&j, NULL);
	fs_json_string(&j, "feedscope_version", FS_VERSION);
	fs_json_int(&j, "time_unix", (long long)r->time_unix);
	fs_json_string(&j, "dir", r->dir);
	fs_json_string(&j, "device", r->device[0] ? r->device : NULL);
	fs_json_string(&j, "majmin", r->majmin);
	fs_json_string(&j, "fs_type", r->fs_type);
	fs_json_array(&j, "tests");
	for (int i = 0; i < NTESTS; i++)
		if (r->tests & test_names[i].bit)
			fs_json_string(&j, NULL, test_names[i].name);
	fs_json_end(&j);
	fs_json_int(&j, "file_bytes", (long long)r->file_bytes);
	fs_json_number(&j, "runtime_s", r->runtime_s);
	if (r->tests & (FS_PROBE_SEQ | FS_PROBE_QD1 | FS_PROBE_QD32 | FS_PROBE_RANDREAD)) {
		fs_json_bool(&j, "direct", r->direct);
		fs_json_string(&j, "engine", r->engine);
		fs_json_number(&j, "prep_write_bytes_per_s", r->prep_write_bytes_per_s);
	}
	if (r->tests & FS_PROBE_SEQ)
		json_reads(&j, "seq_read", "bytes_per_s", r->seq_read_bytes_per_s, 1 << 20, 16, &r->seq_lat);
	if (r->tests & FS_PROBE_QD1)
		json_reads(&j, "randread_qd1", "iops", r->randread_iops_qd1, 4096, 1, &r->qd1_lat);
	if (r->tests & FS_PROBE_QD32)
		json_reads(&j, "randread_qd32", "iops", r->randread_iops_qd32, 4096, 32, &r->qd32_lat);
	if (r->tests & FS_PROBE_RANDREAD)
		json_reads(&j, "randread", "iops", r->randread_iops, 4096, r->randread_qd, &r->randread_lat);
	if (r->tests & FS_PROBE_META) {
		fs_json_object(&j, "meta");
		fs_json_number(&j, "ops_per_s", r->meta_ops_per_s);
		fs_json_int(&j, "files", r->meta_files);
		fs_json_number(&j, "create_per_s", r->create_per_s);
		fs_json_number(&j, "stat_per_s", r->stat_per_s);
		fs_json_number(&j, "open_per_s", r->open_per_s);
		fs_json_number(&j, "close_per_s", r->close_per_s);
		fs_json_number(&j, "unlink_per_s", r->unlink_per_s);
		json_lat(&j, "lat_us", &r->meta_lat);
		fs_json_end(&j);
	}
	if (r->tests & FS_PROBE_FSYNC) {
		fs_json_object(&j, "fsync");
		fs_json_number(&j, "p50_ms", r->fsync_p50_ms);
		fs_json_number(&j, "p99_ms", r->fsync_p99_ms);
		fs_json_number(&j, "per_s", r->fsync_per_s);
		json_lat(&j, "lat_us", &r->fsync_lat);
		fs_json_end(&j);
	}
	fs_json_string(&j, "saved_to", saved);
	fs_json_end(&j);
	fputc('\n', stdout);
}

/* The probe in fio's shape: a job per read test that ran (fio's names:
 * rw, bs, iodepth, ioengine, direct in "job options"), and "prep_write",
 * the test file's writing; CPU and disk_util over the whole probe. The
 * metadata and fsync tests have no fio counterpart: --json has them. */
static void render_fio(const struct fs_probe_result *r, const struct fs_probe_kept *k, const struct fs_usage *u)
{
	static const char *const names[FS_PROBE_KEPT_N] = {"seq_read", "randread_qd1", "randread_qd32", "randread"};
	struct fs_fio_job jobs[FS_PROBE_KEPT_N + 1];
	struct fs_fio_opt opts[FS_PROBE_KEPT_N + 1][7];
	char bs[FS_PROBE_KEPT_N + 1][24], qd[FS_PROBE_KEPT_N + 1][16];
	memset(jobs, 0, sizeof jobs);
	double usr, sys;
	fs_usage_cpu_pct(u, &usr, &sys);
	int n = 0;
	for (int i = -1; i < FS_PROBE_KEPT_N; i++) {
		bool prep = i < 0;
		if (prep ? !(r->tests & FS_PROBE_READS) || !(r->prep_write_bytes_per_s > 0) : !k->ran[i])
			continue;
		struct fs_fio_job *j = &jobs[n];
		snprintf(bs[n], sizeof bs[n], "%u", prep ? 1u << 20 : k->block_bytes[i]);
		snprintf(qd[n], sizeof qd[n], "%u", prep ? 1 : k->qd[i]);
		int m = 0;
		opts[n][m++] = (struct fs_fio_opt){"name", prep ? "prep_write" : names[i]};
		opts[n][m++] = (struct fs_fio_opt){"directory", r->dir};
		opts[n][m++] = (struct fs_fio_opt){"rw", prep ? "write" : i == FS_PROBE_KEPT_SEQ ? "read" : "randread"};
		opts[n][m++] = (struct fs_fio_opt){"bs", bs[n]};
		opts[n][m++] = (struct fs_fio_opt){"iodepth", qd[n]};
		opts[n][m++] = (struct fs_fio_opt){"ioengine", prep ? "psync" : r->engine};
		opts[n][m++] = (struct fs_fio_opt){"direct", !prep && r->direct ? "1" : "0"};
		j->name = opts[n][0].value;
		j->opts = opts[n];
		j->nopts = m;
		if (prep) {
			double s = (double)r->file_bytes / r->prep_write_bytes_per_s;
			j->write = (struct fs_fio_dir){.io_bytes = r->file_bytes, .total_ios = (r->file_bytes + (1u << 20) - 1) >> 20,
						       .runtime_s = s};
			j->job_runtime_s = s;
		} else {
			j->read = (struct fs_fio_dir){.io_bytes = k->bytes[i], .total_ios = k->ops[i],
						      .runtime_s = k->elapsed_s[i], .lat = &k->lat[i]};
			j->job_runtime_s = k->elapsed_s[i];
		}
		j->usr_cpu_pct = usr, j->sys_cpu_pct = sys; /* the whole probe's */
		j->ctx = u->ctx, j->majf = u->majf, j->minf = u->minf;
		n++;
	}
	struct fs_fio_disk disks[FS_USAGE_DISKS_MAX];
	struct fs_fio_doc d = {.version = "feedscope-" FS_VERSION, .unix_ns = (uint64_t)time(NULL) * 1000000000ull,
			       .jobs = jobs, .njobs = n, .disks = disks, .ndisks = fs_usage_fio_disks(u, disks)};
	fs_fio_json_write(stdout, &d);
}

/* One row: test, figure, then latency p50 p99 p99.9 max (microseconds in). */
static void row(const char *test, const char *fig, const struct fs_probe_lat *l)
{
	char a[32], b[32], c[32], d[32];
	printf("  %-30s %14s  %9s %9s %9s %9s\n", test, fig, fs_fmt_time(a, sizeof a, l->p50_us / 1e6),
	       fs_fmt_time(b, sizeof b, l->p99_us / 1e6), fs_fmt_time(c, sizeof c, l->p999_us / 1e6),
	       fs_fmt_time(d, sizeof d, l->max_us / 1e6));
}

static char *iops(char *out, size_t cap, double v, const char *unit)
{
	char n[32];
	const char *sp = *unit ? " " : "";
	if (v >= 1e6)
		snprintf(out, cap, "%sM%s%s", fs_fmt_sig3(n, sizeof n, v / 1e6), sp, unit);
	else if (v >= 1e4)
		snprintf(out, cap, "%sk%s%s", fs_fmt_sig3(n, sizeof n, v / 1e3), sp, unit);
	else
		snprintf(out, cap, "%s%s%s", fs_fmt_sig3(n, sizeof n, v), sp, unit);
	return out;
}

static void render_text(const struct fs_probe_result *r, const char *saved, const char *not_saved)
{
	char a[48], b[48], c[48], d[48], e[48];
	printf("feedscope probe of %s\n", r->dir);
	printf("  device %s, file system %s (%s)\n", r->device[0] ? r->device : "(none: not a block device)",
	       r->fs_type[0] ? r->fs_type : "?", r->majmin);
	if (r->tests & (FS_PROBE_SEQ | FS_PROBE_QD1 | FS_PROBE_QD32 | FS_PROBE_RANDREAD))
		printf("  test file %s (written at %s), %s per test, %s, %s\n",
		       fs_fmt_bytes(a, sizeof a, (double)r->file_bytes),
		       fs_fmt_rate(b, sizeof b, r->prep_write_bytes_per_s), fs_fmt_time(c, sizeof c, r->runtime_s),
		       r->engine, r->direct ? "O_DIRECT" : "buffered (page cache)");
	printf("\n  %-30s %14s  %9s %9s %9s %9s\n", "test", "result", "p50", "p99", "p99.9", "max");
	if (r->tests & FS_PROBE_SEQ)
		row("sequential read 1 MiB QD16", fs_fmt_rate(a, sizeof a, r->seq_read_bytes_per_s), &r->seq_lat);
	if (r->tests & FS_PROBE_QD1)
		row("random read 4 KiB QD1", iops(a, sizeof a, r->randread_iops_qd1, "IOPS"), &r->qd1_lat);
	if (r->tests & FS_PROBE_QD32)
		row("random read 4 KiB QD32", iops(a, sizeof a, r->randread_iops_qd32, "IOPS"), &r->qd32_lat);
	if (r->tests & FS_PROBE_RANDREAD) {
		char t[48];
		snprintf(t, sizeof t, "random read 4 KiB QD%u", r->randread_qd);
		row(t, iops(a, sizeof a, r->randread_iops, "IOPS"), &r->randread_lat);
	}
	if (r->tests & FS_PROBE_META) {
		char t[48];
		snprintf(t, sizeof t, "metadata (%u files)", r->meta_files);
		row(t, iops(a, sizeof a, r->meta_ops_per_s, "ops/s"), &r->meta_lat);
		printf("    create %s, stat %s, open %s, close %s, unlink %s (per second)\n",
		       iops(a, sizeof a, r->create_per_s, ""), iops(b, sizeof b, r->stat_per_s, ""),
		       iops(c, sizeof c, r->open_per_s, ""), iops(d, sizeof d, r->close_per_s, ""),
		       iops(e, sizeof e, r->unlink_per_s, ""));
	}
	if (r->tests & FS_PROBE_FSYNC)
		row("fsync after a 4 KiB write", iops(a, sizeof a, r->fsync_per_s, "/s"), &r->fsync_lat);
	if (saved)
		printf("\nsaved in %s (device %s)\n", saved, r->device[0] ? r->device : "none");
	else if (not_saved)
		printf("\nnot saved: %s\n", not_saved);
}

int fs_cmd_probe(int argc, char **argv)
{
	struct fs_probe_opts o = {0};
	bool json = false, fio = false, save = true;
	const char *not_saved = NULL;
	bool qd_given = false;
	int opt, n;
	char bad[256];
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case O_DIR:
			o.dir = optarg;
			break;
		case O_SIZE:
			if (!parse_size(optarg, &o.size_bytes) || o.size_bytes < FS_PROBE_MIN_BYTES)
				return fs_usage_error("probe: bad --size '%s' (a size of at least 16 MiB, e.g. 64M, 1G)",
						      optarg);
			break;
		case O_RUNTIME:
			if (!fs_parse_seconds(optarg, &o.runtime_s) || o.runtime_s > 86400)
				return fs_usage_error("probe: bad --runtime '%s' (seconds, e.g. 3 or 500ms)", optarg);
			break;
		case O_ONLY:
			if (!parse_only(optarg, &o.tests, bad, sizeof bad))
				return fs_usage_error("probe: unknown test '%s' in --only (seq, qd1, qd32, meta, fsync, "
						      "randread)", bad);
			break;
		case O_FILES:
			if (!fs_parse_pos_int(optarg, &n) || n > 10000000)
				return fs_usage_error("probe: bad --meta-files '%s' (1 to 10000000)", optarg);
			o.meta_files = (uint32_t)n;
			break;
		case O_ENGINE:
			if (strcmp(optarg, "psync") && strcmp(optarg, "io_uring") && strcmp(optarg, "mmap"))
				return fs_usage_error("probe: unknown engine '%s' (psync, io_uring or mmap)", optarg);
			o.engine = optarg;
			break;
		case O_BUFFERED:
			o.buffered = true;
			break;
		case O_QD:
			if (!fs_parse_pos_int(optarg, &n) || n > 4096)
				return fs_usage_error("probe: bad --qd '%s' (1 to 4096)", optarg);
			o.qd = (unsigned)n;
			qd_given = true;
			break;
		case O_JSON:
			json = true, fio = false;
			break;
		case O_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "fio"))
				return fs_usage_error("probe: --output-format: '%s' is not text, json or fio", optarg);
			json = !strcmp(optarg, "json");
			fio = !strcmp(optarg, "fio");
			break;
		case O_NOSAVE:
			save = false;
			break;
		case ':': /* a long option's val is not a character: name it as typed */
			return fs_usage_error("probe: option '%s' needs a value", argv[optind - 1]);
		default:
			return fs_bad_option("probe", opt, argv);
		}
	}
	if (optind < argc)
		return fs_usage_error("probe: unexpected argument '%s' (the directory goes after --dir)", argv[optind]);
	if (!o.dir || !*o.dir)
		return fs_usage_error("probe: no directory given (usage: feedscope probe --dir DIR)");
	if (qd_given && !(o.tests & FS_PROBE_RANDREAD))
		return fs_usage_error("probe: --qd sets the randread test's queue depth: add --only randread");
	if (o.engine && !strcmp(o.engine, "mmap") && !o.buffered)
		return fs_usage_error("probe: the mmap engine reads through the page cache: add --buffered");
	if (o.engine || o.buffered)
		not_saved = "--engine and --buffered do not measure the device's ceiling";
	else if (!save)
		not_saved = "--no-save";
	else if (o.tests && o.tests != FS_PROBE_CEILINGS)
		not_saved = "--only: only a probe of all five ceilings is recorded";
	o.progress = isatty(STDERR_FILENO) != 0;

	struct fs_probe_result r;
	char why[1200];
	struct fs_probe_kept *kept = fio ? calloc(1, sizeof *kept) : NULL; /* four histograms: the heap */
	if (fio && !kept) {
		fs_error("probe: out of memory");
		return 1;
	}
	o.keep = kept;
	struct fs_usage usage;
	fs_usage_begin(&usage, o.dir);
	int rc = fs_probe_run(&o, &r, why, sizeof why);
	fs_usage_end(&usage);
	if (rc != FS_PROBE_OK)
		free(kept);
	if (rc == FS_PROBE_REFUSED)
		return fs_usage_error("probe: %s", why);
	if (rc != FS_PROBE_OK) {
		fs_error("probe: %s (everything it wrote was removed)", why);
		return 1;
	}
	int status = 0;
	char dbpath[PATH_MAX];
	const char *saved = NULL;
	if (!not_saved) {
		if (!fs_probe_db_path(dbpath, sizeof dbpath)) {
			fs_error("probe: no probes database (set FEEDSCOPE_PROBE_DB or HOME)");
			status = 1;
		} else if (fs_probe_save(dbpath, &r, why, sizeof why) < 0) {
			fs_error("probe: not saved: %s", why);
			status = 1;
		} else {
			saved = dbpath;
		}
	}
	if (fio)
		render_fio(&r, kept, &usage);
	else if (json)
		render_json(&r, saved);
	else
		render_text(&r, saved, not_saved);
	free(kept);
	return status;
}
