#include "util/fmt.h"

#include <math.h>
#include <stdio.h>

char *fs_fmt_sig3(char *out, size_t cap, double x)
{
	if (!isfinite(x))
		snprintf(out, cap, "-");
	else if (fabs(x) >= 1000)
		snprintf(out, cap, "%.0f", x);
	else
		snprintf(out, cap, "%.3g", x);
	return out;
}

static char *scaled(char *out, size_t cap, double x, double base, const char *const *units, int n)
{
	if (!isfinite(x)) {
		snprintf(out, cap, "-");
		return out;
	}
	int i = 0;
	while (i < n - 1 && fabs(x) >= base * 0.9995) {
		x /= base;
		i++;
	}
	char num[32];
	snprintf(out, cap, "%s %s", fs_fmt_sig3(num, sizeof num, x), units[i]);
	return out;
}

char *fs_fmt_bytes(char *out, size_t cap, double bytes)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	return scaled(out, cap, bytes, 1024, u, 6);
}

char *fs_fmt_rate(char *out, size_t cap, double bytes_per_s)
{
	static const char *const u[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
	return scaled(out, cap, bytes_per_s, 1000, u, 5);
}

char *fs_fmt_time(char *out, size_t cap, double s)
{
	char num[32];
	if (!isfinite(s))
		snprintf(out, cap, "-");
	else if (fabs(s) >= 1 || s == 0)
		snprintf(out, cap, "%s s", fs_fmt_sig3(num, sizeof num, s));
	else if (fabs(s) >= 1e-3)
		snprintf(out, cap, "%s ms", fs_fmt_sig3(num, sizeof num, s * 1e3));
	else
		snprintf(out, cap, "%s µs", fs_fmt_sig3(num, sizeof num, s * 1e6));
	return out;
}

char *fs_fmt_fixed(char *out, size_t cap, double x, int decimals, const char *suffix)
{
	if (!isfinite(x))
		snprintf(out, cap, "unknown");
	else
		snprintf(out, cap, "%.*f%s", decimals, x, suffix ? suffix : "");
	return out;
}

char *fs_fmt_sig(char *out, size_t cap, double x, int digits, const char *suffix)
{
	if (!isfinite(x))
		snprintf(out, cap, "unknown");
	else
		snprintf(out, cap, "%.*g%s", digits, x, suffix ? suffix : "");
	return out;
}
