/* safefile.h - removing and replacing only what is ours.
 *
 * Every file or directory feedscope removes goes through here: it is named
 * relative to an open directory descriptor (no path re-resolution between
 * the check and the removal), never followed if it is a symbolic link,
 * checked with fstatat/fstat to be of the expected type and owned by the
 * caller (the effective uid), and then removed with unlinkat. Nothing here
 * opens anything that could block (FIFOs, devices): directories are opened
 * with O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK, other entries never. */
#ifndef FS_SAFEFILE_H
#define FS_SAFEFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* "a regular file", "a directory", "a symbolic link", "a FIFO", "a character
 * device", "a block device", "a socket" (static strings). */
const char *fs_safefile_kind(mode_t mode);

/* Open the directory holding path's last component (O_PATH | O_DIRECTORY;
 * links in the directory part are followed, the last component is not
 * looked at) and copy that component into base[cap]. Returns the
 * descriptor (the caller closes it), or -1 with errno set: EINVAL for an
 * empty last component, "." or "..", ENAMETOOLONG, or open's. */
int fs_safefile_parent(const char *path, char *base, size_t cap);

/* Look at dirfd/name without following a link: 0 with *st filled if it is
 * of type `type` (S_IFREG, S_IFDIR) and owned by the caller; else -1 with
 * errno ENOENT (nothing there), EINVAL (another type; *st is filled),
 * EPERM (another owner; *st is filled), or fstatat's. */
int fs_safefile_mine(int dirfd, const char *name, mode_t type, struct stat *st);

/* Remove dirfd/name if it is a regular file of the caller's and, when
 * expect is not NULL, the same file (device and inode) as *expect.
 * Returns 0, or -1 with errno: ENOENT, EINVAL (not a regular file), EPERM
 * (not the caller's), ESTALE (another file than expected), or unlinkat's. */
int fs_safefile_unlink(int dirfd, const char *name, const struct stat *expect);

/* Remove the directory dirfd/name if it is the caller's: first every
 * regular file of the caller's in it, then the directory. Anything else in
 * it (links, subdirectories, other users' files) is left, and so is the
 * directory then. Returns 0 when the directory is gone, or -1 with errno
 * (ENOENT, EINVAL not a directory, EPERM not the caller's, ENOTEMPTY
 * something was left, or the system call's). */
int fs_safefile_remove_dir(int dirfd, const char *name);

/* Whether directory dir holds nothing ("." and ".." aside): 1 empty, 0
 * not, -1 when it cannot be read (errno). */
int fs_safefile_dir_empty(const char *dir);

#endif
