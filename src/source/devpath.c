/* devpath - a path's file system and disks (devpath.h). */
#include "source/devpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/pfile.h"

#define MAX_DEPTH 8 /* stacked devices and overlays inside overlays */

/* stat() a path: device, mount id (0 when the kernel does not say). */
static int stat_dev(const char *path, unsigned *maj, unsigned *min, int *mnt_id)
{
	struct statx sx;
	if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_MNT_ID, &sx) == 0) {
		*maj = sx.stx_dev_major;
		*min = sx.stx_dev_minor;
		*mnt_id = (sx.stx_mask & STATX_MNT_ID) && sx.stx_mnt_id <= INT_MAX ? (int)sx.stx_mnt_id : 0;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	*maj = major(st.st_dev);
	*min = minor(st.st_dev);
	*mnt_id = 0;
	return 0;
}

/* The mountinfo line of a file system: by mount id when known and listed
 * (*exact; its MAJ:MIN may differ from st_dev: an overlay gives the files of
 * a lower layer on another file system that layer's pseudo device, btrfs a
 * subvolume's), else a line of the same device (the same file system: its
 * type and source hold, its mount point does not; *exact only when the
 * mount id is unknown). */
static const struct fs_mountinfo_entry *find_entry(const struct fs_mountinfo *mi, unsigned maj,
						   unsigned min, int mnt_id, bool *exact)
{
	const struct fs_mountinfo_entry *e = mnt_id ? fs_mountinfo_by_id(mi, mnt_id) : NULL;
	*exact = true;
	if (e)
		return e;
	*exact = mnt_id == 0;
	return fs_mountinfo_by_dev(mi, maj, min);
}

static void add_disk(char disks[][FS_DISK_NAME_MAX], int max, int *n, const char *dev)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(disks[i], dev))
			return;
	if (*n < max)
		snprintf(disks[(*n)++], FS_DISK_NAME_MAX, "%s", dev);
}

/* "MAJ:MIN" in the file at path -> the whole device's name. */
static int dev_file_disk(const struct fs_paths *p, const char *path, char *dev, size_t cap)
{
	char text[64] = "";
	FILE *f = fopen(path, "r");
	unsigned maj, min;
	if (!f)
		return -1;
	int ok = fgets(text, sizeof text, f) && sscanf(text, "%u:%u", &maj, &min) == 2;
	fclose(f);
	return ok ? fs_disk_resolve(p, maj, min, dev, cap) : -1;
}

/* A loop device's backing file's whole device, or -1. */
static int loop_backing(const struct fs_paths *p, const char *sysname, char *dev, size_t cap)
{
	char path[PATH_MAX], file[PATH_MAX] = "";
	snprintf(path, sizeof path, "%s/block/%s/loop/backing_file", p->sys, sysname);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	bool got = fgets(file, sizeof file, f) != NULL;
	fclose(f);
	file[strcspn(file, "\n")] = '\0';
	unsigned maj, min;
	int id;
	if (!got || !file[0] || stat_dev(file, &maj, &min, &id) < 0)
		return -1; /* gone, or a path this process cannot see */
	return fs_disk_resolve(p, maj, min, dev, cap);
}

static void walk(const struct fs_paths *p, const char *dev, int depth, char disks[][FS_DISK_NAME_MAX],
		 int max, int *n)
{
	char sysname[FS_DISK_NAME_MAX], path[PATH_MAX], below[FS_DISK_NAME_MAX];
	snprintf(sysname, sizeof sysname, "%s", dev);
	for (char *c = sysname; *c; c++)
		if (*c == '/')
			*c = '!';
	bool stacked = false;
	if (depth < MAX_DEPTH) {
		snprintf(path, sizeof path, "%s/block/%s/slaves", p->sys, sysname);
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char devfile[PATH_MAX + 300];
			if (e->d_name[0] == '.')
				continue;
			snprintf(devfile, sizeof devfile, "%s/%.255s/dev", path, e->d_name);
			if (dev_file_disk(p, devfile, below, sizeof below) == 0 && strcmp(below, dev)) {
				walk(p, below, depth + 1, disks, max, n);
				stacked = true;
			}
		}
		if (d)
			closedir(d);
		if (loop_backing(p, sysname, below, sizeof below) == 0 && strcmp(below, dev)) {
			walk(p, below, depth + 1, disks, max, n);
			stacked = true;
		}
	}
	if (!stacked)
		add_disk(disks, max, n, dev);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int fs_devpath_disks(const struct fs_paths *p, const char *dev, char disks[][FS_DISK_NAME_MAX], int max)
{
	int n = 0;
	if (dev && *dev)
		walk(p, dev, 0, disks, max, &n);
	qsort(disks, (size_t)n, FS_DISK_NAME_MAX, by_name); /* readdir's order is no order */
	return n;
}

static void fill(const struct fs_paths *p, const struct fs_mountinfo *mi,
		 const struct fs_mountinfo_entry *e, bool exact, unsigned maj, unsigned min,
		 const char *rel, int depth, struct fs_devpath *out);

/* The whole device of an overlay layer directory (itself on any file system). */
static void layer_device(const struct fs_paths *p, const struct fs_mountinfo *mi, const char *dir,
			 int depth, char *dev, size_t cap)
{
	unsigned maj, min;
	int id;
	if (depth >= MAX_DEPTH || stat_dev(dir, &maj, &min, &id) < 0)
		return;
	struct fs_devpath *sub = calloc(1, sizeof *sub);
	if (!sub)
		return;
	bool exact;
	const struct fs_mountinfo_entry *e = find_entry(mi, maj, min, id, &exact);
	fill(p, mi, e, exact, maj, min, NULL, depth + 1, sub);
	snprintf(dev, cap, "%s", sub->device);
	free(sub);
}

/* Does dir/rel exist (rel "" or NULL: dir itself)? */
static bool layer_has(const char *dir, const char *rel)
{
	char path[PATH_MAX * 2];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, rel ? rel : "");
	return lstat(path, &st) == 0;
}

/* An overlay's device. For a path (rel): the device of the first layer
 * (upper, then the lowers in order) that holds it -- none when that is a
 * tmpfs; for a directory (rel ending in '/'), the upper layer's, where files
 * made in it go. For the mount itself (rel NULL), or a path no layer has:
 * the first layer on a block device. Layers this process cannot see give
 * nothing. */
static void overlay_device(const struct fs_paths *p, const struct fs_mountinfo *mi,
			   const struct fs_mountinfo_entry *e, const char *rel, int depth,
			   struct fs_devpath *out)
{
	static const size_t cap = PATH_MAX * 4;
	char *upper = malloc(cap), *lower = malloc(cap);
	char *layers[33];
	int nl = 0;
	if (!upper || !lower)
		goto done;
	if (fs_mountinfo_option(e, "upperdir", upper, cap) && upper[0])
		layers[nl++] = upper;
	if (!fs_mountinfo_option(e, "lowerdir", lower, cap))
		lower[0] = '\0';
	for (char *s = lower, *tok; nl < 33 && (tok = strsep(&s, ":"));)
		if (*tok)
			layers[nl++] = tok; /* "a::b": data-only layers after the empty one */
	bool dir = rel && (!*rel || rel[strlen(rel) - 1] == '/');
	for (int i = 0; rel && i < nl; i++)
		if ((dir && i == 0 && upper[0]) || layer_has(layers[i], rel)) {
			layer_device(p, mi, layers[i], depth, out->device, sizeof out->device);
			goto done;
		}
	for (int i = 0; i < nl && !out->device[0]; i++)
		layer_device(p, mi, layers[i], depth, out->device, sizeof out->device);
done:
	free(upper);
	free(lower);
}

static void fill(const struct fs_paths *p, const struct fs_mountinfo *mi,
		 const struct fs_mountinfo_entry *e, bool exact, unsigned maj, unsigned min,
		 const char *rel, int depth, struct fs_devpath *out)
{
	memset(out, 0, sizeof *out);
	out->maj = maj;
	out->min = min;
	snprintf(out->majmin, sizeof out->majmin, "%u:%u", maj, min);
	if (e && exact) {
		out->have_mount = true;
		snprintf(out->mount, sizeof out->mount, "%s", e->mount);
		snprintf(out->root, sizeof out->root, "%s", e->root);
	}
	if (e) {
		snprintf(out->source, sizeof out->source, "%s", e->source);
		snprintf(out->fstype, sizeof out->fstype, "%s", e->fstype);
	}
	if (maj != 0) {
		if (fs_disk_resolve(p, maj, min, out->device, sizeof out->device) < 0)
			out->device[0] = '\0'; /* vanished from sysfs */
	} else if (e && !strcmp(e->fstype, "overlay")) {
		overlay_device(p, mi, e, rel, depth, out);
	} else if (e && !strncmp(e->source, "/dev/", 5)) {
		struct stat st; /* btrfs and others: an anonymous st_dev, a real source */
		if (stat(e->source, &st) == 0 && S_ISBLK(st.st_mode) &&
		    fs_disk_resolve(p, major(st.st_rdev), minor(st.st_rdev), out->device,
				    sizeof out->device) < 0)
			out->device[0] = '\0';
	}
	out->ndisks = fs_devpath_disks(p, out->device, out->disks, FS_DEVPATH_DISKS_MAX);
}

void fs_devpath_from_dev(const struct fs_paths *p, const struct fs_mountinfo *mi, unsigned maj,
			 unsigned min, int mnt_id, const char *rel, struct fs_devpath *out)
{
	bool exact;
	const struct fs_mountinfo_entry *e = find_entry(mi, maj, min, mnt_id, &exact);
	fill(p, mi, e, exact, maj, min, rel, 0, out);
}

/* Names for statfs()'s f_type, for a file system mountinfo does not list. */
static const char *fstype_name(long type)
{
	static const struct {
		long magic;
		const char *name;
	} t[] = {{0xEF53, "ext4"},      {0x58465342, "xfs"},       {0x9123683E, "btrfs"},
		 {0x01021994, "tmpfs"},    {0x794C7630, "overlay"},   {0x6969, "nfs"},
		 {0x65735546, "fuse"},     {0x2FC12FC1, "zfs"},       {0x9FA0, "proc"},
		 {0x62656572, "sysfs"},    {0x4244, "hfs"},
		 {0xF2F52010, "f2fs"},     {0x858458F6, "ramfs"},     {0xFF534D42, "cifs"}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].magic == type)
			return t[i].name;
	return "";
}

int fs_devpath_of(const struct fs_paths *p, const struct fs_mountinfo *mi, const char *path,
		  struct fs_devpath *out)
{
	unsigned maj, min;
	int id;
	struct fs_mountinfo own = {0};
	if (stat_dev(path, &maj, &min, &id) < 0)
		return -1;
	if (!mi) {
		fs_mountinfo_load(p, &own); /* unreadable: no lines, devices still found */
		mi = &own;
	}
	bool exact;
	const struct fs_mountinfo_entry *e = find_entry(mi, maj, min, id, &exact);
	char real[PATH_MAX];
	const char *rel = NULL;
	struct stat st;
	if (e && exact && !strcmp(e->fstype, "overlay") && realpath(path, real) &&
	    stat(real, &st) == 0) {
		size_t n = strlen(e->mount);
		if (!strcmp(e->mount, "/"))
			rel = real + 1;
		else if (!strncmp(real, e->mount, n) && (real[n] == '/' || !real[n]))
			rel = real + n + (real[n] == '/');
		size_t len = strlen(real); /* a directory is told by its '/' */
		if (rel && S_ISDIR(st.st_mode) && len + 1 < sizeof real && (len == 0 || real[len - 1] != '/'))
			memcpy(real + len, "/", 2);
	}
	fill(p, mi, e, exact, maj, min, rel, 0, out);
	struct statfs sf;
	if (!out->fstype[0] && statfs(path, &sf) == 0)
		snprintf(out->fstype, sizeof out->fstype, "%s", fstype_name((long)sf.f_type));
	fs_mountinfo_free(&own);
	return 0;
}

char *fs_devpath_disks_text(const struct fs_devpath *d, char *out, size_t cap)
{
	size_t o = 0;
	if (cap)
		out[0] = '\0';
	for (int i = 0; i < d->ndisks && o < cap; i++) {
		int w = snprintf(out + o, cap - o, "%s%s", i ? "," : "", d->disks[i]);
		if (w < 0 || (size_t)w >= cap - o)
			break;
		o += (size_t)w;
	}
	return out;
}
