/* clock.h - the two clocks feedscope uses. */
#ifndef FS_CLOCK_H
#define FS_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds: every interval and every `t` comes from it. */
uint64_t fs_now_ns(void);

/* CLOCK_REALTIME in nanoseconds: only for start_unix/end_unix in the run file. */
uint64_t fs_unix_ns(void);

/* CPU time used by the calling thread, in nanoseconds (a syscall: ~0.4 us). */
uint64_t fs_thread_cpu_ns(void);

#define FS_NS_PER_S 1000000000ull

#endif
