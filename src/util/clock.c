#include "util/clock.h"

#include <time.h>

static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * FS_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t fs_now_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

uint64_t fs_unix_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}

uint64_t fs_thread_cpu_ns(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID);
}
