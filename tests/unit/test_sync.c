/* sync.c: the wait on other ranks seen at the step boundaries, on hand-made
 * step series whose waits are known by construction. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/sync.h"
#include "check.h"

#define K 100
#define SKEW 0.1
#define MATCH 0.9

/* A rank's steps: end[k] = start + k * len + shift (+ jitter on two steps of three). */
struct series {
	double end[K + 32], wait[K + 32], compute[K + 32];
	struct fs_rank_steps r;
};

static void make(struct series *s, long n, double start, double len, double wait, double shift, double jitter)
{
	CHECK(n <= (long)(sizeof s->end / sizeof s->end[0]));
	if (n > (long)(sizeof s->end / sizeof s->end[0]))
		n = (long)(sizeof s->end / sizeof s->end[0]);
	for (long k = 0; k < n; k++) {
		s->end[k] = start + (double)(k + 1) * len + shift + (k % 3 ? jitter : 0);
		s->wait[k] = wait;
		s->compute[k] = len - wait;
	}
	s->r = (struct fs_rank_steps){s->end, s->wait, s->compute, n};
}

/* Two ranks of DDP: rank 0 waits 0.5 s for its data and computes 0.1 s;
 * rank 1 has its data at once (0.01 s) and spends the rest, 0.49 s, in the
 * step waiting for rank 0's gradients. */
static void test_two_in_step(void)
{
	static struct series a, b;
	make(&a, K, 10, 0.6, 0.5, 0, 0);
	make(&b, K, 10, 0.6, 0.01, 0, 0.002); /* ends 2 ms apart on two steps of three */
	struct fs_rank_steps r[2] = {a.r, b.r};
	double wait[2] = {0, 0};
	struct fs_sync s;
	CHECK(fs_sync_ranks(r, 2, SKEW, MATCH, &s, wait));
	CHECK(s.synced);
	CHECK_INT(s.steps, K);
	CHECK_NEAR(s.match_share, 1, 1e-12);
	CHECK_NEAR(wait[0], 0, 1e-9);
	CHECK_NEAR(wait[1], K * (0.59 - 0.1), 1e-9);
	CHECK_NEAR(s.skew_median_s, 0.002, 1e-9);
	CHECK_NEAR(s.skew_p95_s, 0.002, 1e-9);
	CHECK_NEAR(s.step_median_s, 0.6, 1e-12);
}

/* The same ranks, but rank 1's steps end a third of a step later than rank
 * 0's: two jobs that do not synchronize. Nothing is added. */
static void test_out_of_step(void)
{
	static struct series a, b;
	make(&a, K, 10, 0.6, 0.5, 0, 0);
	make(&b, K, 10, 0.6, 0.01, 0.2, 0);
	struct fs_rank_steps r[2] = {a.r, b.r};
	double wait[2] = {1, 2};
	struct fs_sync s;
	CHECK(!fs_sync_ranks(r, 2, SKEW, MATCH, &s, wait));
	CHECK(!s.synced);
	CHECK_INT(s.steps, K); /* they match within half a step ... */
	CHECK_NEAR(s.skew_median_s, 0.2, 1e-9); /* ... but a third of a step apart */
	CHECK_NEAR(wait[0], 1, 0);
	CHECK_NEAR(wait[1], 2, 0);
	/* steps of other lengths (0.5 s against 0.6 s): their ends drift
	 * through each other's, a step of rank 1 is always within half a step
	 * of one of rank 0's, but the skew is far above a tenth of a step */
	make(&b, K + 20, 10, 0.5, 0.01, 0, 0);
	r[1] = b.r;
	CHECK(!fs_sync_ranks(r, 2, SKEW, MATCH, &s, wait));
	CHECK(s.skew_median_s > SKEW * 0.6);
	CHECK_NEAR(wait[1], 2, 0);
}

/* A window that cuts the ranks differently: rank 1 has 5 more steps at the
 * start. They are matched by their ends, not by their index. */
static void test_window_cut(void)
{
	static struct series a, b;
	make(&a, K, 13, 0.6, 0.5, 0, 0);
	make(&b, K + 5, 10, 0.6, 0.01, 0, 0);
	struct fs_rank_steps r[2] = {a.r, b.r};
	double wait[2] = {0, 0};
	struct fs_sync s;
	CHECK(fs_sync_ranks(r, 2, SKEW, MATCH, &s, wait));
	CHECK_INT(s.steps, K);
	CHECK_NEAR(wait[1], K * 0.49, 1e-9);
	CHECK_NEAR(s.skew_median_s, 0, 1e-9);
}

/* Four ranks, rank 2 the slow one (0.4 s of input, 0.2 s of its own work);
 * the others compute 0.2 s and wait the rest of the 0.6 s step. The
 * reference (rank 0) need not be the slow one. */
static void test_four(void)
{
	static struct series s4[4];
	for (int i = 0; i < 4; i++)
		make(&s4[i], K, 10, 0.6, i == 2 ? 0.4 : 0.05, 0, 0.001 * i);
	struct fs_rank_steps r[4];
	for (int i = 0; i < 4; i++)
		r[i] = s4[i].r;
	double wait[4] = {0};
	struct fs_sync s;
	CHECK(fs_sync_ranks(r, 4, SKEW, MATCH, &s, wait));
	for (int i = 0; i < 4; i++)
		CHECK_NEAR(wait[i], i == 2 ? 0 : K * (0.55 - 0.2), 1e-9);
	CHECK_NEAR(s.skew_p95_s, 0.003, 1e-9);
}

/* Degenerate input: one rank, a rank without steps. */
static void test_degenerate(void)
{
	static struct series a;
	make(&a, K, 10, 0.6, 0.5, 0, 0);
	struct fs_rank_steps r[2] = {a.r, {NULL, NULL, NULL, 0}};
	double wait[2] = {0, 0};
	struct fs_sync s;
	CHECK(!fs_sync_ranks(r, 1, SKEW, MATCH, &s, wait));
	CHECK(!fs_sync_ranks(r, 2, SKEW, MATCH, &s, wait));
	CHECK(!s.synced && s.steps == 0);
	CHECK_NEAR(wait[0], 0, 0);
}

int main(void)
{
	test_two_in_step();
	test_out_of_step();
	test_window_cut();
	test_four();
	test_degenerate();
	return check_exit("test_sync");
}
