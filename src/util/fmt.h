/* fmt.h - units as feedscope prints them: sizes in IEC (KiB, MiB, GiB),
 * rates in SI per second (kB/s, MB/s, GB/s) as fio and iostat do, times in
 * s/ms/us with 3 significant digits. Each writes into out[cap] and returns out.
 * The unit helpers print "-" for a NaN or infinite value (a table cell). */
#ifndef FS_FMT_H
#define FS_FMT_H

#include <stddef.h>

char *fs_fmt_bytes(char *out, size_t cap, double bytes);
char *fs_fmt_rate(char *out, size_t cap, double bytes_per_s);
char *fs_fmt_time(char *out, size_t cap, double seconds);
/* 3 significant digits, no unit ("0.123", "12.3", "123", "1234"). */
char *fs_fmt_sig3(char *out, size_t cap, double x);

/* For numbers inside sentences (evidence, recommendations): x with
 * `decimals` digits after the point (fixed) or `digits` significant digits
 * (sig, like %g), then suffix ("12%", " cores"); "unknown", without the
 * suffix, when x is NaN or infinite. Never prints "nan" or "inf". */
char *fs_fmt_fixed(char *out, size_t cap, double x, int decimals, const char *suffix);
char *fs_fmt_sig(char *out, size_t cap, double x, int digits, const char *suffix);

#endif
