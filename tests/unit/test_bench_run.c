/* The bench run: the sample permutation is a bijection, a plan splits files
 * across ranks and orders samples deterministically per seed and epoch, and
 * a tiny real run (files in a temporary directory) reads every sample of
 * every step once, with an AU in [0, 1]. No timing asserts. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/emu/run.h"
#include "check.h"

static void perm_is_bijection(uint64_t n, uint64_t key)
{
	unsigned h = fs_run_perm_bits(n);
	char *seen = calloc(n ? n : 1, 1);
	bool ok = true, moved = false;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t p = fs_run_perm(i, n, key, h);
		if (p >= n || seen[p])
			ok = false;
		else
			seen[p] = 1;
		moved |= p != i;
	}
	CHECK(ok);
	CHECK(n < 8 || moved);
	free(seen);
}

/* A dataset of nfiles files of nrec records of rec bytes (no file behind it
 * unless dir is given: then the files are written). */
static void fake_dataset(struct fs_dataset *d, uint32_t nfiles, uint32_t nrec, uint64_t rec, const char *dir)
{
	memset(d, 0, sizeof *d);
	snprintf(d->format, sizeof d->format, "raw");
	d->record_length_bytes = rec;
	d->samples_per_file = nrec;
	d->nfiles = nfiles;
	d->files = calloc(nfiles, sizeof *d->files);
	char *buf = calloc(1, rec * nrec);
	for (uint32_t i = 0; i < nfiles; i++) {
		struct fs_dataset_file *f = &d->files[i];
		char name[64];
		snprintf(name, sizeof name, "f%u.raw", i);
		f->path = strdup(name);
		f->size = rec * nrec;
		f->nrecs = nrec;
		f->recs = calloc(nrec, sizeof *f->recs);
		for (uint32_t j = 0; j < nrec; j++)
			f->recs[j] = (struct fs_dataset_rec){.offset = j * rec, .length = rec};
		if (dir) {
			char path[512];
			snprintf(path, sizeof path, "%s/%s", dir, name);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			CHECK(fd >= 0 && write(fd, buf, rec * nrec) == (ssize_t)(rec * nrec));
			close(fd);
		}
		d->total_bytes += f->size;
		d->total_records += nrec;
	}
	free(buf);
}

static void plans(void)
{
	struct fs_dataset d;
	fake_dataset(&d, 10, 7, 100, NULL);
	struct fs_workload w;
	memset(&w, 0, sizeof w);
	w.seed = 5;
	w.file_shuffle = w.sample_shuffle = FS_SHUFFLE_SEED;

	/* four ranks: every file once, rank r holds 10/4 rounded its way */
	int owner[10];
	for (int i = 0; i < 10; i++)
		owner[i] = -1;
	uint64_t total = 0;
	for (int r = 0; r < 4; r++) {
		struct fs_run_plan p;
		CHECK_INT(fs_run_plan_build(&p, &d, &w, 0, r, 4), 0);
		CHECK_INT(p.nfiles, r < 2 ? 3 : 2);
		for (uint32_t i = 0; i < p.nfiles; i++) {
			CHECK(owner[p.files[i]] == -1);
			owner[p.files[i]] = r;
		}
		total += p.nsamples;
		/* every sample of the rank exactly once */
		int seen[10][7];
		memset(seen, 0, sizeof seen);
		for (uint64_t pos = 0; pos < p.nsamples; pos++) {
			uint32_t f, rec;
			fs_run_plan_sample(&p, pos, &f, &rec);
			CHECK(f < 10 && rec < 7 && owner[f] == r);
			seen[f][rec]++;
		}
		for (uint32_t i = 0; i < p.nfiles; i++)
			for (int k = 0; k < 7; k++)
				CHECK_INT(seen[p.files[i]][k], 1);
		fs_run_plan_free(&p);
	}
	CHECK_INT(total, 70);

	/* same seed and epoch: same order; another epoch: another order */
	struct fs_run_plan a, b, c;
	fs_run_plan_build(&a, &d, &w, 1, 0, 1);
	fs_run_plan_build(&b, &d, &w, 1, 0, 1);
	fs_run_plan_build(&c, &d, &w, 2, 0, 1);
	int same = 1, differ = 0;
	for (uint64_t pos = 0; pos < a.nsamples; pos++) {
		uint32_t f1, r1, f2, r2, f3, r3;
		fs_run_plan_sample(&a, pos, &f1, &r1);
		fs_run_plan_sample(&b, pos, &f2, &r2);
		fs_run_plan_sample(&c, pos, &f3, &r3);
		same &= f1 == f2 && r1 == r2;
		differ |= f1 != f3 || r1 != r3;
	}
	CHECK(same && differ);
	fs_run_plan_free(&a);
	fs_run_plan_free(&b);
	fs_run_plan_free(&c);

	/* no shuffle: file order, record order */
	w.file_shuffle = w.sample_shuffle = FS_SHUFFLE_OFF;
	fs_run_plan_build(&a, &d, &w, 3, 0, 1);
	uint32_t f, r;
	fs_run_plan_sample(&a, 15, &f, &r);
	CHECK_INT(f, 2);
	CHECK_INT(r, 1);
	fs_run_plan_free(&a);
	fs_dataset_free(&d);
}

static void tiny_run(const char *engine, bool direct)
{
	char dir[] = "/tmp/test_bench_run.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct fs_dataset d;
	fake_dataset(&d, 3, 8, 10000, dir); /* 24 samples of 10000 bytes (not 4096-aligned) */
	struct fs_workload w;
	memset(&w, 0, sizeof w);
	snprintf(w.name, sizeof w.name, "tiny");
	w.train = true;
	w.record_length_bytes = 10000;
	w.batch_size = 2;
	w.read_threads = 2;
	w.prefetch = 1;
	w.epochs = 2;
	w.seed = 9;
	w.file_shuffle = w.sample_shuffle = FS_SHUFFLE_SEED;
	w.ncompute = 1;
	w.compute[0].mean_s = 0.0005;
	w.compute[0].stdev_s = 0.0001;
	w.au_threshold = 0.5;
	struct fs_run_opts o = {.w = &w, .ds = &d, .dir = dir, .accelerators = 3, .engine = engine,
				.direct = direct, .qd = 4};
	CHECK_INT(fs_run_steps(&o), 4); /* 24 / (3 × 2) */
	struct fs_run_result r;
	char why[256] = "";
	int rc = fs_bench_run(&o, &r, why, sizeof why);
	if (rc != 0 && direct && strstr(why, "O_DIRECT")) { /* tmpfs: no O_DIRECT here */
		check_skip("test_bench_run: %s", why);
	} else {
		CHECK_INT(rc, 0);
		CHECK_INT(r.epochs, 2);
		for (uint32_t e = 0; e < 2; e++) {
			CHECK_INT(r.epoch[e].steps, 4);
			CHECK_INT(r.epoch[e].samples, 24);
			CHECK_INT(r.epoch[e].sample_bytes, 240000);
			if (direct) /* whole 4 KiB blocks around each sample, clipped at the end of the file */
				CHECK(r.epoch[e].read_bytes >= 240000);
			else
				CHECK_INT(r.epoch[e].read_bytes, 240000);
			CHECK(r.epoch[e].au >= 0 && r.epoch[e].au <= 1.0 + 1e-9);
			CHECK_INT(r.epoch[e].lat.count, r.epoch[e].reads);
			/* the readers' I/O time: inside the epoch, and the
			 * fio-like rates are over it (the wall rates over the epoch) */
			const struct fs_run_epoch *x = &r.epoch[e];
			CHECK(x->io_s > 0 && x->io_s <= x->duration_s);
			CHECK(fabs(x->io_reads_per_s * x->io_s - (double)x->reads) <= 1e-6 * x->reads + 1e-9);
			CHECK(fabs(x->io_bytes_per_s * x->io_s - (double)x->read_bytes) <= 1e-6 * x->read_bytes + 1e-9);
			CHECK(fabs(x->read_bytes_per_s * x->duration_s - (double)x->read_bytes) <= 1e-6 * x->read_bytes + 1e-9);
		}
		CHECK(fabs(r.total.io_s - r.epoch[0].io_s - r.epoch[1].io_s) < 1e-9);
		CHECK(fabs(r.total.io_reads_per_s * r.total.io_s - (double)r.total.reads) <= 1e-6 * r.total.reads + 1e-9);
		CHECK_INT(r.total.samples, 48);
		CHECK(r.total.au >= 0 && r.total.au <= 1.0 + 1e-9);
		CHECK(r.passed == (r.total.au >= 0.5));
		CHECK(!r.wrapped);
		fs_run_result_free(&r);

		/* --steps beyond the data: samples are read again */
		o.steps = 6;
		CHECK_INT(fs_bench_run(&o, &r, why, sizeof why), 0);
		CHECK(r.wrapped);
		CHECK_INT(r.epoch[0].samples, 36);
		fs_run_result_free(&r);
	}
	for (uint32_t i = 0; i < d.nfiles; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, d.files[i].path);
		unlink(path);
	}
	rmdir(dir);
	fs_dataset_free(&d);
}

int main(void)
{
	for (uint64_t n = 0; n < 70; n++)
		perm_is_bijection(n, 12345 + n);
	perm_is_bijection(1000, 1);
	perm_is_bijection(65536, 7);
	perm_is_bijection(100003, 99);
	plans();
	tiny_run("psync", false);
	tiny_run("io_uring", false);
	tiny_run("mmap", false);
	tiny_run("psync", true);
	tiny_run("io_uring", true);
	return check_exit("test_bench_run");
}
