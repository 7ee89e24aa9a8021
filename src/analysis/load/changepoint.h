/* changepoint.h - where a multivariate series changes its level: binary
 * segmentation with the Schwarz criterion (changepoint.c; docs/verdicts.md
 * "Phases"). Pure. */
#ifndef FS_CHANGEPOINT_H
#define FS_CHANGEPOINT_H

#include <stdbool.h>

/* x: n rows of d values (row-major), each column already in units of its
 * own noise (divided by its standard deviation), no NaN. A cut at i starts
 * a segment at row i; allowed[i] says whether one may (NULL: anywhere).
 * Segments hold at least min_len rows. A cut is made while the best one
 * lowers the squared deviations from the segments' means by more than the
 * Schwarz penalty, (d + 1) ln n, and there are fewer than max_segments.
 * cuts gets them in order (room for max_segments - 1); returns how many. */
int fs_changepoints(const double *x, int n, int d, const bool *allowed, int min_len, int max_segments, int *cuts);

/* The median of v[0..m) (sorted in place); NaN when m is 0. */
double fs_changepoint_median(double *v, int m);

/* A column's noise: 1.4826 x the median absolute difference of successive
 * values / sqrt 2 (robust to a few level shifts and spikes), at least
 * floor. x is read with stride d from column c; NaN rows are skipped. */
double fs_changepoint_noise(const double *x, int n, int d, int c, double floor);

#endif
