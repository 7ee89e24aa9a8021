/* mountinfo.h - /proc/PID/mountinfo: one parser for the whole program, the
 * table of one read, which mounts are hidden under later ones, and lookups
 * by mount id and by device number.
 *
 * A line is (proc(5)):
 *   36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   id parent MAJ:MIN root mount-point options [optional fields...] - fstype source super-options
 * The kernel lists only the mounts reachable from the reader's root, with
 * mount points relative to it: in a chroot whose / is a plain directory
 * there is no line for "/". Fields are octal-escaped ("\040" is a space). */
#ifndef FS_SOURCE_MOUNTINFO_H
#define FS_SOURCE_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "util/paths.h"

/* One line. The strings point into the line given to fs_mountinfo_parse_line
 * (or into the table's own copy of the text): they live as long as it does. */
struct fs_mountinfo_entry {
	int id, parent;
	unsigned maj, min;
	const char *root;   /* the directory of the file system shown here: "/", or a bind's "/sub" */
	const char *mount;  /* the mount point, unescaped, as this process sees it */
	const char *fstype; /* "ext4", "overlay", "fuse.sshfs" ... */
	const char *source; /* unescaped: "/dev/vda1", "tmpfs", "srv:/export" */
	const char *super;  /* super options, still escaped (fs_mountinfo_option decodes one) */
	bool hidden;        /* covered by a later mount: nothing under its mount point reaches it */
};

/* Parse one line, in place: line is cut into NUL-terminated fields and each
 * is unescaped (never longer than before). Returns false for a malformed line
 * (fewer fields, no "-" separator, a bad MAJ:MIN); *e is then unspecified. */
bool fs_mountinfo_parse_line(char *line, struct fs_mountinfo_entry *e);

/* Decode octal escapes ("\040" space, "\011" tab, "\012" newline, "\134"
 * backslash) of src[0..len) into out[cap], NUL-terminated. Anything else is
 * copied as is. Returns false if it did not fit (out holds a truncated prefix). */
bool fs_mountinfo_unescape(const char *src, size_t len, char *out, size_t cap);

/* The table of one read of mountinfo, in the kernel's order. */
struct fs_mountinfo {
	struct fs_mountinfo_entry *v;
	int n;
	char *text; /* the copy the entries point into */
};

/* Parse text (the whole file) into mi, which owns a copy; malformed lines are
 * skipped; hidden flags are set. Returns 0, or -1 when out of memory (mi is
 * then empty). Free with fs_mountinfo_free. */
int fs_mountinfo_parse(const char *text, struct fs_mountinfo *mi);

/* Read <proc>/self/mountinfo into mi. Returns 0, or -1 with errno when it
 * cannot be read (mi is then empty, and safe to use and to free). */
int fs_mountinfo_load(const struct fs_paths *p, struct fs_mountinfo *mi);

void fs_mountinfo_free(struct fs_mountinfo *mi);

/* The entry with mount id id, or NULL. */
const struct fs_mountinfo_entry *fs_mountinfo_by_id(const struct fs_mountinfo *mi, int id);

/* An entry of device maj:min: the last visible one (for a file system mounted
 * at several places: bind mounts share its type and source), else the last
 * hidden one, else NULL. */
const struct fs_mountinfo_entry *fs_mountinfo_by_dev(const struct fs_mountinfo *mi, unsigned maj,
						     unsigned min);

/* True when a visible entry has mount point "/" (false in a chroot whose /
 * is a plain directory). */
bool fs_mountinfo_has_root(const struct fs_mountinfo *mi);

/* The value of super option name ("upperdir", "lowerdir") of e, unescaped,
 * into out[cap]. Returns false when absent or too long. */
bool fs_mountinfo_option(const struct fs_mountinfo_entry *e, const char *name, char *out, size_t cap);

#endif
