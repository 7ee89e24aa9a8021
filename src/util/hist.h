/* hist.h - log-linear latency histograms (as fio's): values below 64 are
 * exact, above each power of two is split in 64 buckets, so any value is
 * kept within 1/64 (1.6%). Percentiles are cheap; histograms of threads,
 * epochs or MPI ranks merge by adding buckets. Values are unsigned (ns). */
#ifndef FS_HIST_H
#define FS_HIST_H

#include <stdint.h>

#define FS_HIST_SUB 64
#define FS_HIST_BUCKETS (59 * FS_HIST_SUB)

struct fs_hist {
	uint64_t count, sum, min, max;
	uint64_t b[FS_HIST_BUCKETS];
};

void fs_hist_init(struct fs_hist *h);
void fs_hist_add(struct fs_hist *h, uint64_t v);
void fs_hist_merge(struct fs_hist *dst, const struct fs_hist *src);

/* The value below which p percent of the values fall (0 <= p <= 100): the
 * middle of the bucket that holds it (exact below 64). 0 when empty. */
uint64_t fs_hist_percentile(const struct fs_hist *h, double p);

/* The bucket index of v, and the smallest value bucket i holds (for
 * serialising and tests). */
int fs_hist_bucket(uint64_t v);
uint64_t fs_hist_bucket_low(int i);

#endif
