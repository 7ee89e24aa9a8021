/* noise.c - the noise of a mean step time: robust batch means over steps,
 * or over whole epochs (noise.h; docs/tune.md). */
#include "analysis/tune/noise.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define NOISE_BLOCKS 8
#define NOISE_MIN_BLOCKS 4
#define NOISE_EPOCHS 64

double fs_tune_step_noise(const double *end_s, double start_s, long first, long n, int round)
{
	if (round < 1)
		round = 1;
	long rounds = (n - first) / round;
	if (rounds < NOISE_MIN_BLOCKS)
		return NAN;
	int nb = rounds < NOISE_BLOCKS ? (int)rounds : NOISE_BLOCKS;
	double mean[NOISE_BLOCKS], dev[NOISE_BLOCKS];
	for (int b = 0; b < nb; b++) {
		long i0 = first + (long)b * rounds / nb * round, i1 = first + (long)(b + 1) * rounds / nb * round;
		double t0 = i0 > 0 ? end_s[i0 - 1] : start_s;
		mean[b] = (end_s[i1 - 1] - t0) / (double)(i1 - i0);
	}
	double med = median(mean, nb);
	if (!(med > 0))
		return NAN;
	for (int b = 0; b < nb; b++)
		dev[b] = fabs(mean[b] - med);
	/* 1.4826 × MAD estimates a normal spread's standard deviation */
	return 1.4826 * median(dev, nb) / sqrt((double)nb) / med;
}

double fs_tune_epoch_noise(const double *end_s, double start_s, const unsigned char *starts, long first, long last)
{
	/* the epochs: [b[k], b[k + 1]) */
	long b[NOISE_EPOCHS + 1];
	int ne = 0;
	for (long i = first; i <= last + 1 && ne <= NOISE_EPOCHS; i++)
		if (i == first || i == last + 1 || starts[i])
			b[ne++] = i;
	int K = ne - 1;
	if (K < 2 || K > NOISE_EPOCHS - 1 || b[ne - 1] != last + 1)
		return NAN;
	long shortest = b[1] - b[0];
	for (int k = 1; k < K; k++)
		if (b[k + 1] - b[k] < shortest)
			shortest = b[k + 1] - b[k];
	int nb = shortest < NOISE_BLOCKS ? (int)shortest : NOISE_BLOCKS;
	if (nb < 1)
		return NAN;
	/* block j of epoch k: its mean step, less block j's mean over the epochs */
	double m[NOISE_EPOCHS][NOISE_BLOCKS], r[NOISE_EPOCHS * NOISE_BLOCKS], all[NOISE_EPOCHS * NOISE_BLOCKS];
	for (int k = 0; k < K; k++) {
		long len = b[k + 1] - b[k];
		for (int j = 0; j < nb; j++) {
			long i0 = b[k] + j * len / nb, i1 = b[k] + (j + 1) * len / nb;
			double t0 = i0 > 0 ? end_s[i0 - 1] : start_s;
			m[k][j] = (end_s[i1 - 1] - t0) / (double)(i1 - i0);
			all[k * nb + j] = m[k][j];
		}
	}
	for (int j = 0; j < nb; j++) {
		double mean = 0;
		for (int k = 0; k < K; k++)
			mean += m[k][j] / K;
		for (int k = 0; k < K; k++)
			r[k * nb + j] = fabs(m[k][j] - mean);
	}
	double med = median(all, K * nb);
	if (!(med > 0))
		return NAN;
	/* residuals about K means lose a K-th of their spread */
	double sd = 1.4826 * median(r, K * nb) * sqrt((double)K / (K - 1));
	return sd / sqrt((double)(K * nb)) / med;
}
