/* devpath.h - which file system and which disks hold a path: the one
 * definition used by the disk source's mounts table, `probe` and the tests.
 *
 * A path's file system is found from statx(): its mount id names the
 * mountinfo line (exact for bind mounts, a shadowed mount point, btrfs
 * subvolumes), else its st_dev's MAJ:MIN does; mount-point prefixes are never
 * compared, so a chroot or container whose / is not in mountinfo works. The
 * file system's block device comes from MAJ:MIN through <sys>/dev/block; a
 * major-0 file system gets one through its layers (overlay: the upper dir,
 * else the first lower dir holding the path) or its source (/dev/..., btrfs).
 * Then stacked devices are followed down (dm-*, md*: <sys>/block/X/slaves;
 * loop*: <sys>/block/X/loop/backing_file) to the disks at the bottom. */
#ifndef FS_SOURCE_DEVPATH_H
#define FS_SOURCE_DEVPATH_H

#include <stdbool.h>

#include "source/disk.h"
#include "source/mountinfo.h"

#define FS_DEVPATH_DISKS_MAX 8
#define FS_DEVPATH_TEXT_MAX 512

struct fs_devpath {
	unsigned maj, min;                   /* the file system's device number (st_dev) */
	char majmin[24];                     /* "254:1" */
	bool have_mount;                     /* a mountinfo line was found (mount, root, source) */
	char mount[FS_DEVPATH_TEXT_MAX];     /* its mount point, as this process sees it */
	char root[FS_DEVPATH_TEXT_MAX];      /* the directory of the file system mounted there */
	char source[FS_DEVPATH_TEXT_MAX];    /* "/dev/vda1", "overlay", "srv:/export" */
	char fstype[64];                     /* from mountinfo, else statfs(); "" unknown */
	char device[FS_DISK_NAME_MAX];       /* the whole block device it is on ("dm-0", "loop0", "vda"); "" none */
	int ndisks;                          /* the disks under device (device itself when not stacked) */
	char disks[FS_DEVPATH_DISKS_MAX][FS_DISK_NAME_MAX];
};

/* Fill *out for path (stat()ed as given; /proc and /sys read under p's
 * roots; mi from fs_mountinfo_load, or NULL to load it here). Returns 0, or
 * -1 with errno when path cannot be stat()ed. A path on no block device
 * (tmpfs, nfs, an overlay whose layers this process cannot see) gives 0 with
 * device "" and no disks. */
int fs_devpath_of(const struct fs_paths *p, const struct fs_mountinfo *mi, const char *path,
		  struct fs_devpath *out);

/* The same from what stat told: maj:min and mount id (0: unknown), and rel
 * the path below the mount point when known, a directory's ending in '/'
 * ("" the mount's top directory; NULL: the mount itself, as a mountinfo line
 * describes it). For the mounts table and tests. Never fails; unknown parts
 * stay empty. */
void fs_devpath_from_dev(const struct fs_paths *p, const struct fs_mountinfo *mi, unsigned maj,
			 unsigned min, int mnt_id, const char *rel, struct fs_devpath *out);

/* The disks at the bottom of whole device dev (diskstats' name), following
 * slaves and loop backing files, into disks[max]; dev itself when it stands
 * on nothing. Returns how many. */
int fs_devpath_disks(const struct fs_paths *p, const char *dev, char disks[][FS_DISK_NAME_MAX],
		     int max);

/* disks joined with ',' into out[cap] ("" when none). Returns out. */
char *fs_devpath_disks_text(const struct fs_devpath *d, char *out, size_t cap);

#endif
