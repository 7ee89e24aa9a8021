/* sync.c - waiting on other ranks from the step boundaries (sync.h). */
#include "analysis/load/sync.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double fs_quantile(double *x, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(x, n, sizeof *x, cmp_double);
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (pos - (double)lo) * (x[lo + 1] - x[lo]);
}

/* The index of r's step whose end is nearest t (r->n > 0; ends ascending). */
static long nearest(const struct fs_rank_steps *r, double t)
{
	long lo = 0, hi = r->n - 1;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (r->end[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && fabs(r->end[lo - 1] - t) <= fabs(r->end[lo] - t))
		lo--;
	return lo;
}

bool fs_sync_ranks(const struct fs_rank_steps *r, int n, double max_skew, double min_match, struct fs_sync *s,
		   double *wait_s)
{
	memset(s, 0, sizeof *s);
	s->skew_median_s = s->skew_p95_s = s->step_median_s = NAN;
	if (n < 2 || r[0].n <= 0)
		return false;
	for (int i = 1; i < n; i++)
		if (r[i].n <= 0)
			return false;
	long n0 = r[0].n;
	double *len = malloc((size_t)n0 * sizeof *len);
	double *skew = malloc((size_t)n0 * sizeof *skew);
	long *match = malloc((size_t)n0 * (size_t)n * sizeof *match); /* [k * n + i] */
	if (!len || !skew || !match) {
		free(len);
		free(skew);
		free(match);
		return false;
	}
	for (long k = 0; k < n0; k++)
		len[k] = r[0].wait[k] + r[0].compute[k];
	memcpy(skew, len, (size_t)n0 * sizeof *skew);
	s->step_median_s = fs_quantile(skew, (size_t)n0, 0.5);
	/* a step of another rank belongs to step k when it ends within half
	 * a step of it: in step, the ends are far closer; out of step, they
	 * fall anywhere */
	double half = s->step_median_s / 2;
	long m = 0;
	for (long k = 0; k < n0; k++) {
		double lo = r[0].end[k], hi = lo;
		bool all = true;
		for (int i = 0; i < n && all; i++) {
			long j = i == 0 ? k : nearest(&r[i], r[0].end[k]);
			all = fabs(r[i].end[j] - r[0].end[k]) <= half;
			match[m * n + i] = j;
			lo = fmin(lo, r[i].end[j]);
			hi = fmax(hi, r[i].end[j]);
		}
		if (all)
			skew[m++] = hi - lo;
	}
	s->steps = m;
	s->match_share = (double)m / (double)n0;
	if (m > 0) {
		s->skew_p95_s = fs_quantile(skew, (size_t)m, 0.95);
		s->skew_median_s = fs_quantile(skew, (size_t)m, 0.5);
	}
	s->synced = m > 0 && s->match_share >= min_match && s->skew_median_s <= max_skew * s->step_median_s;
	if (s->synced) {
		for (long k = 0; k < m; k++) {
			double least = INFINITY;
			for (int i = 0; i < n; i++)
				least = fmin(least, r[i].compute[match[k * n + i]]);
			for (int i = 0; i < n; i++)
				wait_s[i] += fmax(0, r[i].compute[match[k * n + i]] - least);
		}
	}
	free(len);
	free(skew);
	free(match);
	return s->synced;
}
