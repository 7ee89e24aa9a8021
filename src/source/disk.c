/* disk - /proc/diskstats: iostat -x figures for every whole block device,
 * and, once at open, which file system and disks each mount holds
 * (devpath.h). Tables: disk, mounts.
 *
 * A device is whole when <sys>/block/<name> exists; partitions are never
 * recorded nor added to their disk. Devices never used since boot (idle
 * loop and ram devices) are skipped, as iostat does without -p ALL, until
 * they do I/O; once recorded they stay. A device that vanishes is forgotten;
 * when it comes back its first line is a new baseline. */
#include "source/disk.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/devpath.h"
#include "source/source.h"
#include "util/pfile.h"

/* One device line of diskstats, kept in the order diskstats lists them so
 * that the lookup of each line is one string compare in steady state. */
struct dev {
	char name[FS_DISK_NAME_MAX];
	bool whole;    /* <sys>/block/<name> exists (asked once per appearance) */
	bool have_prev;
	bool recorded; /* a row was emitted: keep emitting even while unused */
	bool seen_now; /* listed in this read */
	struct fs_disk_counters prev;
};

struct disk_state {
	struct fs_pfile stats;
	struct fs_buf buf;
	struct dev *devs;
	int ndevs, cap;
	uint64_t prev_ns;
	char sys_block[PATH_MAX]; /* "<sys>/block" */
};

/* Does <sys>/block/<name> exist? diskstats writes '/' where sysfs has '!'
 * ("cciss/c0d0" is /sys/block/cciss!c0d0). */
static bool is_whole(const struct disk_state *s, const char *name)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof path, "%s/%s", s->sys_block, name);
	if (n < 0 || (size_t)n >= sizeof path)
		return false;
	for (char *p = path + strlen(s->sys_block) + 1; *p; p++)
		if (*p == '/')
			*p = '!';
	struct stat st;
	return lstat(path, &st) == 0;
}

/* The entry for name: at *cursor when the order is unchanged, else found by
 * a scan, else inserted at *cursor (and its whole-ness asked of sysfs).
 * Advances *cursor past it. Returns NULL when out of memory. */
static struct dev *find_dev(struct disk_state *s, int *cursor, const char *name)
{
	int i = *cursor;
	if (i < s->ndevs && strcmp(s->devs[i].name, name) == 0) {
		*cursor = i + 1;
		return &s->devs[i];
	}
	for (i = 0; i < s->ndevs; i++) {
		if (strcmp(s->devs[i].name, name) == 0) {
			*cursor = i + 1;
			return &s->devs[i];
		}
	}
	if (s->ndevs == s->cap) {
		int want = s->cap ? 2 * s->cap : 16;
		struct dev *d = realloc(s->devs, (size_t)want * sizeof *d);
		if (!d)
			return NULL;
		s->devs = d;
		s->cap = want;
	}
	i = *cursor;
	memmove(&s->devs[i + 1], &s->devs[i], (size_t)(s->ndevs - i) * sizeof *s->devs);
	s->ndevs++;
	struct dev *d = &s->devs[i];
	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	d->whole = is_whole(s, name);
	*cursor = i + 1;
	return d;
}

/* Forget the devices this read did not list. */
static void drop_vanished(struct disk_state *s)
{
	int n = 0;
	for (int i = 0; i < s->ndevs; i++) {
		if (!s->devs[i].seen_now)
			continue;
		if (n != i)
			s->devs[n] = s->devs[i];
		s->devs[n++].seen_now = false;
	}
	s->ndevs = n;
}

static void emit_disk(const struct fs_source_ctx *ctx, const char *name,
		      const struct fs_disk_rates *r, uint64_t dt_ns)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_DISK, ctx->t);
	fs_row_text(&row, FS_DISK_device, name);
	fs_row_real(&row, FS_DISK_reads_per_s, r->reads_per_s);
	fs_row_real(&row, FS_DISK_read_bytes_per_s, r->read_bytes_per_s);
	fs_row_real(&row, FS_DISK_writes_per_s, r->writes_per_s);
	fs_row_real(&row, FS_DISK_write_bytes_per_s, r->write_bytes_per_s);
	fs_row_real(&row, FS_DISK_read_await_ms, r->read_await_ms);
	fs_row_real(&row, FS_DISK_write_await_ms, r->write_await_ms);
	fs_row_real(&row, FS_DISK_queue_depth, r->queue_depth);
	fs_row_real(&row, FS_DISK_util_pct, r->util_pct);
	fs_row_real(&row, FS_DISK_read_req_bytes, r->read_req_bytes);
	fs_row_real(&row, FS_DISK_write_req_bytes, r->write_req_bytes);
	fs_row_real(&row, FS_DISK_discard_bytes_per_s, r->discard_bytes_per_s);
	fs_row_real(&row, FS_DISK_flushes_per_s, r->flushes_per_s);
	fs_row_real(&row, FS_DISK_dt_s, (double)dt_ns / 1e9);
	fs_sink_row(ctx->sink, &row);
}

/* One parsed line: emit its row if due, then keep its counters. */
static void update_dev(struct disk_state *s, const struct fs_source_ctx *ctx, struct dev *d,
		       const struct fs_disk_counters *c)
{
	d->seen_now = true;
	if (!d->whole)
		return;
	if (d->have_prev && (d->recorded || !fs_disk_unused(c))) {
		struct fs_disk_rates r;
		uint64_t dt_ns = ctx->now_ns - s->prev_ns;
		fs_disk_compute(&d->prev, c, dt_ns, &r);
		emit_disk(ctx, d->name, &r, dt_ns);
		d->recorded = true;
	}
	d->prev = *c;
	d->have_prev = true;
}

static int disk_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct disk_state *s = state;
	if (fs_pfile_read(&s->stats, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->stats.path, strerror(errno));
		return FS_SOURCE_UNAVAILABLE;
	}
	int cursor = 0;
	for (const char *line = s->buf.data; line && *line;) {
		unsigned maj, min;
		char name[FS_DISK_NAME_MAX];
		struct fs_disk_counters c;
		struct dev *d;
		if (fs_disk_parse_line(line, &maj, &min, name, sizeof name, &c) &&
		    (d = find_dev(s, &cursor, name)))
			update_dev(s, ctx, d, &c);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	drop_vanished(s);
	s->prev_ns = ctx->now_ns;
	return FS_SOURCE_OK;
}

int fs_disk_resolve(const struct fs_paths *p, unsigned maj, unsigned min, char *dev, size_t cap)
{
	char link[PATH_MAX], target[PATH_MAX];
	if (maj == 0)
		return -1; /* an anonymous device: tmpfs, overlay, proc, nfs ... */
	snprintf(link, sizeof link, "%s/dev/block/%u:%u", p->sys, maj, min);
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return -1;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	/* .../block/vda for a disk, .../block/vda/vda1 for a partition */
	char *base = strrchr(target, '/');
	char part[PATH_MAX + 16];
	snprintf(part, sizeof part, "%s/partition", link);
	if (base && access(part, F_OK) == 0) {
		*base = '\0';
		base = strrchr(target, '/');
	}
	const char *name = base ? base + 1 : target;
	if (!*name || strlen(name) >= cap)
		return -1;
	for (size_t i = 0;; i++) {
		dev[i] = name[i] == '!' ? '/' : name[i];
		if (!name[i])
			break;
	}
	return 0;
}

static void emit_mount(const struct fs_source_ctx *ctx, const char *mount, const struct fs_devpath *d,
		       bool hidden)
{
	char disks[FS_DEVPATH_DISKS_MAX * FS_DISK_NAME_MAX];
	struct fs_row r;
	fs_row_init(&r, FS_T_MOUNTS, ctx->t);
	fs_row_text(&r, FS_MOUNTS_mount, mount);
	fs_row_text(&r, FS_MOUNTS_device, d->device[0] ? d->device : NULL);
	fs_row_text(&r, FS_MOUNTS_fstype, d->fstype[0] ? d->fstype : NULL);
	fs_row_text(&r, FS_MOUNTS_source, d->source[0] ? d->source : NULL);
	fs_row_text(&r, FS_MOUNTS_majmin, d->majmin);
	fs_row_text(&r, FS_MOUNTS_root, d->have_mount ? d->root : NULL);
	fs_row_text(&r, FS_MOUNTS_disks, d->ndisks ? fs_devpath_disks_text(d, disks, sizeof disks) : NULL);
	fs_row_int(&r, FS_MOUNTS_hidden, hidden);
	fs_sink_row(ctx->sink, &r);
}

/* One row of table mounts per line of <proc>/self/mountinfo, its device
 * found as fs_devpath finds a path's. When / is not a mount this process
 * sees (a chroot), one more row for "/" from stat("/") -- only with the real
 * /proc: stat() of / says nothing about a fixture tree. Unreadable mountinfo
 * gives no rows from it (the disk table does not need them). */
static void emit_mounts(const struct fs_source_ctx *ctx)
{
	struct fs_mountinfo mi;
	struct fs_devpath *d = malloc(sizeof *d);
	if (!d)
		return;
	bool readable = fs_mountinfo_load(ctx->paths, &mi) == 0;
	for (int i = 0; i < mi.n; i++) {
		const struct fs_mountinfo_entry *e = &mi.v[i];
		fs_devpath_from_dev(ctx->paths, &mi, e->maj, e->min, e->id, NULL, d);
		emit_mount(ctx, e->mount, d, e->hidden);
	}
	if (readable && !fs_mountinfo_has_root(&mi) && !strcmp(ctx->paths->proc, "/proc") &&
	    fs_devpath_of(ctx->paths, &mi, "/", d) == 0)
		emit_mount(ctx, "/", d, false);
	fs_mountinfo_free(&mi);
	free(d);
}

static void disk_close(void *state)
{
	struct disk_state *s = state;
	fs_pfile_close(&s->stats);
	fs_buf_free(&s->buf);
	free(s->devs);
	free(s);
}

static int disk_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct disk_state *s = calloc(1, sizeof *s);
	char path[PATH_MAX];
	if (!s || fs_pfile_init(&s->stats, fs_proc_path(path, sizeof path, ctx->paths,
							 "diskstats")) < 0) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	fs_sys_path(s->sys_block, sizeof s->sys_block, ctx->paths, "block");
	struct stat st;
	if (fs_pfile_read(&s->stats, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->stats.path, strerror(errno));
	} else if (stat(s->sys_block, &st) < 0) {
		snprintf(why, whylen, "no %s (cannot tell disks from partitions): %s",
			 s->sys_block, strerror(errno));
	} else {
		emit_mounts(ctx);
		fs_sink_metaf(ctx->sink, "disk.sector_bytes", "%d", FS_DISK_SECTOR_BYTES);
		*state = s;
		return FS_SOURCE_OK;
	}
	disk_close(s);
	return FS_SOURCE_UNAVAILABLE;
}

const struct fs_source_ops fs_source_disk = {
	.abi = FS_SOURCE_ABI,
	.name = "disk",
	.machine = true,
	.open = disk_open,
	.sample = disk_sample,
	.close = disk_close,
};
