#include "util/hist.h"

#include <string.h>

void fs_hist_init(struct fs_hist *h)
{
	memset(h, 0, sizeof *h);
	h->min = UINT64_MAX;
}

int fs_hist_bucket(uint64_t v)
{
	if (v < FS_HIST_SUB)
		return (int)v;
	int msb = 63 - __builtin_clzll(v);
	int group = msb - 5; /* 1 for [64, 128) */
	int sub = (int)((v >> (msb - 6)) & (FS_HIST_SUB - 1));
	return group * FS_HIST_SUB + sub;
}

uint64_t fs_hist_bucket_low(int i)
{
	if (i < FS_HIST_SUB)
		return (uint64_t)i;
	int group = i / FS_HIST_SUB, sub = i % FS_HIST_SUB;
	int msb = group + 5;
	return ((uint64_t)FS_HIST_SUB + (uint64_t)sub) << (msb - 6);
}

void fs_hist_add(struct fs_hist *h, uint64_t v)
{
	h->b[fs_hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void fs_hist_merge(struct fs_hist *dst, const struct fs_hist *src)
{
	for (int i = 0; i < FS_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t fs_hist_percentile(const struct fs_hist *h, double p)
{
	if (!h->count)
		return 0;
	double want = p / 100.0 * (double)h->count;
	uint64_t rank = want <= 1 ? 1 : (uint64_t)(want + 0.999999);
	uint64_t seen = 0;
	for (int i = 0; i < FS_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			if (i < FS_HIST_SUB)
				return (uint64_t)i;
			uint64_t lo = fs_hist_bucket_low(i), hi = fs_hist_bucket_low(i + 1);
			uint64_t mid = lo + (hi - lo) / 2;
			return mid < h->min ? h->min : (mid > h->max ? h->max : mid);
		}
	}
	return h->max;
}
