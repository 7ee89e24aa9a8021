/* Log-linear histograms: bucket bounds, the 1/64 error bound, percentiles,
 * merging. */
#include <stdlib.h>

#include "check.h"
#include "util/hist.h"

int main(void)
{
	/* every value falls in its bucket, within 1/64 of the bucket's low end */
	uint64_t vals[] = {0, 1, 63, 64, 65, 127, 128, 1000, 4096, 123456789, 1ull << 40, UINT64_MAX / 3};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		int b = fs_hist_bucket(vals[i]);
		CHECK(b >= 0 && b < FS_HIST_BUCKETS);
		CHECK(fs_hist_bucket_low(b) <= vals[i]);
		CHECK(b + 1 >= FS_HIST_BUCKETS || fs_hist_bucket_low(b + 1) > vals[i]);
		CHECK((double)(vals[i] - fs_hist_bucket_low(b)) <= (double)vals[i] / 64.0);
	}
	/* bucket lows grow strictly */
	for (int b = 1; b < FS_HIST_BUCKETS; b++)
		if (fs_hist_bucket_low(b) <= fs_hist_bucket_low(b - 1)) {
			CHECK(!"bucket lows not increasing");
			break;
		}

	/* 1..100000: percentiles within 1.6% */
	struct fs_hist h, a, c;
	fs_hist_init(&h);
	fs_hist_init(&a);
	fs_hist_init(&c);
	for (uint64_t v = 1; v <= 100000; v++) {
		fs_hist_add(&h, v);
		fs_hist_add(v % 2 ? &a : &c, v);
	}
	CHECK_INT(h.count, 100000);
	CHECK_INT(h.min, 1);
	CHECK_INT(h.max, 100000);
	double ps[] = {50, 90, 99, 99.9};
	for (int i = 0; i < 4; i++) {
		double truth = ps[i] * 1000;
		CHECK_NEAR((double)fs_hist_percentile(&h, ps[i]), truth, truth / 64 + 1);
	}
	/* the top percentile is in the max's bucket and never beyond the max */
	CHECK(fs_hist_percentile(&h, 100) <= 100000);
	CHECK(fs_hist_percentile(&h, 100) >= fs_hist_bucket_low(fs_hist_bucket(100000)));
	fs_hist_merge(&a, &c);
	CHECK_INT(a.count, h.count);
	CHECK_INT(a.sum, h.sum);
	for (int i = 0; i < 4; i++)
		CHECK_INT(fs_hist_percentile(&a, ps[i]), fs_hist_percentile(&h, ps[i]));
	/* small exact values */
	struct fs_hist s;
	fs_hist_init(&s);
	for (int i = 0; i < 10; i++)
		fs_hist_add(&s, 7);
	fs_hist_add(&s, 30);
	CHECK_INT(fs_hist_percentile(&s, 50), 7);
	CHECK_INT(fs_hist_percentile(&s, 100), 30);
	struct fs_hist e;
	fs_hist_init(&e);
	CHECK_INT(fs_hist_percentile(&e, 50), 0);
	return check_exit("test_hist");
}
