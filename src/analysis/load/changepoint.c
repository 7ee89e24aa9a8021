/* changepoint.c - binary segmentation of a multivariate series by the
 * Schwarz (Bayesian) information criterion: a cut is worth making when it
 * explains more of the series' squared deviation, in units of its noise,
 * than (d + 1) ln n, the cost of the d new means and the cut's place.
 * Pure. */
#include "analysis/load/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Squared deviation of rows [a, b) from their mean, over the d columns,
 * from prefix sums s1 (sum) and s2 (sum of squares), each (n + 1) x d. */
static double cost(const double *s1, const double *s2, int d, int a, int b)
{
	double c = 0, len = b - a;
	if (len <= 0)
		return 0;
	for (int j = 0; j < d; j++) {
		double sum = s1[b * d + j] - s1[a * d + j];
		double sq = s2[b * d + j] - s2[a * d + j];
		c += sq - sum * sum / len;
	}
	return c;
}

/* The best cut of [a, b): its gain, and where (-1: none allowed). */
static double best_cut(const double *s1, const double *s2, int d, const bool *allowed, int min_len, int a, int b,
		       int *at)
{
	double whole = cost(s1, s2, d, a, b), best = -1;
	*at = -1;
	for (int i = a + min_len; i <= b - min_len; i++) {
		if (allowed && !allowed[i])
			continue;
		double g = whole - cost(s1, s2, d, a, i) - cost(s1, s2, d, i, b);
		if (g > best) {
			best = g;
			*at = i;
		}
	}
	return best;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int fs_changepoints(const double *x, int n, int d, const bool *allowed, int min_len, int max_segments, int *cuts)
{
	if (n < 2 || d < 1 || max_segments < 2)
		return 0;
	if (min_len < 1)
		min_len = 1;
	double *s1 = calloc((size_t)(n + 1) * (size_t)d, sizeof *s1);
	double *s2 = calloc((size_t)(n + 1) * (size_t)d, sizeof *s2);
	if (!s1 || !s2) {
		free(s1);
		free(s2);
		return 0;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < d; j++) {
			double v = x[i * d + j];
			s1[(i + 1) * d + j] = s1[i * d + j] + v;
			s2[(i + 1) * d + j] = s2[i * d + j] + v * v;
		}
	double penalty = (d + 1) * log((double)n);
	int ncuts = 0;
	while (ncuts + 1 < max_segments) {
		/* the segments now: between the sorted cuts */
		int best_at = -1;
		double best = penalty;
		for (int s = 0; s <= ncuts; s++) {
			int a = s == 0 ? 0 : cuts[s - 1], b = s == ncuts ? n : cuts[s], at;
			double g = best_cut(s1, s2, d, allowed, min_len, a, b, &at);
			if (at >= 0 && g > best) {
				best = g;
				best_at = at;
			}
		}
		if (best_at < 0)
			break;
		cuts[ncuts++] = best_at;
		qsort(cuts, (size_t)ncuts, sizeof *cuts, cmp_int);
	}
	free(s1);
	free(s2);
	return ncuts;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double fs_changepoint_median(double *v, int m)
{
	if (m <= 0)
		return NAN;
	qsort(v, (size_t)m, sizeof *v, cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

double fs_changepoint_noise(const double *x, int n, int d, int c, double floor)
{
	double *diff = malloc((size_t)(n > 0 ? n : 1) * sizeof *diff);
	if (!diff)
		return floor;
	int m = 0;
	double prev = NAN;
	for (int i = 0; i < n; i++) {
		double v = x[i * d + c];
		if (isnan(v))
			continue;
		if (!isnan(prev))
			diff[m++] = fabs(v - prev);
		prev = v;
	}
	double sigma = m > 0 ? 1.4826 * fs_changepoint_median(diff, m) / sqrt(2.0) : 0;
	free(diff);
	return fmax(sigma, floor);
}
