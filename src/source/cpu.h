/* cpu.h - /proc/stat counters and iostat's CPU percentages. */
#ifndef FS_SOURCE_CPU_H
#define FS_SOURCE_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* One "cpu" or "cpuN" line of /proc/stat, in USER_HZ ticks. */
struct fs_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
};

struct fs_cpu_pct {
	double user, nice, system, iowait, idle, steal, guest; /* NaN when no time passed */
};

/* Parse the numbers after "cpu"/"cpuN" (missing trailing fields are 0, as on
 * old kernels). Returns false when not even user/nice/system/idle are there. */
bool fs_cpu_parse_ticks(const char *p, struct fs_cpu_ticks *out);

/* iostat's percentages over prev -> curr: the total is user+nice+system+idle+
 * iowait+irq+softirq+steal (guest time is already inside user and nice and is
 * taken out of them); system includes irq and softirq. A field that went
 * backwards (iowait does, on some kernels) counts as 0. */
void fs_cpu_compute(const struct fs_cpu_ticks *prev, const struct fs_cpu_ticks *curr,
		    struct fs_cpu_pct *out);

#endif
