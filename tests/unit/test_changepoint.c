/* Where a series changes level (src/analysis/load/changepoint.c): the
 * Schwarz criterion's cuts on series whose truth is known by
 * construction, noise from a fixed-seed generator.
 *
 * - one level and noise: no cut, at any length (the false-split case);
 * - a step of 3 noise units after 100 of 300 rows: one cut, at row 100;
 * - two steps: two cuts, in order;
 * - cuts only where allowed (epoch starts): the nearest allowed row;
 * - min_len: a one-row spike is not a segment;
 * - max_segments bounds the cuts;
 * - the noise estimate: the successive differences' median, robust to one
 *   level shift, and the floor. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "analysis/load/changepoint.h"
#include "check.h"

/* A standard normal from a fixed-seed LCG (Box-Muller). */
static unsigned long long seed = 42;
static double unif(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((seed >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

int main(void)
{
	enum { N = 300, D = 2 };
	static double x[N * D];
	int cuts[8];

	/* one level: no cut over many seeds (noise alone never pays the
	 * penalty of (d + 1) ln n) */
	int false_cuts = 0;
	for (int trial = 0; trial < 50; trial++) {
		for (int i = 0; i < N * D; i++)
			x[i] = 5 + gauss();
		false_cuts += fs_changepoints(x, N, D, NULL, 3, 6, cuts);
	}
	CHECK(false_cuts == 0);
	/* a short series too */
	for (int i = 0; i < 10 * D; i++)
		x[i] = gauss();
	CHECK(fs_changepoints(x, 10, D, NULL, 2, 6, cuts) == 0);

	/* a step of 3 units in column 0 at row 100 */
	for (int i = 0; i < N; i++) {
		x[i * D] = (i >= 100 ? 3 : 0) + gauss();
		x[i * D + 1] = gauss();
	}
	int n = fs_changepoints(x, N, D, NULL, 3, 6, cuts);
	CHECK(n == 1);
	CHECK(n >= 1 && abs(cuts[0] - 100) <= 3);

	/* and another, down, at row 220: two cuts, in order */
	for (int i = 220; i < N; i++)
		x[i * D] -= 6;
	n = fs_changepoints(x, N, D, NULL, 3, 6, cuts);
	CHECK(n == 2);
	CHECK(n == 2 && abs(cuts[0] - 100) <= 3 && abs(cuts[1] - 220) <= 3);
	/* max_segments 2: the larger change alone */
	n = fs_changepoints(x, N, D, NULL, 3, 2, cuts);
	CHECK(n == 1 && abs(cuts[0] - 220) <= 3);

	/* only at allowed rows (epoch starts every 30 rows): the cuts land on
	 * the allowed rows nearest the changes (90 or 120; 210 or 240) */
	bool allowed[N] = {false};
	for (int i = 30; i < N; i += 30)
		allowed[i] = true;
	n = fs_changepoints(x, N, D, allowed, 1, 6, cuts);
	CHECK(n >= 2);
	for (int k = 0; k < n; k++)
		CHECK(allowed[cuts[k]]);

	/* a one-row spike of 8 units: not a segment of its own with min_len 10 */
	for (int i = 0; i < N * D; i++)
		x[i] = gauss();
	x[150 * D] += 8;
	n = fs_changepoints(x, N, D, NULL, 10, 6, cuts);
	CHECK(n == 0);

	/* the noise: sigma 1 estimated within 15%, robust to a level shift of
	 * 10 units at row 150, and floored */
	for (int i = 0; i < N; i++) {
		x[i * D] = (i >= 150 ? 10 : 0) + gauss();
		x[i * D + 1] = 0.001 * gauss();
	}
	double s0 = fs_changepoint_noise(x, N, D, 0, 0.02);
	CHECK(s0 > 0.85 && s0 < 1.15);
	CHECK(fs_changepoint_noise(x, N, D, 1, 0.02) == 0.02);
	/* NaN rows are skipped */
	x[10 * D] = NAN;
	CHECK(isfinite(fs_changepoint_noise(x, N, D, 0, 0.02)));
	return check_exit("test_changepoint");
}
