/* numbers.h - the load room's small conversions of what a query gives: a
 * double as an int or a count, a loader's knob from meta, NaN as 0. */
#ifndef FS_LOAD_NUMBERS_H
#define FS_LOAD_NUMBERS_H

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "analysis/load/query.h"

/* v as an int, or dflt when it is NaN or out of int's range (a cast would
 * be undefined behaviour). */
static inline int to_int(double v, int dflt)
{
	return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* A count read as a double (NaN when its query failed, e.g. a table the run
 * file lacks): 0 unless it is a representable non-negative number. */
static inline long to_count(double v)
{
	return v >= 0 && v <= (double)LONG_MAX / 2 ? (long)v : 0;
}

static inline int loader_int(struct fs_q *q, const char *loader, const char *knob)
{
	char key[160];
	snprintf(key, sizeof key, "loader.%s.%s", loader, knob);
	return to_int(fs_q_meta_num(q, key), -1);
}

/* v, or 0 when it is NaN. */
static inline double value_or0(double v)
{
	return isnan(v) ? 0 : v;
}

#endif
