/* procstat - parse /proc/PID/stat, /proc/PID/io, schedstat; compute rates. */
#include "source/procstat.h"

#include <math.h>
#include <string.h>

#include "util/parse.h"

/* One number of /proc/PID/stat: most are unsigned and some reach 2^64 - 1
 * (rsslim unlimited, addresses), which no int64_t holds: those read as
 * INT64_MAX (none of them is kept); priority and nice may be negative. */
static bool scan_field(const char **p, int64_t *v)
{
	uint64_t u;
	if (fs_scan_i64(p, v))
		return true;
	if (!fs_scan_u64(p, &u))
		return false;
	*v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	return true;
}

/* Fill the fields we keep from the numbers after the state letter. Field
 * numbers are those of proc(5). Returns the last field number read. */
static int scan_fields(const char *p, struct fs_pstat *out)
{
	int field = 3;
	for (int f = 4; f <= 51; f++) {
		int64_t v;
		if (!scan_field(&p, &v))
			break;
		field = f;
		switch (f) {
		case 4: out->ppid = (int)v; break;
		case 10: out->minflt = (uint64_t)v; break;
		case 12: out->majflt = (uint64_t)v; break;
		case 14: out->utime = (uint64_t)v; break;
		case 15: out->stime = (uint64_t)v; break;
		case 20: out->num_threads = v; break;
		case 22: out->starttime = (uint64_t)v; break;
		case 24: out->rss_pages = v; break;
		case 42: out->blkio_ticks = (uint64_t)v; break;
		case 50: out->env_start = (uint64_t)v; break;
		case 51: out->env_end = (uint64_t)v; break;
		default: break;
		}
	}
	return field;
}

bool fs_pstat_parse(const char *text, struct fs_pstat *out)
{
	memset(out, 0, sizeof *out);
	const char *p = text;
	int64_t pid;
	if (!fs_scan_i64(&p, &pid))
		return false;
	out->pid = (int)pid;
	const char *open = strchr(p, '(');
	const char *close = strrchr(p, ')');
	if (!open || !close || close < open)
		return false;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof out->comm)
		n = sizeof out->comm - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return false;
	out->state = *p++;
	int last = scan_fields(p, out);
	out->have_blkio = last >= 42;
	return last >= 24;
}

bool fs_pio_parse(const char *text, struct fs_pio *out)
{
	static const char *const keys[] = {"rchar", "wchar", "read_bytes", "write_bytes"};
	uint64_t v[4];
	bool found[4];
	if (fs_scan_keyed(text, keys, 4, v, found) != 4)
		return false;
	out->rchar = v[0];
	out->wchar = v[1];
	out->read_bytes = v[2];
	out->write_bytes = v[3];
	return true;
}

bool fs_schedstat_parse(const char *text, struct fs_schedstat *out)
{
	const char *p = text;
	out->slices = 0;
	if (!fs_scan_u64(&p, &out->run_ns) || !fs_scan_u64(&p, &out->wait_ns))
		return false;
	fs_scan_u64(&p, &out->slices);
	return true;
}

/* The value of a "Key:   N kB" line whose key ends at *p (past the ':'), in
 * bytes; false unless the line is exactly that and fits in int64_t. */
static bool scan_kib_line(const char *p, int64_t *bytes)
{
	uint64_t kib;
	if (!fs_scan_u64(&p, &kib) || kib > (uint64_t)INT64_MAX / 1024)
		return false;
	while (*p == ' ')
		p++;
	if (strncmp(p, "kB", 2) != 0 || (p[2] != '\n' && p[2] != '\0'))
		return false;
	*bytes = (int64_t)(kib * 1024);
	return true;
}

/* Store a line's value in *v, once: a second line of the same key (not what
 * any kernel writes) makes the figure untrustworthy. */
static void take_kib(const char *p, int64_t *v, int *seen)
{
	if ((*seen)++ == 0 && !scan_kib_line(p, v))
		*seen = 2;
}

/* The sum of two figures seen once each, when it fits. */
static bool sum2(const int64_t *v, const int *seen, int a, int b, int64_t *out)
{
	bool ok = seen[a] == 1 && seen[b] == 1 && v[a] <= INT64_MAX - v[b];
	*out = ok ? v[a] + v[b] : 0;
	return ok;
}

bool fs_psmaps_parse(const char *text, struct fs_psmaps *out)
{
	enum { PSS, SH_CLEAN, SH_DIRTY, PR_CLEAN, PR_DIRTY, SWAP, PSS_SHMEM, NKEYS };
	static const char *const keys[NKEYS] = {"Pss:", "Shared_Clean:", "Shared_Dirty:", "Private_Clean:",
						"Private_Dirty:", "Swap:", "Pss_Shmem:"};
	int64_t v[NKEYS] = {0};
	int seen[NKEYS] = {0};
	memset(out, 0, sizeof *out);
	for (const char *line = text; line && *line;) {
		for (int i = 0; i < NKEYS; i++) {
			size_t n = strlen(keys[i]);
			if (!strncmp(line, keys[i], n))
				take_kib(line + n, &v[i], &seen[i]);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	out->have_pss = seen[PSS] == 1;
	out->pss_bytes = out->have_pss ? v[PSS] : 0;
	out->have_shared = sum2(v, seen, SH_CLEAN, SH_DIRTY, &out->shared_bytes);
	out->have_private = sum2(v, seen, PR_CLEAN, PR_DIRTY, &out->private_bytes);
	out->have_swap = seen[SWAP] == 1;
	out->swap_bytes = out->have_swap ? v[SWAP] : 0;
	out->have_shmem = seen[PSS_SHMEM] == 1;
	out->shmem_bytes = out->have_shmem ? v[PSS_SHMEM] : 0;
	return out->have_pss;
}

static double per_s(uint64_t a, uint64_t b, double dt_s)
{
	return (double)fs_counter_delta(a, b) / dt_s;
}

void fs_pio_add(struct fs_pio *sum, const struct fs_pio *x)
{
	sum->rchar += x->rchar;
	sum->wchar += x->wchar;
	sum->read_bytes += x->read_bytes;
	sum->write_bytes += x->write_bytes;
}

static void unreap_one(uint64_t *cur, uint64_t prev, uint64_t reaped)
{
	if (reaped && *cur >= prev && *cur - prev >= reaped)
		*cur -= reaped;
}

void fs_pio_unreap(struct fs_pio *cur, const struct fs_pio *prev, const struct fs_pio *reaped)
{
	unreap_one(&cur->rchar, prev->rchar, reaped->rchar);
	unreap_one(&cur->wchar, prev->wchar, reaped->wchar);
	unreap_one(&cur->read_bytes, prev->read_bytes, reaped->read_bytes);
	unreap_one(&cur->write_bytes, prev->write_bytes, reaped->write_bytes);
}

void fs_prates_compute(const struct fs_pcounters *prev, const struct fs_pcounters *curr,
		       double dt_s, long clk_tck, struct fs_prates *out)
{
	out->cpu_pct = out->sys_pct = out->minflt_per_s = out->majflt_per_s = NAN;
	out->rchar_per_s = out->wchar_per_s = NAN;
	out->read_bytes_per_s = out->write_bytes_per_s = NAN;
	if (!(dt_s > 0) || clk_tck <= 0)
		return;
	out->cpu_pct = 100.0 * per_s(prev->cpu_ticks, curr->cpu_ticks, dt_s) / (double)clk_tck;
	out->sys_pct = 100.0 * per_s(prev->sys_ticks, curr->sys_ticks, dt_s) / (double)clk_tck;
	out->minflt_per_s = per_s(prev->minflt, curr->minflt, dt_s);
	out->majflt_per_s = per_s(prev->majflt, curr->majflt, dt_s);
	if (!prev->have_io || !curr->have_io)
		return;
	out->rchar_per_s = per_s(prev->io.rchar, curr->io.rchar, dt_s);
	out->wchar_per_s = per_s(prev->io.wchar, curr->io.wchar, dt_s);
	out->read_bytes_per_s = per_s(prev->io.read_bytes, curr->io.read_bytes, dt_s);
	out->write_bytes_per_s = per_s(prev->io.write_bytes, curr->io.write_bytes, dt_s);
}

double fs_thread_pct(double sum, double unit_per_s, double dt_s)
{
	if (!(dt_s > 0) || !(unit_per_s > 0))
		return NAN;
	return 100.0 * sum / unit_per_s / dt_s;
}
