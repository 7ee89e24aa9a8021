/* test_devpath - the mountinfo parser and table (ugly lines, hidden mounts,
 * a chroot without "/"), and a path's devices: stacked devices on the
 * `stacked` fixture sysfs (dm on md on partitions, dm on a partition, a loop
 * device whose file is gone, a device gone from sysfs), a loop device and an
 * overlay on a temporary tree whose files are real, and this machine. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "source/devpath.h"
#include "source/mountinfo.h"

#define FIXTURE "tests/fixtures/disk/stacked/s0"

/* Parse a copy of text (the entry points into the copy, kept in buf). */
static bool parse(const char *text, char *buf, size_t cap, struct fs_mountinfo_entry *e)
{
	snprintf(buf, cap, "%s", text);
	return fs_mountinfo_parse_line(buf, e);
}

static void test_lines(void)
{
	char b[1024];
	struct fs_mountinfo_entry e;
	CHECK(parse("36 35 98:0 /mnt1 /mnt/my\\040data rw,noatime master:1 shared:2 - ext3 /dev/root "
		    "rw,errors=continue\n", b, sizeof b, &e));
	CHECK_INT(e.id, 36);
	CHECK_INT(e.parent, 35);
	CHECK_INT(e.maj, 98);
	CHECK_INT(e.min, 0);
	CHECK_STR(e.root, "/mnt1");
	CHECK_STR(e.mount, "/mnt/my data");
	CHECK_STR(e.fstype, "ext3");
	CHECK_STR(e.source, "/dev/root");
	CHECK_STR(e.super, "rw,errors=continue");

	/* no optional field; every optional field there is */
	CHECK(parse("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw", b, sizeof b, &e));
	CHECK_STR(e.mount, "/");
	CHECK_STR(e.source, "/dev/vda");
	CHECK(parse("50 27 0:44 / /a rw shared:3 master:7 propagate_from:2 unbindable - tmpfs t rw", b,
		    sizeof b, &e));
	CHECK_STR(e.fstype, "tmpfs");
	CHECK_STR(e.source, "t");

	/* escapes: tab, backslash, newline, a space in the source; "\999" stays */
	CHECK(parse("1 2 0:70 /r\\040t /a\\134b\\011c\\012d rw - tmpfs my\\040tmp rw", b, sizeof b, &e));
	CHECK_STR(e.root, "/r t");
	CHECK_STR(e.mount, "/a\\b\tc\nd");
	CHECK_STR(e.source, "my tmp");
	CHECK(parse("1 2 0:70 / /x\\999 rw - tmpfs t rw", b, sizeof b, &e));
	CHECK_STR(e.mount, "/x\\999");
	/* an old kernel without super options */
	CHECK(parse("1 2 0:70 / /a rw - tmpfs t", b, sizeof b, &e));
	CHECK_STR(e.super, "");

	const char *bad[] = {
		"1 2 0:70 / /a rw tmpfs tmpfs rw\n", /* no "-" */
		"1 2 070 / /a rw - tmpfs tmpfs rw\n", "1 2 0:70x / /a rw - tmpfs t rw",
		"1 2 :70 / /a rw - tmpfs t rw",      "x 2 0:70 / /a rw - tmpfs t rw",
		"1 2 0:70 / /a rw -\n",             "1 2 0:70 / /a rw - tmpfs\n",
		"1 2 0:70 / /a\n",                  "",
		"1 2 0:99999999999 / /a rw - tmpfs t rw",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(!parse(bad[i], b, sizeof b, &e));

	char out[8];
	CHECK(fs_mountinfo_unescape("a\\040b", 6, out, sizeof out));
	CHECK_STR(out, "a b");
	CHECK(fs_mountinfo_unescape("a\\04", 4, out, sizeof out)); /* cut short: kept as is */
	CHECK_STR(out, "a\\04");
	CHECK(fs_mountinfo_unescape("\\000", 4, out, sizeof out)); /* NUL is not decoded */
	CHECK_STR(out, "\\000");
	CHECK(!fs_mountinfo_unescape("abcdefghij", 10, out, sizeof out));
	CHECK_STR(out, "abcdefg");
}

static const struct fs_mountinfo_entry *at(const struct fs_mountinfo *mi, const char *mount, int nth)
{
	for (int i = 0; i < mi->n; i++)
		if (!strcmp(mi->v[i].mount, mount) && nth-- == 0)
			return &mi->v[i];
	return NULL;
}

static void test_table(void)
{
	struct fs_mountinfo mi;
	/* a chroot: no "/"; /data shadowed by a later mount on it; /srv/old
	 * covered by /srv, and /srv/old/in inside it; a mount stacked on /top
	 * is what is seen there; a junk line skipped */
	CHECK_INT(fs_mountinfo_parse("22 21 0:21 / /proc rw - proc proc rw\n"
				     "26 21 259:1 / /data rw - xfs /dev/nvme0n1p1 rw\n"
				     "junk\n"
				     "40 26 9:0 / /data rw - ext4 /dev/md0 rw\n"
				     "41 21 259:1 /old /srv/old rw - xfs /dev/nvme0n1p1 rw\n"
				     "43 41 253:1 / /srv/old/in rw - ext4 /dev/dm-1 rw\n"
				     "42 21 0:70 / /srv rw - tmpfs t rw\n"
				     "44 21 0:71 / /srvx rw - tmpfs t rw\n"
				     "45 21 0:72 / /top rw - tmpfs a rw\n"
				     "46 45 0:73 / /top rw - tmpfs b rw",
				     &mi), 0);
	CHECK_INT(mi.n, 9);
	CHECK(!fs_mountinfo_has_root(&mi));
	CHECK(at(&mi, "/data", 0) && at(&mi, "/data", 0)->hidden);
	CHECK(at(&mi, "/data", 1) && !at(&mi, "/data", 1)->hidden);
	CHECK(at(&mi, "/srv/old", 0) && at(&mi, "/srv/old", 0)->hidden);
	CHECK(at(&mi, "/srv/old/in", 0) && at(&mi, "/srv/old/in", 0)->hidden);
	CHECK(at(&mi, "/srv", 0) && !at(&mi, "/srv", 0)->hidden);
	CHECK(at(&mi, "/srvx", 0) && !at(&mi, "/srvx", 0)->hidden); /* a name, not a path, above it */
	CHECK(at(&mi, "/top", 0) && at(&mi, "/top", 0)->hidden && !at(&mi, "/top", 1)->hidden);
	CHECK(!at(&mi, "/proc", 0)->hidden);

	CHECK(fs_mountinfo_by_id(&mi, 41) == at(&mi, "/srv/old", 0));
	CHECK(fs_mountinfo_by_id(&mi, 21) == NULL);
	/* 259:1 is mounted twice, both hidden: the last; 9:0 visible */
	CHECK(fs_mountinfo_by_dev(&mi, 259, 1) == at(&mi, "/srv/old", 0));
	CHECK(fs_mountinfo_by_dev(&mi, 9, 0) == at(&mi, "/data", 1));
	CHECK(fs_mountinfo_by_dev(&mi, 8, 1) == NULL);
	fs_mountinfo_free(&mi);

	CHECK_INT(fs_mountinfo_parse("1 0 254:0 / / rw - ext4 /dev/vda rw\n", &mi), 0);
	CHECK(fs_mountinfo_has_root(&mi));
	fs_mountinfo_free(&mi);
	CHECK_INT(fs_mountinfo_parse("", &mi), 0);
	CHECK_INT(mi.n, 0);
	fs_mountinfo_free(&mi);

	/* overlay options: split on raw commas, values unescaped */
	char b[512], out[256];
	struct fs_mountinfo_entry e;
	CHECK(parse("9 1 0:50 / /m rw - overlay overlay rw,lowerdirx=/no,lowerdir=/a\\054b:/c,"
		    "upperdir=/u\\040x,workdir=/w", b, sizeof b, &e));
	CHECK(fs_mountinfo_option(&e, "lowerdir", out, sizeof out));
	CHECK_STR(out, "/a,b:/c");
	CHECK(fs_mountinfo_option(&e, "upperdir", out, sizeof out));
	CHECK_STR(out, "/u x");
	CHECK(!fs_mountinfo_option(&e, "datadir", out, sizeof out));
	CHECK(!fs_mountinfo_option(&e, "rw", out, sizeof out));
}

static void fixture_paths(struct fs_paths *p)
{
	snprintf(p->proc, sizeof p->proc, FIXTURE "/proc");
	snprintf(p->sys, sizeof p->sys, FIXTURE "/sys");
	snprintf(p->shm, sizeof p->shm, "/dev/shm");
}

static void test_stacked(void)
{
	struct fs_paths p;
	fixture_paths(&p);
	if (access(p.sys, F_OK) < 0) {
		check_skip("test_stacked: run from the repository root");
		return;
	}
	char d[FS_DEVPATH_DISKS_MAX][FS_DISK_NAME_MAX];
	CHECK_INT(fs_devpath_disks(&p, "dm-1", d, FS_DEVPATH_DISKS_MAX), 2); /* dm-1 > md0 > sda1, sdb1 */
	CHECK_STR(d[0], "sda");
	CHECK_STR(d[1], "sdb");
	CHECK_INT(fs_devpath_disks(&p, "dm-0", d, FS_DEVPATH_DISKS_MAX), 1);
	CHECK_STR(d[0], "nvme0n1");
	CHECK_INT(fs_devpath_disks(&p, "loop0", d, FS_DEVPATH_DISKS_MAX), 1); /* its file is gone */
	CHECK_STR(d[0], "loop0");
	CHECK_INT(fs_devpath_disks(&p, "nvme0n1", d, FS_DEVPATH_DISKS_MAX), 1);
	CHECK_INT(fs_devpath_disks(&p, "dm-1", d, 1), 1); /* room for one */
	CHECK_INT(fs_devpath_disks(&p, "", d, FS_DEVPATH_DISKS_MAX), 0);

	struct fs_mountinfo mi;
	CHECK_INT(fs_mountinfo_load(&p, &mi), 0);
	struct fs_devpath out;
	fs_devpath_from_dev(&p, &mi, 253, 1, 28, NULL, &out); /* a bind of a subdirectory */
	CHECK(out.have_mount);
	CHECK_STR(out.mount, "/mnt/raid");
	CHECK_STR(out.root, "/exports/a");
	CHECK_STR(out.device, "dm-1");
	CHECK_INT(out.ndisks, 2);
	char text[64];
	CHECK_STR(fs_devpath_disks_text(&out, text, sizeof text), "sda,sdb");
	fs_devpath_from_dev(&p, &mi, 253, 1, 43, NULL, &out); /* the same file system, hidden */
	CHECK_STR(out.mount, "/srv/old/inner");
	fs_devpath_from_dev(&p, &mi, 253, 0, 0, NULL, &out); /* no mount id: by device */
	CHECK_STR(out.mount, "/my data");
	CHECK_STR(out.majmin, "253:0");
	fs_devpath_from_dev(&p, &mi, 8, 33, 32, NULL, &out); /* gone from sysfs */
	CHECK_STR(out.device, "");
	CHECK_INT(out.ndisks, 0);
	CHECK_STR(out.fstype, "ext4");
	fs_devpath_from_dev(&p, &mi, 0, 50, 30, "x", &out); /* an overlay whose layers are not here */
	CHECK_STR(out.fstype, "overlay");
	CHECK_STR(out.device, "");
	/* the chroot's /: on 259:1 by its device, mounted nowhere this process
	 * sees (mount id 21): type and source known, no mount point claimed */
	fs_devpath_from_dev(&p, &mi, 259, 1, 21, NULL, &out);
	CHECK(!out.have_mount);
	CHECK_STR(out.mount, "");
	CHECK_STR(out.fstype, "xfs");
	CHECK_STR(out.device, "nvme0n1");
	fs_devpath_from_dev(&p, &mi, 254, 9, 0, NULL, &out); /* nothing known */
	CHECK(!out.have_mount);
	CHECK_STR(out.device, "");
	fs_mountinfo_free(&mi);
}

/* ---- a temporary tree whose loop device and overlay layers are real files ---- */

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void run(const char *cmd)
{
	CHECK(system(cmd) == 0);
}

/* dir/sys: a whole disk "realdisk" for the device of dir, and loop7 backed by
 * dir/img. Returns false if dir is not on a block device (nothing to test). */
static bool make_tree(const char *dir, unsigned *maj, unsigned *min)
{
	struct stat st;
	char cmd[2048], path[1024];
	if (stat(dir, &st) < 0 || major(st.st_dev) == 0)
		return false;
	*maj = major(st.st_dev);
	*min = minor(st.st_dev);
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && mkdir -p sys/block sys/dev/block sys/devices/fake/realdisk "
		 "sys/devices/virtual/block/loop7/loop upper lower1 lower2/sub shm && "
		 "ln -s ../devices/fake/realdisk sys/block/realdisk && "
		 "ln -s ../../devices/fake/realdisk sys/dev/block/%u:%u && "
		 "ln -s ../devices/virtual/block/loop7 sys/block/loop7 && "
		 "ln -s ../../devices/virtual/block/loop7 sys/dev/block/7:7 && "
		 "touch img upper/u lower2/sub/l",
		 dir, *maj, *min);
	run(cmd);
	snprintf(path, sizeof path, "%s/sys/devices/virtual/block/loop7/loop/backing_file", dir);
	char text[1100];
	snprintf(text, sizeof text, "%s/img\n", dir);
	put(path, text);
	return true;
}

/* A new directory in the first of /tmp, /var/tmp, . that is on a block device. */
static bool block_tmpdir(char *dir, size_t cap)
{
	const char *base[] = {"/tmp", "/var/tmp", "."};
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
		struct stat st;
		if (stat(base[i], &st) < 0 || major(st.st_dev) == 0)
			continue;
		char rel[64], real[PATH_MAX];
		snprintf(rel, sizeof rel, "%s/test_devpath.XXXXXX", base[i]);
		if (mkdtemp(rel) && realpath(rel, real) && strlen(real) < cap) {
			memcpy(dir, real, strlen(real) + 1);
			return true;
		}
	}
	return false;
}

static void test_real_files(void)
{
	char dir[200];
	unsigned maj, min;
	if (!block_tmpdir(dir, sizeof dir) || !make_tree(dir, &maj, &min)) {
		check_skip("test_real_files: none of /tmp, /var/tmp, . is on a block device");
		return;
	}
	struct fs_paths p;
	snprintf(p.proc, sizeof p.proc, "%s/proc", dir);
	snprintf(p.sys, sizeof p.sys, "%s/sys", dir);
	char d[FS_DEVPATH_DISKS_MAX][FS_DISK_NAME_MAX];
	CHECK_INT(fs_devpath_disks(&p, "loop7", d, FS_DEVPATH_DISKS_MAX), 1);
	CHECK_STR(d[0], "realdisk");

	/* an overlay: upper on dir's disk, lower1 on a tmpfs (/dev/shm), lower2
	 * on dir's disk; each path's device is its layer's */
	char shm[] = "/dev/shm/test_devpath.XXXXXX", text[4096];
	CHECK(mkdtemp(shm) != NULL);
	snprintf(text, sizeof text, "%s/only-shm", shm);
	put(text, "x");
	snprintf(text, sizeof text,
		 "9 1 0:99 / /merged rw - overlay overlay rw,lowerdir=%s:%s/lower2,upperdir=%s/upper,"
		 "workdir=%s/work\n"
		 "10 1 0:98 / /m2 rw - overlay overlay rw,lowerdir=%s/lower2,upperdir=%s\n",
		 shm, dir, dir, dir, dir, shm);
	struct fs_mountinfo mi;
	CHECK_INT(fs_mountinfo_parse(text, &mi), 0);
	struct fs_devpath out;
	fs_devpath_from_dev(&p, &mi, 0, 99, 9, "u", &out); /* in the upper layer */
	CHECK_STR(out.device, "realdisk");
	fs_devpath_from_dev(&p, &mi, 0, 99, 9, "only-shm", &out); /* in the tmpfs lower: RAM */
	CHECK_STR(out.device, "");
	fs_devpath_from_dev(&p, &mi, 0, 99, 9, "sub/l", &out);
	CHECK_STR(out.device, "realdisk");
	fs_devpath_from_dev(&p, &mi, 0, 98, 10, NULL, &out); /* the mount: the first layer on a disk */
	CHECK_STR(out.device, "realdisk");
	CHECK_STR(out.mount, "/m2");
	fs_devpath_from_dev(&p, &mi, 0, 98, 10, "sub/l", &out); /* a file of the lower layer */
	CHECK_STR(out.device, "realdisk");
	fs_devpath_from_dev(&p, &mi, 0, 98, 10, "sub/", &out); /* a directory: new files go up, to RAM */
	CHECK_STR(out.device, "");
	fs_devpath_from_dev(&p, &mi, 0, 98, 10, "", &out);
	CHECK_STR(out.device, "");
	fs_mountinfo_free(&mi);

	char cmd[2200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, shm);
	run(cmd);
}

/* ---- this machine ---- */

static void test_live(void)
{
	struct fs_paths p;
	fs_paths_from_env(&p);
	struct fs_devpath out;
	struct stat st;
	CHECK_INT(fs_devpath_of(&p, NULL, "/", &out), 0);
	CHECK(stat("/", &st) == 0);
	char mm[32];
	snprintf(mm, sizeof mm, "%u:%u", major(st.st_dev), minor(st.st_dev));
	CHECK_STR(out.majmin, mm);
	CHECK(out.fstype[0] != '\0');
	printf("/: %s %s device \"%s\" mount \"%s\" (%s)\n", out.majmin, out.fstype, out.device, out.mount,
	       out.have_mount ? "in mountinfo" : "not a mount point here");
	if (major(st.st_dev) != 0)
		CHECK(out.device[0] != '\0' && out.ndisks >= 1);
	CHECK_INT(fs_devpath_of(&p, NULL, "/proc/self", &out), 0);
	CHECK_STR(out.fstype, "proc");
	CHECK_STR(out.device, "");
	CHECK_INT(fs_devpath_of(&p, NULL, "/no/such/path", &out), -1);
}

int main(void)
{
	test_lines();
	test_table();
	test_stacked();
	test_real_files();
	test_live();
	return check_exit("test_devpath");
}
