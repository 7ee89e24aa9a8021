/* run_plan.c - the files a run reads (opened once when the limit allows)
 * and the order of one epoch's reads on one rank: the file
 * shuffle, the split of files across MPI ranks, and the sample shuffle as a
 * keyed permutation computed per position (a Feistel network with cycle
 * walking), so a dataset of hundreds of millions of samples (bert) needs no
 * shuffled array; and the steps of an epoch that DLIO's AU counts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/io/engine.h"
#include "bench/emu/run.h"
#include "bench/host/safety.h"

bool fs_run_au_window(const struct fs_workload *w, uint32_t steps, uint32_t *first, uint32_t *last)
{
	uint64_t out = (uint64_t)w->exclude_start_steps + w->exclude_end_steps;
	if (steps <= out)
		return false;
	*first = w->exclude_start_steps;
	*last = steps - 1 - w->exclude_end_steps;
	return true;
}

uint64_t fs_run_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0), without modulo bias worth mentioning for n < 2^32. */
static uint64_t below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)fs_run_rand(state) * n) >> 64);
}

unsigned fs_run_perm_bits(uint64_t n)
{
	unsigned bits = 2;
	while (bits < 64 && (1ull << bits) < n)
		bits += 2;
	return bits / 2;
}

static uint64_t round_fn(uint64_t r, uint64_t key, unsigned round)
{
	uint64_t s = key ^ (r * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)round << 56);
	return fs_run_rand(&s);
}

uint64_t fs_run_perm(uint64_t x, uint64_t n, uint64_t key, unsigned half_bits)
{
	if (n <= 1)
		return 0;
	uint64_t mask = half_bits >= 32 ? 0xffffffffull : (1ull << half_bits) - 1;
	/* a permutation of [0, 4^half_bits); walk until the value falls in [0, n) */
	do {
		uint64_t l = (x >> half_bits) & mask, r = x & mask;
		for (unsigned i = 0; i < 4; i++) {
			uint64_t t = l ^ (round_fn(r, key, i) & mask);
			l = r;
			r = t;
		}
		x = (l << half_bits) | r;
	} while (x >= n);
	return x;
}

static uint64_t epoch_seed(const struct fs_workload *w, uint32_t epoch, enum fs_wl_shuffle how, uint64_t salt)
{
	uint64_t s;
	if (how == FS_SHUFFLE_RANDOM) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30);
	} else {
		s = w->seed;
	}
	s ^= salt;
	s += (uint64_t)epoch * 0x632be59bd9b4e019ull; /* a new order every epoch, as DLIO's seed_change_epoch */
	return fs_run_rand(&s);
}

int fs_run_plan_build(struct fs_run_plan *p, const struct fs_dataset *ds, const struct fs_workload *w,
		      uint32_t epoch, int rank, int ranks)
{
	memset(p, 0, sizeof *p);
	p->ds = ds;
	uint32_t *all = malloc((ds->nfiles ? ds->nfiles : 1) * sizeof *all);
	if (!all)
		return errno = ENOMEM, -1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ds->nfiles; i++)
		if (ds->files[i].nrecs > 0) /* an index file holds no sample */
			all[n++] = i;
	if (w->file_shuffle != FS_SHUFFLE_OFF) {
		uint64_t st = epoch_seed(w, epoch, w->file_shuffle, 0x66696c6573ull);
		for (uint32_t i = n; i > 1; i--) {
			uint32_t j = (uint32_t)below(&st, i);
			uint32_t t = all[i - 1];
			all[i - 1] = all[j];
			all[j] = t;
		}
	}
	/* rank r reads the files i with i % ranks == r of the shuffled list */
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if ((int)(i % (uint32_t)ranks) == rank)
			all[k++] = all[i];
	p->files = all;
	p->nfiles = k;
	p->prefix = malloc((k + 1) * sizeof *p->prefix);
	if (!p->prefix) {
		fs_run_plan_free(p);
		return errno = ENOMEM, -1;
	}
	p->prefix[0] = 0;
	for (uint32_t i = 0; i < k; i++)
		p->prefix[i + 1] = p->prefix[i] + ds->files[all[i]].nrecs;
	p->nsamples = p->prefix[k];
	p->shuffle = w->sample_shuffle != FS_SHUFFLE_OFF;
	if (p->shuffle) {
		uint64_t st = epoch_seed(w, epoch, w->sample_shuffle, 0x73616d706c65ull + (uint64_t)rank);
		p->key = fs_run_rand(&st);
		p->half_bits = fs_run_perm_bits(p->nsamples);
	}
	return 0;
}

void fs_run_plan_free(struct fs_run_plan *p)
{
	free(p->files);
	free(p->prefix);
	p->files = NULL;
	p->prefix = NULL;
}

void fs_run_plan_sample(const struct fs_run_plan *p, uint64_t pos, uint32_t *file, uint32_t *rec)
{
	uint64_t q = p->shuffle ? fs_run_perm(pos, p->nsamples, p->key, p->half_bits) : pos;
	/* the last file whose prefix is <= q */
	uint32_t lo = 0, hi = p->nfiles; /* prefix[lo] <= q < prefix[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->prefix[mid] <= q)
			lo = mid;
		else
			hi = mid;
	}
	*file = p->files[lo];
	*rec = (uint32_t)(q - p->prefix[lo]);
}

/* Open every file of the dataset once (shared by the reader threads), when
 * the open-file limit allows; otherwise each sample opens its file. */
int *fs_run_open_all(const struct fs_run_opts *o, int dirfd, char *why, size_t whylen)
{
	const struct fs_dataset *ds = o->ds;
	int *fds = malloc((ds->nfiles ? ds->nfiles : 1) * sizeof *fds);
	if (!fds) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < ds->nfiles; i++)
		fds[i] = -1;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && ds->nfiles + 256 > rl.rlim_cur)
		return fds; /* too many files: open per sample */
	for (uint32_t i = 0; i < ds->nfiles && !fs_bench_interrupt; i++) { /* Ctrl-C: the epoch stops at once */
		if (!ds->files[i].nrecs)
			continue;
		fds[i] = fs_bench_open_read(dirfd, o->dir, ds->files[i].path, o->direct, &fs_bench_interrupt, why,
					    whylen);
		if (fds[i] < 0) {
			while (i-- > 0)
				if (fds[i] >= 0)
					close(fds[i]);
			free(fds);
			return NULL;
		}
	}
	return fds;
}

void fs_run_close_all(const struct fs_dataset *ds, int *fds)
{
	for (uint32_t i = 0; fds && i < ds->nfiles; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}
