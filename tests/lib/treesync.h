/* treesync.h - make directory tree dst look like src, rewriting files in
 * place (same inode, as a /proc file's content changes under an open
 * descriptor) and removing what src lacks (as a process or a disk vanishes).
 * Symlinks are copied as links. Returns 0, or -1 with a message on stderr. */
#ifndef FS_TEST_TREESYNC_H
#define FS_TEST_TREESYNC_H

int treesync(const char *src, const char *dst);

#endif
