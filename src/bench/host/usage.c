/* usage.c - CPU, faults and disk counters over a benchmark (usage.h). */
#include "bench/host/usage.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "source/devpath.h"
#include "util/clock.h"
#include "util/parse.h"
#include "render/fio_json.h"
#include "util/pfile.h"

static void rusage_now(double *usr, double *sys, long *ctx, long *majf, long *minf)
{
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	getrusage(RUSAGE_SELF, &ru);
	*usr = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	*ctx = ru.ru_nvcsw + ru.ru_nivcsw;
	*majf = ru.ru_majflt;
	*minf = ru.ru_minflt;
}

/* Read diskstats once; each of u's disks found gets its counters in c0 or c1. */
static void read_disks(struct fs_usage *u, int at_end)
{
	struct fs_paths p;
	fs_paths_from_env(&p);
	char path[600];
	struct fs_buf b = {0};
	if (fs_read_file(fs_proc_path(path, sizeof path, &p, "diskstats"), &b) < 0) {
		fs_buf_free(&b);
		return;
	}
	for (char *line = b.data, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		unsigned maj, min;
		char name[FS_DISK_NAME_MAX];
		struct fs_disk_counters c;
		if (!fs_disk_parse_line(line, &maj, &min, name, sizeof name, &c))
			continue;
		for (int i = 0; i < u->ndisks; i++) {
			struct fs_usage_disk *d = &u->disk[i];
			if (strcmp(d->name, name))
				continue;
			if (!at_end) {
				d->c0 = c;
				d->have = 1;
			} else if (d->have) {
				d->c1 = c;
				d->have = 2;
			}
		}
	}
	fs_buf_free(&b);
}

static void add_disk(struct fs_usage *u, const char *name)
{
	if (!name[0] || u->ndisks == FS_USAGE_DISKS_MAX)
		return;
	for (int i = 0; i < u->ndisks; i++)
		if (!strcmp(u->disk[i].name, name))
			return;
	snprintf(u->disk[u->ndisks++].name, FS_DISK_NAME_MAX, "%s", name);
}

void fs_usage_begin(struct fs_usage *u, const char *dir)
{
	memset(u, 0, sizeof *u);
	struct fs_paths p;
	fs_paths_from_env(&p);
	struct fs_devpath dp;
	if (dir && fs_devpath_of(&p, NULL, dir, &dp) == 0) {
		add_disk(u, dp.device);
		for (int i = 0; i < dp.ndisks; i++)
			add_disk(u, dp.disks[i]);
	}
	read_disks(u, 0);
	rusage_now(&u->usr0_s, &u->sys0_s, &u->ctx0, &u->majf0, &u->minf0);
	u->t0_ns = fs_now_ns();
}

void fs_usage_end(struct fs_usage *u)
{
	u->t1_ns = fs_now_ns();
	double usr, sys;
	long ctx, majf, minf;
	rusage_now(&usr, &sys, &ctx, &majf, &minf);
	u->usr_s = usr - u->usr0_s;
	u->sys_s = sys - u->sys0_s;
	u->ctx = ctx - u->ctx0;
	u->majf = majf - u->majf0;
	u->minf = minf - u->minf0;
	read_disks(u, 1);
}

void fs_usage_disk_util(const struct fs_usage *u, int i, struct fs_usage_disk_util *o)
{
	memset(o, 0, sizeof *o);
	const struct fs_usage_disk *d = &u->disk[i];
	if (d->have != 2)
		return;
	/* diskstats' 32-bit counters wrap on some kernels: a wrap-aware difference */
	o->read_ios = fs_counter_delta(d->c0.reads, d->c1.reads);
	o->write_ios = fs_counter_delta(d->c0.writes, d->c1.writes);
	o->read_merges = fs_counter_delta(d->c0.reads_merged, d->c1.reads_merged);
	o->write_merges = fs_counter_delta(d->c0.writes_merged, d->c1.writes_merged);
	o->read_ticks = fs_counter_delta(d->c0.read_ms, d->c1.read_ms);
	o->write_ticks = fs_counter_delta(d->c0.write_ms, d->c1.write_ms);
	o->in_queue = fs_counter_delta(d->c0.weighted_ms, d->c1.weighted_ms);
	double span_ms = (double)(u->t1_ns - u->t0_ns) / 1e6;
	double busy = (double)fs_counter_delta(d->c0.io_ms, d->c1.io_ms);
	o->util_pct = span_ms > 0 ? (busy > span_ms ? 100.0 : busy / span_ms * 100) : 0;
}

int fs_usage_fio_disks(const struct fs_usage *u, struct fs_fio_disk *out)
{
	int n = 0;
	for (int i = 0; i < u->ndisks; i++) {
		if (u->disk[i].have != 2)
			continue;
		struct fs_usage_disk_util x;
		fs_usage_disk_util(u, i, &x);
		out[n++] = (struct fs_fio_disk){.name = u->disk[i].name, .read_ios = x.read_ios, .write_ios = x.write_ios,
						.read_merges = x.read_merges, .write_merges = x.write_merges,
						.read_ticks = x.read_ticks, .write_ticks = x.write_ticks,
						.in_queue = x.in_queue, .util_pct = x.util_pct};
	}
	return n;
}

void fs_usage_cpu_pct(const struct fs_usage *u, double *usr_pct, double *sys_pct)
{
	double span = (double)(u->t1_ns - u->t0_ns) / 1e9;
	*usr_pct = span > 0 ? u->usr_s / span * 100 : 0;
	*sys_pct = span > 0 ? u->sys_s / span * 100 : 0;
}
