/* gen.c - `feedscope bench generate` (gen.h): plan the dataset (every
 * file's size and every sample's byte range), check the rules of safety.h
 * and the free space before writing anything, write the plan, then the
 * files with N writer threads, sync, and the manifest last. */
#include "bench/format/gen.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "bench/format/gen_int.h"
#include "bench/format/gen_io.h"
#include "bench/host/safety.h"
#include "bench/workload/workload.h"
#include "util/clock.h"
#include "util/fmt.h"

#define FILES_PER_DIR 10000u      /* more files than this: train/NNNN/ subfolders */
#define OUT_BUF_BYTES (1u << 20)  /* per writer */
#define MAX_FILES (1u << 30)
#define SEED_SIZES 0x73697a6573ull   /* stream ids for fs_rng_seed */
#define SEED_PAYLOAD 0x7061796cull
#define BLOCK_BYTES 4096ull          /* what a file occupies at least, for the space check */
#define MANIFEST_FILE_BYTES 80ull    /* a "file" line, about */
#define MANIFEST_REC_BYTES 32ull     /* a "rec" line, about */
#define PROGRESS_NS 250000000ull

volatile sig_atomic_t fs_gen_interrupted;

/* What one generation writes: the manifest being built, and where each of
 * its files comes from. */
struct gen {
	const struct fs_gen_format *fmt;
	uint64_t seed, mean, stdev;
	uint32_t per_file;      /* samples in one data file */
	uint32_t nlogical;      /* data files */
	uint32_t nfiles;        /* manifest entries: data files (and their index files) */
	uint32_t subfolders;    /* DLIO's num_subfolders_train when > 1, else 0 */
	uint32_t subdirs;       /* directories under train/ (subfolders, or NNNN/ above 10 000 files); 0: none */
	struct fs_dataset d;
	uint64_t total_bytes, total_samples;

	/* the writers */
	int dfd;
	_Atomic uint32_t next;
	_Atomic uint64_t done_bytes;
	_Atomic unsigned finished;
	_Atomic bool failed;
	pthread_mutex_t mu;
	char why[512];
};

static uint32_t logical_of(const struct gen *g, uint32_t entry)
{
	return g->fmt->ops->has_index ? entry / 2 : entry;
}

static bool is_index(const struct gen *g, uint32_t entry)
{
	return g->fmt->ops->has_index && (entry & 1);
}

/* The payload sizes of logical file i's samples (n of them). */
static void sample_sizes(const struct gen *g, uint32_t i, uint64_t *sizes, uint32_t n)
{
	uint64_t rng = fs_rng_seed(g->seed, i, SEED_SIZES);
	if (g->fmt->ops->per_file_length) {
		uint64_t len = fs_rng_size(&rng, g->mean, g->stdev);
		for (uint32_t k = 0; k < n; k++)
			sizes[k] = len;
	} else {
		for (uint32_t k = 0; k < n; k++)
			sizes[k] = fs_rng_size(&rng, g->mean, g->stdev);
	}
}

/* The path of manifest entry e, relative to DIR: DLIO's names
 * (img_<i>_of_<N>.<ext>, i from 0, as wide as N), in train/<i mod K>/ when
 * DLIO's num_subfolders_train K is > 1 (DLIO deals files round-robin). */
void fs_gen_entry_name(const struct fs_gen_format *fmt, uint32_t nlogical, uint32_t subfolders, uint32_t e,
		       char *out, size_t cap)
{
	uint32_t i = fmt->ops->has_index ? e / 2 : e;
	char sub[16] = "";
	if (subfolders > 1)
		snprintf(sub, sizeof sub, "%u/", i % subfolders);
	else if (nlogical > FILES_PER_DIR)
		snprintf(sub, sizeof sub, "%04u/", i / FILES_PER_DIR);
	int width = snprintf(NULL, 0, "%u", nlogical);
	snprintf(out, cap, "train/%simg_%0*u_of_%u.%s", sub, width, i, nlogical,
		 fmt->ops->has_index && (e & 1) ? "idx" : fmt->ext);
}

static void entry_path(const struct gen *g, uint32_t e, char *out, size_t cap)
{
	fs_gen_entry_name(g->fmt, g->nlogical, g->subfolders, e, out, cap);
}

/* train/<s>: the s-th directory under train/ */
static void subdir_name(const struct gen *g, uint32_t s, char *out, size_t cap)
{
	if (g->subfolders)
		snprintf(out, cap, "train/%u", s);
	else
		snprintf(out, cap, "train/%04u", s);
}

/* Whether entry e is the first data file of its directory under train/. */
static bool first_in_subdir(const struct gen *g, uint32_t e)
{
	uint32_t i = logical_of(g, e);
	return !is_index(g, e) && (g->subfolders ? i < g->subfolders : i % FILES_PER_DIR == 0);
}

/* Size (and records, when recs) of entry e; sizes has room for per_file. */
static uint64_t entry_layout(const struct gen *g, uint32_t e, uint64_t *sizes, struct fs_dataset_rec *recs)
{
	sample_sizes(g, logical_of(g, e), sizes, g->per_file);
	if (is_index(g, e))
		return fs_gen_index_size(g->per_file);
	return g->fmt->ops->layout(sizes, g->per_file, recs);
}

/* Shape of the dataset from the workload; 0, or -1 (usage) with why. */
static int gen_shape(struct gen *g, const struct fs_workload *w, uint64_t seed, char *why, size_t whylen)
{
	memset(g, 0, sizeof *g);
	g->fmt = fs_gen_format_find(w->format);
	if (!g->fmt) {
		snprintf(why, whylen, "format '%s' is not one feedscope writes (%s)", w->format, fs_gen_format_names());
		return -1;
	}
	if (!w->train && !w->generate_data) {
		snprintf(why, whylen, "workload %s reads no dataset (it only checkpoints): nothing to generate",
			 w->name);
		return -1;
	}
	if (w->num_files_train < 1 || w->num_samples_per_file < 1 || w->record_length_bytes < 1) {
		snprintf(why, whylen, "workload %s: num_files_train, num_samples_per_file and record_length_bytes "
			 "must be at least 1", w->name);
		return -1;
	}
	g->seed = seed;
	g->mean = w->record_length_bytes;
	g->stdev = w->record_length_bytes_stdev;
	uint64_t nlogical = w->num_files_train, per = w->num_samples_per_file;
	if (g->fmt->ops->one_sample_per_file) {
		nlogical *= per;
		per = 1;
	}
	uint64_t nfiles = nlogical * (g->fmt->ops->has_index ? 2 : 1);
	if (nfiles > MAX_FILES) {
		snprintf(why, whylen, "%" PRIu64 " files is more than feedscope writes in one dataset (%u): "
			 "use --scale", nfiles, MAX_FILES);
		return -1;
	}
	g->nlogical = (uint32_t)nlogical;
	g->nfiles = (uint32_t)nfiles;
	g->per_file = (uint32_t)per;
	g->subfolders = w->num_subfolders_train > 1 ? w->num_subfolders_train : 0;
	if (g->subfolders > g->nlogical) /* DLIO makes them all; an empty one holds nothing to read */
		g->subfolders = g->nlogical > 1 ? g->nlogical : 0;
	if (g->subfolders)
		g->subdirs = g->subfolders;
	else
		g->subdirs = g->nlogical > FILES_PER_DIR ? (g->nlogical + FILES_PER_DIR - 1) / FILES_PER_DIR : 0;
	g->d.subfolders = g->subfolders;
	g->total_samples = nlogical * per;
	snprintf(g->d.format, sizeof g->d.format, "%s", g->fmt->name);
	g->d.record_length_bytes = g->mean;
	g->d.record_length_stdev = g->stdev;
	g->d.samples_per_file = g->per_file;
	return 0;
}

/* Pass over the plan without keeping it: the bytes to be written (each
 * file rounded up to a block), checked against the format's limits.
 * Returns 0 or -1 (usage) with why. */
static int gen_measure(struct gen *g, uint64_t *need_bytes, char *why, size_t whylen)
{
	uint64_t *sizes = malloc(g->per_file * sizeof *sizes);
	if (!sizes) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	uint64_t need = 0;
	int rc = 0;
	for (uint32_t e = 0; e < g->nfiles && rc == 0; e++) {
		uint64_t size = entry_layout(g, e, sizes, NULL);
		for (uint32_t k = 0; k < g->per_file && g->fmt->ops->max_sample_bytes; k++)
			if (sizes[k] > g->fmt->ops->max_sample_bytes)
				rc = -1;
		if (g->fmt->ops->max_file_bytes && size > g->fmt->ops->max_file_bytes)
			rc = -1;
		if (rc) {
			char b1[32], b2[32];
			snprintf(why, whylen, "a %s file of %s (samples up to %s) is more than the format holds here "
				 "(no zip64, ustar sizes below 8 GiB): lower record_length_bytes or samples per file",
				 g->fmt->name, fs_fmt_bytes(b1, sizeof b1, (double)size),
				 fs_fmt_bytes(b2, sizeof b2, (double)sizes[0]));
		}
		uint64_t blocks = size / BLOCK_BYTES + (size % BLOCK_BYTES != 0);
		if (rc == 0 && (__builtin_add_overflow(g->total_bytes, size, &g->total_bytes) ||
				__builtin_mul_overflow(blocks, BLOCK_BYTES, &blocks) ||
				__builtin_add_overflow(need, blocks, &need) || need > INT64_MAX)) {
			snprintf(why, whylen, "the dataset would be more than %llu bytes (8 EiB): lower "
				 "record_length_bytes, num_samples_per_file or num_files_train", (unsigned long long)INT64_MAX);
			rc = -1;
		}
	}
	free(sizes);
	/* the plan and the manifest, and the directories; any overflow asks
	 * for more than a file system has, never for less */
	uint64_t text, recs;
	if (__builtin_mul_overflow(g->total_samples, MANIFEST_REC_BYTES, &recs) ||
	    __builtin_add_overflow(recs, (uint64_t)g->nfiles * MANIFEST_FILE_BYTES, &text) ||
	    __builtin_mul_overflow(text, 2, &text) || __builtin_add_overflow(need, text, need_bytes) ||
	    __builtin_add_overflow(*need_bytes, (uint64_t)(g->subdirs + 1) * BLOCK_BYTES, need_bytes))
		*need_bytes = UINT64_MAX;
	return rc;
}

/* The plan in full: every entry's path, size and records. 0 or -1. */
static int gen_plan(struct gen *g, char *why, size_t whylen)
{
	uint64_t *sizes = malloc(g->per_file * sizeof *sizes);
	g->d.files = calloc(g->nfiles, sizeof *g->d.files);
	if (!sizes || !g->d.files) {
		free(sizes);
		snprintf(why, whylen, "out of memory for the plan of %u files", g->nfiles);
		return -1;
	}
	char path[128];
	for (uint32_t e = 0; e < g->nfiles; e++) {
		struct fs_dataset_file *f = &g->d.files[e];
		g->d.nfiles = e + 1;
		entry_path(g, e, path, sizeof path);
		f->path = strdup(path);
		bool index = is_index(g, e);
		f->recs = index ? NULL : calloc(g->per_file, sizeof *f->recs);
		if (!f->path || (!index && !f->recs)) {
			free(sizes);
			snprintf(why, whylen, "out of memory for the plan of %u files", g->nfiles);
			return -1;
		}
		f->nrecs = index ? 0 : g->per_file;
		f->size = entry_layout(g, e, sizes, f->recs);
	}
	free(sizes);
	return 0;
}

/* Nothing of ours may be there yet: no dataset (clean it first), nothing
 * at the planned names (a planted symlink is refused, never followed).
 * Returns FS_SAFETY_OK or FS_SAFETY_REFUSED with why. */
static int gen_check_names(const struct gen *g, const char *dir, char *why, size_t whylen)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return FS_SAFETY_OK; /* missing: it will be created empty */
	static const char *const ours[] = {FS_DATASET_MANIFEST, FS_DATASET_PARTIAL, NULL};
	struct stat st;
	int rc = FS_SAFETY_OK;
	for (int i = 0; ours[i] && rc == FS_SAFETY_OK; i++)
		if (fstatat(dfd, ours[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
			snprintf(why, whylen, "%s already holds a dataset (%s): `feedscope bench clean --dir %s` "
				 "removes it first", dir, ours[i], dir);
			rc = FS_SAFETY_REFUSED;
		}
	bool has_train = fstatat(dfd, "train", &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (rc == FS_SAFETY_OK && has_train && !fs_bench_path_inside(dir, "train/x")) {
		snprintf(why, whylen, "%s/train is not a plain directory of %s (a symlink, another file "
			 "system or a file): refusing to write through it", dir, dir);
		rc = FS_SAFETY_REFUSED;
	}
	char path[128];
	for (uint32_t e = 0; has_train && rc == FS_SAFETY_OK && e < g->nfiles; e++) {
		entry_path(g, e, path, sizeof path);
		if (g->subdirs && first_in_subdir(g, e)) {
			char sub[128];
			snprintf(sub, sizeof sub, "%.*s/x", (int)(strrchr(path, '/') - path), path);
			if (!fs_bench_path_inside(dir, sub)) {
				snprintf(why, whylen, "%s/%s is not a plain directory: refusing to write through it",
					 dir, sub);
				rc = FS_SAFETY_REFUSED;
			}
		}
		if (rc == FS_SAFETY_OK && fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			snprintf(why, whylen, "%s/%s is already there (%s): refusing to overwrite it", dir, path,
				 S_ISLNK(st.st_mode) ? "a symlink" : "not made by this generation");
			rc = FS_SAFETY_REFUSED;
		}
	}
	close(dfd);
	return rc;
}

/* Room for need bytes and the files' inodes. 0, or -1 with why. */
static int gen_check_space(const struct gen *g, const char *dir, uint64_t need, char *why, size_t whylen)
{
	if (fs_bench_space_check(dir, need, why, whylen) < 0)
		return -1;
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	struct statvfs v;
	while (statvfs(path, &v) < 0) {
		char *slash = strrchr(path, '/');
		if (!slash || slash == path)
			return 0;
		*slash = 0;
	}
	uint64_t inodes = (uint64_t)g->nfiles + g->subdirs + 8;
	if (v.f_files > 0 && v.f_favail < inodes) {
		snprintf(why, whylen, "not enough inodes on the file system of %s: %" PRIu64 " files and "
			 "directories, %" PRIu64 " free", dir, inodes, (uint64_t)v.f_favail);
		return -1;
	}
	return 0;
}

static void gen_fail(struct gen *g, const char *fmt, const char *path, int err)
{
	pthread_mutex_lock(&g->mu);
	if (!atomic_load(&g->failed))
		snprintf(g->why, sizeof g->why, fmt, path, err ? strerror(err) : "");
	atomic_store(&g->failed, true);
	pthread_mutex_unlock(&g->mu);
}

/* Write entry e. 0, or -1 (g->why set). */
static int write_entry(struct gen *g, uint32_t e, uint64_t *sizes, uint8_t *buf)
{
	const struct fs_dataset_file *f = &g->d.files[e];
	int fd = fs_bench_open_inside(g->dfd, f->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		gen_fail(g, "cannot create %s: %s", f->path, errno);
		return -1;
	}
	uint32_t i = logical_of(g, e);
	sample_sizes(g, i, sizes, g->per_file);
	struct fs_gen_out o;
	fs_gen_out_init(&o, fd, buf, OUT_BUF_BYTES, fs_rng_seed(g->seed, i, SEED_PAYLOAD), &g->done_bytes);
	if (is_index(g, e))
		fs_gen_index_write(&o, sizes, g->per_file);
	else
		g->fmt->ops->write(&o, sizes, g->per_file, (uint64_t)i * g->per_file);
	fs_gen_out_flush(&o);
	if (!o.err && o.pos != f->size)
		o.err = EPROTO; /* the writer and the layout disagree: a bug */
	if (close(fd) < 0 && !o.err)
		o.err = errno;
	if (o.err == EINTR && fs_gen_interrupted) {
		gen_fail(g, "%s%s", "interrupted", 0);
		return -1;
	}
	if (o.err) {
		gen_fail(g, "writing %s: %s", f->path, o.err);
		return -1;
	}
	return 0;
}

static void *writer(void *arg)
{
	struct gen *g = arg;
	uint64_t *sizes = malloc(g->per_file * sizeof *sizes);
	uint8_t *buf = malloc(OUT_BUF_BYTES);
	if (!sizes || !buf) {
		gen_fail(g, "%s: %s", "writer", ENOMEM);
	} else {
		for (;;) {
			uint32_t e = atomic_fetch_add(&g->next, 1);
			if (e >= g->nfiles || atomic_load(&g->failed))
				break;
			if (fs_gen_interrupted) {
				gen_fail(g, "%s%s", "interrupted", 0);
				break;
			}
			if (write_entry(g, e, sizes, buf) < 0)
				break;
		}
	}
	free(sizes);
	free(buf);
	atomic_fetch_add(&g->finished, 1);
	return NULL;
}

static void show_progress(const struct gen *g, uint64_t t0_ns, bool last)
{
	double done = (double)atomic_load(&g->done_bytes), total = (double)g->total_bytes;
	double el = (double)(fs_now_ns() - t0_ns) / 1e9, rate = el > 0 ? done / el : 0;
	char b1[32], b2[32], b3[32], b4[32] = "-";
	if (rate > 0)
		fs_fmt_time(b4, sizeof b4, total > done ? (total - done) / rate : 0);
	fprintf(stderr, "\rgenerate: %s / %s (%.0f%%)  %s  %s left   ", fs_fmt_bytes(b1, sizeof b1, done),
		fs_fmt_bytes(b2, sizeof b2, total), total > 0 ? 100 * done / total : 100,
		fs_fmt_rate(b3, sizeof b3, rate), b4);
	if (last)
		fputc('\n', stderr);
	fflush(stderr);
}

/* Make the directories and run the writers. 0 or -1 with why. */
static int gen_write(struct gen *g, const char *dir, unsigned threads, bool progress, char *why, size_t whylen)
{
	if (fs_bench_mkdir_inside(g->dfd, "train", 0755) < 0) {
		snprintf(why, whylen, "cannot create %s/train: %s", dir, strerror(errno));
		return -1;
	}
	for (uint32_t s = 0; s < g->subdirs; s++) {
		char sub[32];
		subdir_name(g, s, sub, sizeof sub);
		if (fs_bench_mkdir_inside(g->dfd, sub, 0755) < 0) {
			snprintf(why, whylen, "cannot create %s/%s: %s", dir, sub, strerror(errno));
			return -1;
		}
	}
	pthread_t tid[FS_GEN_MAX_THREADS];
	unsigned started = 0;
	uint64_t t0 = fs_now_ns(), shown = t0;
	for (; started < threads; started++)
		if (pthread_create(&tid[started], NULL, writer, g) != 0)
			break;
	if (started == 0) {
		snprintf(why, whylen, "cannot start a writer thread");
		return -1;
	}
	while (atomic_load(&g->finished) < started) {
		struct timespec ts = {0, 50000000};
		nanosleep(&ts, NULL);
		if (progress && fs_now_ns() - shown >= PROGRESS_NS) {
			show_progress(g, t0, false);
			shown = fs_now_ns();
		}
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (progress)
		show_progress(g, t0, true);
	if (atomic_load(&g->failed)) {
		snprintf(why, whylen, "%s (what was written is listed in %s/%s; `feedscope bench clean --dir %s` "
			 "removes it)", g->why, dir, FS_DATASET_PARTIAL, dir);
		return -1;
	}
	return 0;
}

int fs_bench_generate(const struct fs_workload *w, const char *dir, unsigned threads, uint64_t seed,
		      bool progress, char *why, size_t whylen)
{
	struct gen *g = calloc(1, sizeof *g);
	if (!g) {
		snprintf(why, whylen, "out of memory");
		return FS_SAFETY_FAILED;
	}
	int rc = FS_SAFETY_REFUSED;
	uint64_t need = 0;
	g->dfd = -1;
	if (gen_shape(g, w, seed, why, whylen) < 0 || gen_measure(g, &need, why, whylen) < 0)
		goto out;
	if ((rc = fs_bench_dir_check(dir, why, whylen)) != FS_SAFETY_OK)
		goto out;
	rc = FS_SAFETY_REFUSED;
	if (gen_check_names(g, dir, why, whylen) != FS_SAFETY_OK || gen_check_space(g, dir, need, why, whylen) < 0)
		goto out;
	/* the checks are done: from here on, failures are the system's */
	rc = FS_SAFETY_FAILED;
	if (gen_plan(g, why, whylen) < 0)
		goto out;
	if ((rc = fs_bench_dir_prepare(dir, true, why, whylen)) != FS_SAFETY_OK)
		goto out;
	rc = FS_SAFETY_FAILED;
	if (fs_dataset_save_file(dir, FS_DATASET_PARTIAL, &g->d, why, whylen) < 0)
		goto out;
	if ((g->dfd = fs_bench_dir_open(dir)) < 0) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 1;
	}
	if (threads > FS_GEN_MAX_THREADS)
		threads = FS_GEN_MAX_THREADS;
	if (threads > g->nfiles)
		threads = g->nfiles;
	pthread_mutex_init(&g->mu, NULL);
	int wrc = gen_write(g, dir, threads, progress, why, whylen);
	pthread_mutex_destroy(&g->mu);
	if (wrc < 0)
		goto out;
	/* every file on stable storage before the manifest says they are there */
	int sfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0 || syncfs(sfd) < 0) {
		snprintf(why, whylen, "syncing %s: %s", dir, strerror(errno));
		if (sfd >= 0)
			close(sfd);
		goto out;
	}
	close(sfd);
	if (fs_dataset_save(dir, &g->d, why, whylen) < 0)
		goto out;
	if (fs_bench_unlink_inside(g->dfd, FS_DATASET_PARTIAL, false) < 0) {
		snprintf(why, whylen, "%s/%s: %s", dir, FS_DATASET_PARTIAL, strerror(errno));
		goto out;
	}
	rc = FS_SAFETY_OK;
out:
	if (g->dfd >= 0)
		close(g->dfd);
	fs_dataset_free(&g->d);
	free(g);
	return rc;
}
