/* bench - `feedscope bench [run]`: emulate a training job's reads (and
 * checkpoint) on a generated dataset and say whether the storage keeps the
 * emulated accelerators busy; `bench generate` and `bench clean` are
 * dispatched to src/bench/format/gen.c. Exit status: 0 when the run completed
 * (whether the AU passed or not: see "passed" in the output), 1 when it
 * failed (a read error), 2 on bad usage (nothing read or written). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/emu/checkpoint.h"
#include "bench/format/dataset.h"
#include "bench/io/engine.h"
#include "bench/format/gen.h"
#include "bench/emu/mpi.h"
#include "bench/emu/run.h"
#include "bench/emu/run_report.h"
#include "bench/host/safety.h"
#include "bench/host/usage.h"
#include "bench/workload/workload.h"
#include "cmd/bench_outputs.h"
#include "cmd/cmd.h"
#include "store/bench_db.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

#define MAX_ACCEL 4096
#define MAX_THREADS 16384

static const char usage_text[] =
	"usage: feedscope bench [run] (--workload NAME | --config FILE.yaml) --dir D [OPTIONS] [OVERRIDE...]\n"
	"       feedscope bench generate (--workload NAME | --config FILE.yaml) --dir D [--scale S] ...\n"
	"       feedscope bench clean --dir D\n"
	"\n"
	"Emulate a training job's I/O (MLPerf Storage / DLIO workloads) on a dataset made by\n"
	"`feedscope bench generate`, and say whether the storage keeps the accelerators busy.\n"
	"\n"
	"      --workload NAME        unet3d, resnet50, cosmoflow, bert, llama3-8b-checkpoint\n"
	"      --config FILE.yaml     a DLIO workload file instead\n"
	"      --dir D                the dataset's directory\n"
	"      --scale S              scale the workload's file count (as for generate; default 1)\n"
	"      --accelerators N       emulated accelerators (per MPI rank; default 1)\n"
	"      --accelerator-type T   whose computation_time (h100, a100, ...; default the first)\n"
	"      --engine E             psync (default), io_uring or mmap\n"
	"      --direct               O_DIRECT reads (psync, io_uring)\n"
	"      --qd N                 io_uring requests in flight per reader thread (default 8)\n"
	"      --read-threads N       reader threads per accelerator (default: the workload's)\n"
	"      --prefetch N           batches ready ahead per reader thread (default: the workload's)\n"
	"      --epochs N             epochs (default: the workload's)\n"
	"      --steps N              steps per accelerator per epoch (default: the whole dataset)\n"
	"      --seed N               shuffle and compute-time seed (default: the workload's)\n"
	"      --find-max-accelerators  search the largest N that keeps AU >= the threshold\n"
	"      --checkpoint, --no-checkpoint  one checkpoint after training (or none), whatever the\n"
	"                             workload's schedule\n"
	"      --json                 one JSON document (feedscope's, fio-like) on stdout\n"
	"      --output-format F      text (default), json (as --json), or fio: fio's own JSON\n"
	"                             shape (fio --output-format=json), read by tools that read fio\n"
	"      --summary FILE         also write DLIO's summary.json (its keys and units) to FILE\n"
	"      --allow-cache          claim a PASS even when the dataset is less than 5x the\n"
	"                             client's memory (the page-cache guard; docs/bench.md)\n"
	"      --output RUN.db        also write a run file (`feedscope report RUN.db`)\n"
	"      --quiet                no progress, no warnings\n"
	"  -h, --help                 this help\n"
	"  OVERRIDE                   a DLIO (Hydra) override: ++workload.dataset.num_files_train=64\n"
	"\n"
	"Exit status: 0 when the run completed (\"passed\" in the output says whether the AU held),\n"
	"1 when it failed, 2 on bad usage, 128+N when signal N (Ctrl-C) stopped it: the figures of\n"
	"what ran are printed first (a second Ctrl-C kills at once).\n";

enum {
	OPT_WORKLOAD = 256, OPT_CONFIG, OPT_DIR, OPT_SCALE, OPT_ACCEL, OPT_ATYPE, OPT_ENGINE, OPT_DIRECT, OPT_QD, OPT_RT, OPT_PREFETCH,
	OPT_EPOCHS, OPT_STEPS, OPT_SEED, OPT_FINDMAX, OPT_CKPT, OPT_NOCKPT, OPT_JSON, OPT_OUTPUT, OPT_QUIET,
	OPT_FORMAT, OPT_SUMMARY, OPT_ALLOW_CACHE,
};

static const struct option long_opts[] = {
	{"workload", required_argument, NULL, OPT_WORKLOAD}, {"config", required_argument, NULL, OPT_CONFIG},
	{"dir", required_argument, NULL, OPT_DIR}, {"scale", required_argument, NULL, OPT_SCALE},
	{"accelerators", required_argument, NULL, OPT_ACCEL}, {"accelerator-type", required_argument, NULL, OPT_ATYPE},
	{"engine", required_argument, NULL, OPT_ENGINE}, {"direct", no_argument, NULL, OPT_DIRECT},
	{"qd", required_argument, NULL, OPT_QD}, {"read-threads", required_argument, NULL, OPT_RT},
	{"prefetch", required_argument, NULL, OPT_PREFETCH}, {"epochs", required_argument, NULL, OPT_EPOCHS},
	{"steps", required_argument, NULL, OPT_STEPS}, {"seed", required_argument, NULL, OPT_SEED},
	{"find-max-accelerators", no_argument, NULL, OPT_FINDMAX}, {"checkpoint", no_argument, NULL, OPT_CKPT},
	{"no-checkpoint", no_argument, NULL, OPT_NOCKPT}, {"json", no_argument, NULL, OPT_JSON},
	{"output", required_argument, NULL, OPT_OUTPUT}, {"quiet", no_argument, NULL, OPT_QUIET},
	{"output-format", required_argument, NULL, OPT_FORMAT}, {"summary", required_argument, NULL, OPT_SUMMARY},
	{"allow-cache", no_argument, NULL, OPT_ALLOW_CACHE},
	{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
};

#define MAX_OVERRIDES 64

struct opts {
	const char *workload, *config, *dir, *atype, *engine, *output, *summary;
	char *ov[MAX_OVERRIDES];      /* Hydra-style overrides, in the order given */
	int nov;
	double scale;
	long accel, qd, rt, prefetch, epochs, steps;
	unsigned long long seed;
	bool seed_set, direct, find_max, json, fio, quiet, allow_cache;
	int ckpt; /* -1 no, 0 the workload's, 1 yes */
};

/* stdout carries one document (--json, --output-format fio): progress and
 * notes go to stderr. */
static bool machine_output(const struct opts *o)
{
	return o->json || o->fio;
}

/* A whole number in [lo, hi]; false on junk. */
static bool whole(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->scale = 1;
	o->accel = o->qd = o->rt = o->prefetch = o->epochs = o->steps = -1;
	int opt;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		const char *name = opt >= OPT_WORKLOAD ? long_opts[opt - OPT_WORKLOAD].name : "";
		char *end;
		switch (opt) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case OPT_WORKLOAD: o->workload = optarg; break;
		case OPT_CONFIG: o->config = optarg; break;
		case OPT_DIR: o->dir = optarg; break;
		case OPT_ATYPE: o->atype = optarg; break;
		case OPT_ENGINE: o->engine = optarg; break;
		case OPT_OUTPUT: o->output = optarg; break;
		case OPT_DIRECT: o->direct = true; break;
		case OPT_FINDMAX: o->find_max = true; break;
		case OPT_JSON: o->json = true, o->fio = false; break;
		case OPT_QUIET: o->quiet = true; break;
		case OPT_SUMMARY: o->summary = optarg; break;
		case OPT_ALLOW_CACHE: o->allow_cache = true; break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "fio"))
				o->fio = true, o->json = false;
			else if (!strcmp(optarg, "json"))
				o->json = true, o->fio = false;
			else if (!strcmp(optarg, "text"))
				o->json = o->fio = false;
			else
				return fs_usage_error("bench: --output-format: '%s' is not text, json or fio", optarg);
			break;
		case OPT_CKPT: o->ckpt = 1; break;
		case OPT_NOCKPT: o->ckpt = -1; break;
		case OPT_SCALE:
			errno = 0;
			o->scale = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->scale > 0) || !isfinite(o->scale))
				return fs_usage_error("bench: --scale: '%s' is not a positive number", optarg);
			break;
		case OPT_SEED:
			errno = 0;
			o->seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-')
				return fs_usage_error("bench: --seed: '%s' is not a whole number >= 0", optarg);
			o->seed_set = true;
			break;
		case OPT_ACCEL: case OPT_QD: case OPT_RT: case OPT_PREFETCH: case OPT_EPOCHS: case OPT_STEPS: {
			long hi = opt == OPT_ACCEL ? MAX_ACCEL : opt == OPT_QD ? 4096 : opt == OPT_STEPS ? 100000000 : 100000;
			long *dst = opt == OPT_ACCEL ? &o->accel : opt == OPT_QD ? &o->qd : opt == OPT_RT ? &o->rt
				  : opt == OPT_PREFETCH ? &o->prefetch : opt == OPT_EPOCHS ? &o->epochs : &o->steps;
			if (!whole(optarg, 1, hi, dst))
				return fs_usage_error("bench: --%s: '%s' is not a whole number from 1 to %ld", name, optarg, hi);
			break;
		}
		default:
			if (opt == ':' && optopt >= OPT_WORKLOAD) /* a long option without its value */
				return fs_usage_error("bench: option '%s' needs a value", argv[optind - 1]);
			return fs_bad_option("bench", opt, argv);
		}
	}
	for (; optind < argc; optind++) {
		if (!fs_workload_is_override(argv[optind]))
			return fs_usage_error("bench: unexpected argument '%s' (an override is "
					      "++workload.SECTION.KEY=VALUE; see feedscope bench --help)", argv[optind]);
		if (o->nov == MAX_OVERRIDES)
			return fs_usage_error("bench: more than %d overrides", MAX_OVERRIDES);
		o->ov[o->nov++] = argv[optind];
	}
	if (!o->workload == !o->config)
		return fs_usage_error("bench: give one of --workload NAME or --config FILE.yaml");
	if (!o->dir || !*o->dir)
		return fs_usage_error("bench: --dir D is required (the dataset's directory)");
	return -1; /* go on */
}

/* Resolve the workload and the overrides; check everything that can be
 * checked without reading. Returns -1 to go on, or an exit status. */
static int resolve(struct opts *o, struct fs_workload *w)
{
	char why[600], cfg[4096];
	const char *arg = o->workload;
	if (o->config) { /* a file, even without '/' or .yaml */
		snprintf(cfg, sizeof cfg, "%s%s", strchr(o->config, '/') ? "" : "./", o->config);
		arg = cfg;
	}
	if (fs_workload_load_ex(arg, o->ov, o->nov, o->scale, w, why, sizeof why) < 0)
		return fs_usage_error("bench: %s", why);
	if (w->train && !strcmp(w->format, "synthetic"))
		return fs_usage_error("bench: %s: dataset.format synthetic: DLIO makes such samples in memory, so there is "
				      "no storage I/O for feedscope bench to measure; give a file format (npz, tfrecord, ...)",
				      w->name);
	if (o->atype && fs_workload_select_accel(w, o->atype, why, sizeof why) < 0)
		return fs_usage_error("bench: %s", why);
	if (!o->engine)
		o->engine = w->engine;
	o->direct = o->direct || w->direct;
	const struct fs_io_engine_ops *eng = fs_io_engine_find(o->engine);
	if (!eng)
		return fs_usage_error("bench: --engine: '%s' is not psync, io_uring or mmap", o->engine);
	if (o->direct && !eng->supports_direct)
		return fs_usage_error("bench: --direct: the %s engine reads through the page cache (use psync or io_uring)",
				      o->engine);
	if (o->qd < 0)
		o->qd = eng->queues ? 8 : 1;
	else if (!eng->queues && o->qd != 1 && !o->quiet)
		fs_warn("bench: --qd %ld has no effect with the %s engine (one request at a time)", o->qd, o->engine);
	if (o->rt > 0)
		w->read_threads = (uint32_t)o->rt;
	if (o->prefetch > 0)
		w->prefetch = (uint32_t)o->prefetch;
	if (o->epochs > 0)
		w->epochs = (uint32_t)o->epochs;
	if (o->seed_set)
		w->seed = o->seed;
	if (o->ckpt == 1)
		w->checkpoint = true;
	else if (o->ckpt == -1)
		w->checkpoint = false;
	if (w->checkpoint && !w->checkpoint_bytes)
		return fs_usage_error("bench: --checkpoint: %s gives no model size to write", w->name);
	if (!w->train && !w->checkpoint && !w->generate_data)
		return fs_usage_error("bench: %s does not train and --no-checkpoint leaves nothing to do", w->name);
	if (!w->train && (o->find_max || o->accel > 0 || o->steps > 0))
		return fs_usage_error("bench: %s only writes a checkpoint (no accelerators to emulate)", w->name);
	if (w->train && w->epochs == 0)
		w->epochs = 1;
	if (o->accel < 0)
		o->accel = 1;
	if ((long)w->read_threads * o->accel > MAX_THREADS)
		return fs_usage_error("bench: %ld accelerators × %u reader threads is more than %d threads", o->accel,
				      w->read_threads, MAX_THREADS);
	return -1;
}

/* What the run will write, checked after the inputs and before the
 * benchmark reads anything: the --output run file is created now (*store;
 * NULL when not asked for), and the checkpoint's directory must take the
 * checkpoint. Collective under MPI (rank 0 creates the run file). Returns
 * -1 to go on, or an exit status (nothing made). */
static int prepare_outputs(const struct opts *o, const struct fs_workload *w, struct fs_store **store)
{
	char why[600] = "";
	*store = NULL;
	double bad = 0;
	if (o->output && fs_mpi_rank() == 0) {
		struct stat st;
		if (lstat(o->output, &st) == 0)
			snprintf(why, sizeof why, "--output %s already exists (remove it or choose another name)", o->output);
		else if (!(*store = fs_store_create(o->output, false, why, sizeof why))) {
			char inner[sizeof why];
			memcpy(inner, why, sizeof inner);
			snprintf(why, sizeof why, "--output: %.580s", inner);
		}
		bad = !*store;
	}
	if (!bad && o->summary && fs_mpi_rank() == 0 && fs_bench_summary_check(o->summary, why, sizeof why) < 0)
		bad = 1;
	if (!bad && w->checkpoint) {
		if (fs_bench_dir_check(o->dir, why, sizeof why) != FS_SAFETY_OK)
			bad = 1;
		else if (access(o->dir, F_OK) == 0 && access(o->dir, W_OK) != 0)
			bad = 1, snprintf(why, sizeof why, "--dir %s: the checkpoint cannot be written there: %s", o->dir,
					  strerror(errno));
		else if (fs_bench_ckpt_space_check(o->dir, w->checkpoint_bytes, 0, o->scale, w->ckpt_keys, why, sizeof why) < 0)
			bad = 1;
	}
	fs_mpi_max_double(&bad, 1);
	if (!bad)
		return -1;
	if (*store)
		fs_store_discard(*store);
	*store = NULL;
	return fs_usage_error("bench: %s", why[0] ? why : "another MPI rank refused the outputs");
}

/* The dataset of a training run; -1 to go on, or an exit status. */
static int load_dataset(const struct opts *o, const struct fs_workload *w, struct fs_dataset *ds)
{
	char why[600];
	struct stat st;
	if (stat(o->dir, &st) < 0)
		return fs_usage_error("bench: --dir %s: %s", o->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fs_usage_error("bench: --dir %s is not a directory", o->dir);
	if (fs_dataset_load(o->dir, ds, why, sizeof why) < 0) {
		if (errno == ENOENT)
			return fs_usage_error("bench: %s holds no dataset: run `feedscope bench generate %s %s --dir %s` first",
					      o->dir, o->config ? "--config" : "--workload", o->config ? o->config : o->workload,
					      o->dir);
		return fs_usage_error("bench: %s: bad dataset manifest: %s", o->dir, why);
	}
	if (ds->total_records == 0)
		return fs_usage_error("bench: the dataset in %s holds no sample", o->dir);
	if (fs_dataset_check_files(o->dir, ds, why, sizeof why) < 0)
		return fs_usage_error("bench: %s", why);
	uint32_t files = 0;
	for (uint32_t i = 0; i < ds->nfiles; i++)
		files += ds->files[i].nrecs > 0;
	if (!o->quiet && (strcmp(ds->format, w->format) || ds->record_length_bytes != w->record_length_bytes ||
			  files != w->num_files_train))
		fs_warn("bench: the dataset in %s is %u %s files of %llu-byte records; %s at --scale %g is %u %s files "
			"of %llu (the dataset is read as it is)", o->dir, files, ds->format,
			(unsigned long long)ds->record_length_bytes, w->name, o->scale, w->num_files_train, w->format,
			(unsigned long long)w->record_length_bytes);
	if (o->direct) { /* O_DIRECT refused by the file system: a usage error, before any read */
		for (uint32_t i = 0; i < ds->nfiles; i++) {
			if (!ds->files[i].nrecs)
				continue;
			int dfd = fs_bench_dir_open(o->dir), fd = -1;
			if (dfd < 0)
				snprintf(why, sizeof why, "%s: %s", o->dir, strerror(errno));
			else
				fd = fs_bench_open_read(dfd, o->dir, ds->files[i].path, true, NULL, why, sizeof why);
			if (dfd >= 0)
				close(dfd);
			if (fd < 0)
				return fs_usage_error("bench: --direct: %s", why);
			close(fd);
			break;
		}
	}
	return -1;
}

/* Largest N that holds the threshold: doubling, then bisection. Trials go
 * to runs[] (capacity 64). Returns the index of the best trial or -1; *n
 * gets the number of trials; -2 with why on a failure. */
static int find_max(struct fs_run_opts *ro, const struct opts *o, struct fs_run_result *runs, int *n, bool *capped,
		    char *why, size_t whylen)
{
	unsigned lo = 0, hi = 0, next = 1;
	int best = -1;
	*n = 0;
	FILE *tout = machine_output(o) ? stderr : stdout;
	bool say = fs_mpi_rank() == 0 && !(machine_output(o) && o->quiet);
	while (next && *n < 64) {
		ro->accelerators = next;
		uint32_t steps = fs_run_steps(ro);
		if (steps < 2 || (long)next * ro->w->read_threads > MAX_THREADS) {
			if (say)
				fprintf(tout, "trial: %u accelerators: %s; the search stops here\n", next,
					steps < 2 ? "the dataset gives fewer than 2 steps each (generate more with --scale, or give --steps)"
						  : "too many threads");
			*capped = !hi;
			break;
		}
		if (fs_bench_run(ro, &runs[*n], why, whylen) < 0)
			return -2;
		if (say)
			fs_bench_print_trial(tout, &runs[*n]);
		if (runs[*n].interrupted) { /* a partial trial decides nothing */
			(*n)++;
			break;
		}
		bool pass = runs[*n].passed;
		if (pass && (best < 0 || runs[*n].accelerators > runs[best].accelerators))
			best = *n;
		(*n)++;
		if (pass)
			lo = next;
		else
			hi = next;
		if (!hi && next * 2 > MAX_ACCEL)
			*capped = true, next = 0;
		else if (!hi)
			next *= 2;
		else
			next = hi - lo > 1 ? lo + (hi - lo) / 2 : 0;
	}
	return best;
}

/* Checkpoint: each rank writes its share; times are the slowest rank's. */
static int checkpoint(const struct opts *o, const struct fs_workload *w, struct fs_ckpt_result *r, char *why,
		      size_t whylen)
{
	if (fs_mpi_rank() == 0) {
		int rc = fs_bench_dir_prepare(o->dir, true, why, whylen);
		if (rc != FS_SAFETY_OK)
			return rc == FS_SAFETY_REFUSED ? 2 : 1;
	}
	fs_mpi_barrier();
	/* each rank its share; the first (bytes mod ranks) ranks one byte more */
	uint64_t ranks = (uint64_t)fs_mpi_size(), rank = (uint64_t)fs_mpi_rank();
	uint64_t share = w->checkpoint_bytes / ranks + (rank < w->checkpoint_bytes % ranks ? 1 : 0);
	struct fs_ckpt_opts co = {.dir = o->dir, .bytes = share, .files = 1,
				  .engine = o->engine, .direct = o->direct, .qd = (unsigned)o->qd, .rank = fs_mpi_rank()};
	int rc = fs_bench_checkpoint(&co, r, why, whylen);
	double bad = rc < 0;
	fs_mpi_max_double(&bad, 1);
	if (bad) {
		if (rc == 0) /* another rank failed: its own message went to its stderr */
			snprintf(why, whylen, "checkpoint failed on another MPI rank");
		return 1;
	}
	uint64_t u[3] = {r->bytes_written, r->bytes_read, r->files};
	fs_mpi_sum_u64(u, 3);
	double t[3] = {r->write_s, r->fsync_s, r->read_s};
	fs_mpi_max_double(t, 3);
	r->bytes_written = u[0];
	r->bytes_read = u[1];
	r->files = (unsigned)u[2];
	r->write_s = t[0];
	r->fsync_s = t[1];
	r->read_s = t[2];
	r->write_bytes_per_s = t[0] > 0 ? u[0] / t[0] : 0;
	r->read_bytes_per_s = t[2] > 0 ? u[1] / t[2] : 0;
	return 0;
}

/* DLIO's schedule: n checkpoints after training, one after the other (a
 * checkpoint-only workload waits time_between_checkpoints between two);
 * bytes and times summed over them. 0, or an exit status with why. */
static int checkpoints(const struct opts *o, const struct fs_workload *w, uint32_t n, struct fs_ckpt_result *sum,
		       struct fs_ckpt_result *each, char *why, size_t whylen)
{
	memset(sum, 0, sizeof *sum);
	for (uint32_t i = 0; i < n && !fs_bench_interrupt; i++) {
		if (i > 0 && !w->train && w->ckpt_time_between_s > 0) {
			uint64_t until = fs_now_ns() + (uint64_t)(w->ckpt_time_between_s * 1e9);
			while (!fs_bench_interrupt && fs_now_ns() < until) {
				struct timespec ts = {0, 50000000};
				nanosleep(&ts, NULL);
			}
		}
		struct fs_ckpt_result r;
		int rc = checkpoint(o, w, &r, why, whylen);
		if (rc != 0)
			return rc;
		if (each) /* [n]: DLIO's summary gives each one's mean and stdev */
			each[i] = r;
		sum->bytes_written += r.bytes_written;
		sum->bytes_read += r.bytes_read;
		sum->files += r.files;
		sum->write_s += r.write_s;
		sum->fsync_s += r.fsync_s;
		sum->read_s += r.read_s;
	}
	sum->write_bytes_per_s = sum->write_s > 0 ? sum->bytes_written / sum->write_s : 0;
	sum->read_bytes_per_s = sum->read_s > 0 ? sum->bytes_read / sum->read_s : 0;
	return 0;
}

/* workflow.generate_data: write the dataset into --dir first (rank 0), as
 * `bench generate` would, unless --dir holds one already. Returns -1 to go
 * on (training or checkpointing follows), or an exit status. */
static int generate_first(const struct opts *o, const struct fs_workload *w)
{
	char why[1024], path[4096];
	snprintf(path, sizeof path, "%s/%s", o->dir, FS_DATASET_MANIFEST);
	struct stat st;
	double rc = -1;
	bool have = stat(path, &st) == 0;
	/* a checkpoint that will not fit beside the dataset is refused before
	 * the dataset is written (its nominal bytes: the generator checks its own) */
	uint64_t data = have || !strcmp(w->format, "synthetic") ? 0 : (uint64_t)fmin(9e18, (double)w->record_length_bytes *
							    w->num_samples_per_file * w->num_files_train);
	if (w->checkpoint && fs_bench_ckpt_space_check(o->dir, w->checkpoint_bytes, data, o->scale, w->ckpt_keys, why,
						       sizeof why) < 0)
		rc = fs_usage_error("bench: %s", why);
	fs_mpi_max_double(&rc, 1);
	if (rc >= 0)
		return (int)rc;
	if (fs_mpi_rank() == 0 && have) {
		fs_warn("bench: %s already holds a dataset: workflow.generate_data does not write it again", o->dir);
	} else if (fs_mpi_rank() == 0 && strcmp(w->format, "synthetic")) {
		bool progress = !o->quiet && isatty(STDERR_FILENO) && isatty(STDOUT_FILENO);
		int g = fs_bench_generate(w, o->dir, 0, w->seed, progress, why, sizeof why);
		if (g == FS_SAFETY_REFUSED)
			rc = fs_usage_error("bench: workflow.generate_data: %s", why);
		else if (g != FS_SAFETY_OK)
			fs_error("bench: workflow.generate_data: %s", why), rc = 1;
		else if (!machine_output(o))
			printf("generated the dataset of %s in %s (workflow.generate_data)\n", w->name, o->dir);
	} else if (fs_mpi_rank() == 0 && !w->train) {
		printf("%s: dataset.format synthetic lives in memory: nothing to generate\n", w->name);
	}
	fs_mpi_max_double(&rc, 1);
	if (rc >= 0)
		return (int)rc;
	return w->train || w->checkpoint ? -1 : 0;
}

static int bench_run(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	struct fs_workload w;
	fs_log_set_quiet(o.quiet); /* the workload's warnings too; errors are always said */
	if ((rc = resolve(&o, &w)) >= 0)
		return rc;
	if (w.generate_data && (rc = generate_first(&o, &w)) >= 0)
		return rc;
	struct fs_store *store = NULL;
	struct fs_dataset ds;
	memset(&ds, 0, sizeof ds);
	struct fs_run_opts ro = {.w = &w, .ds = &ds, .dir = o.dir, .accelerators = (unsigned)o.accel,
				 .engine = o.engine, .direct = o.direct, .qd = (unsigned)o.qd,
				 .steps = o.steps > 0 ? (uint32_t)o.steps : 0};
	struct fs_cache_guard guard = {0};
	if (w.train) {
		if ((rc = load_dataset(&o, &w, &ds)) >= 0)
			goto out;
		uint32_t steps = fs_run_steps(&ro);
		if (steps == 0) {
			rc = fs_usage_error("bench: the dataset in %s (%llu samples) does not fill one batch of %u for each of "
					    "%u accelerator(s)%s", o.dir, (unsigned long long)ds.total_records, w.batch_size,
					    ro.accelerators, fs_mpi_size() > 1 ? " on every rank" : "");
			goto out;
		}
		uint32_t queue = w.prefetch * w.read_threads;
		if (o.find_max && steps < 2) {
			rc = fs_usage_error("bench: --find-max-accelerators: the dataset in %s gives one accelerator fewer than 2 "
					    "steps (generate more with --scale, or give --steps)", o.dir);
			goto out;
		}
		uint32_t k0, k1;
		if (!fs_run_au_window(&w, steps, &k0, &k1) && !o.find_max)
			fs_warn("bench: %u step(s) per epoch: the AU window (output.metric exclude_start_steps %u, "
				"exclude_end_steps %u) holds no step, so the AU is undefined; generate more data or give "
				"--steps", steps, w.exclude_start_steps, w.exclude_end_steps);
		else if (steps <= queue && !o.find_max)
			fs_warn("bench: %u steps per epoch, with %u batches prefetched per accelerator: the AU is mostly "
				"prefetch and overstates a steady state (give --steps of %u or more)", steps, queue, 10 * queue);
	}
	/* the last check, once every input is known good: nothing is made for a refused run */
	if ((rc = prepare_outputs(&o, &w, &store)) >= 0)
		goto out;
	if (w.train) /* after every refusal: a refused run says one line */
		fs_bench_cache_guard(o.dir, ds.total_bytes, o.direct, o.allow_cache, o.quiet, &guard);
	ro.progress = !o.quiet && fs_mpi_rank() == 0 && isatty(STDERR_FILENO) && isatty(STDOUT_FILENO);

	char why[600] = "";
	struct fs_run_result runs[64];
	int nruns = 0, best = -1;
	bool capped = false;
	struct fs_ckpt_result ck, *ck_each = NULL;
	bool have_ck = false;
	struct fs_usage usage;
	fs_usage_begin(&usage, o.dir);
	uint64_t start = fs_unix_ns();
	rc = 0;
	if (w.train) {
		if (o.find_max) {
			best = find_max(&ro, &o, runs, &nruns, &capped, why, sizeof why);
			rc = best == -2 ? 1 : 0;
		} else {
			rc = fs_bench_run(&ro, &runs[0], why, sizeof why) < 0 ? 1 : 0;
			nruns = rc == 0;
		}
	}
	uint32_t nckpt = 0;
	if (rc == 0 && w.checkpoint && !fs_bench_interrupt) { /* an interrupted run skips it */
		/* --checkpoint: the one after training, whatever the schedule says */
		nckpt = o.ckpt == 1 ? 1 : fs_workload_checkpoints(&w, w.train ? w.epochs : 0, w.train ? fs_run_steps(&ro) : 0);
		if (nckpt == 0 && fs_mpi_rank() == 0)
			fs_warn("bench: the checkpoint schedule (checkpoint_after_epoch %u, epochs_between_checkpoints %u, "
				"steps_between_checkpoints %u) writes no checkpoint in %u epoch(s)", w.ckpt_after_epoch,
				w.ckpt_epochs_between, w.ckpt_steps_between, w.epochs);
		ck_each = nckpt ? calloc(nckpt, sizeof *ck_each) : NULL;
		rc = nckpt ? checkpoints(&o, &w, nckpt, &ck, ck_each, why, sizeof why) : 0;
		have_ck = rc == 0 && nckpt > 0;
		if (rc != 0 && fs_bench_interrupt) /* stopped by Ctrl-C: the training's figures, no checkpoint */
			rc = 0;
	}
	fs_usage_end(&usage);
	if (rc != 0) {
		if (fs_mpi_rank() == 0 || strncmp(why, "another MPI rank", 16))
			fs_error("bench: %s", why);
		goto free_runs;
	}
	struct fs_bench_report b = {
		.w = &w, .workload_arg = o.config ? o.config : o.workload, .dir = o.dir, .scale = o.scale,
		.engine = o.engine, .direct = o.direct, .qd = (unsigned)o.qd, .steps_opt = ro.steps,
		.find_max = o.find_max, .runs = runs, .nruns = nruns, .best = o.find_max ? best : 0, .capped = capped,
		.ckpt = have_ck ? &ck : NULL, .ckpt_bytes = have_ck ? ck.bytes_written : 0, .ranks = fs_mpi_size(),
		.start_unix_ns = start, .end_unix_ns = fs_unix_ns(),
		.ckpt_each = have_ck ? ck_each : NULL, .nckpt = have_ck ? nckpt : 0,
		.potential_caching = guard.potential_caching, .allow_cache = o.allow_cache,
		.client_mem_bytes = guard.mem_bytes, .usage = &usage,
	};
	for (uint32_t i = 0; i < ds.nfiles; i++)
		b.dataset_files += ds.files[i].nrecs > 0;
	b.dataset_samples = ds.total_records;
	b.dataset_bytes = ds.total_bytes;
	if (fs_mpi_rank() == 0) {
		if (o.fio) {
			fs_bench_print_fio(stdout, &b);
		} else if (o.json) {
			fs_bench_print_json(stdout, &b);
		} else {
			fs_bench_print_text(stdout, &b);
			if (have_ck && nckpt > 1)
				printf("checkpoints: %u (DLIO's schedule), each written, fsynced and read back; the "
				       "checkpoint figures are their sums\n", nckpt);
		}
		fflush(stdout);
		struct fs_store *st = store;
		store = NULL; /* closed by fs_bench_write_store, whatever it returns */
		if (st && fs_bench_write_store(st, &b, argc, argv, why, sizeof why) < 0) {
			fs_error("bench: --output: %s", why);
			rc = 1;
		}
		if (o.summary && fs_bench_summary_save(o.summary, &b, why, sizeof why) < 0) {
			fs_error("bench: %s", why);
			rc = 1;
		}
	}
	if (rc == 0 && fs_bench_interrupt) { /* figures printed for what ran; the status says how it ended */
		if (fs_mpi_rank() == 0 && !machine_output(&o))
			fprintf(stdout, "interrupted by signal %d: the figures cover what ran before it%s\n",
				(int)fs_bench_interrupt, w.checkpoint ? " (no checkpoint was written)" : "");
		rc = 128 + (int)fs_bench_interrupt;
	}
free_runs:
	for (int i = 0; i < nruns; i++)
		fs_run_result_free(&runs[i]);
	free(ck_each);
out:
	if (store) /* not written: the run failed or was refused */
		fs_store_discard(store);
	fs_dataset_free(&ds);
	return rc;
}

static void on_signal(int sig)
{
	fs_bench_interrupt = sig;
}

int fs_cmd_bench(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "generate"))
		return fs_bench_generate_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "clean"))
		return fs_bench_clean_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run")) {
		argc--;
		argv++;
	}
	char why[300];
	if (fs_mpi_init(&argc, &argv, why, sizeof why) < 0) {
		fs_error("bench: %s", why);
		return 1;
	}
	if (fs_mpi_size() == 1) { /* Ctrl-C, SIGTERM: stop, print what ran; a second one kills */
		struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
		sigemptyset(&sa.sa_mask);
		for (int i = 0; i < 2; i++) {
			int sig = i ? SIGTERM : SIGINT;
			struct sigaction old;
			if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN) /* nohup's stays ignored */
				sigaction(sig, &sa, NULL);
		}
	}
	if (fs_mpi_rank() > 0) { /* rank 0 says the usage errors and warnings all ranks meet */
		fs_log_set_quiet(true);
		fs_log_set_usage_silent(true);
	}
	int rc = bench_run(argc, argv);
	fs_mpi_finalize();
	return rc;
}
