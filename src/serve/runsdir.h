/* runsdir.h - a directory of run files watched by the exporter: which
 * *.db files appeared, were replaced (another file under the same name) or
 * vanished since the last scan.
 *
 * The caller scans once in a while (the exporter's reader: once a second).
 * The directory is listed again when it changed (its mtime), or every
 * FS_RUNSDIR_RELIST_S: each *.db name is stat'ed (not opened), and the
 * newest FS_RUNSDIR_MAX_FILES regular files (or links to one) by mtime are
 * followed, the others left alone (said once). A followed file is offered
 * to add(), newest first, while fewer than max_taken are taken; when that
 * many are taken, a newer one takes the place of the oldest taken (which
 * is given to drop()). One that add() refuses (not a run file yet: a
 * recording that has not committed its first rows; or not a run file at
 * all) is offered again after a back-off (1 s, doubling up to
 * FS_RUNSDIR_BACKOFF_MAX_S), and its reason said once on stderr when it
 * has been refused for FS_RUNSDIR_SAY_AFTER_S. A file that was taken and
 * is gone, or is another file now (a new inode: `run -f` renamed a new run
 * over it), is given to drop() first (and the new one to add()). A
 * directory that is missing or unreadable is said once (until it is
 * readable again), and every file taken from it dropped. Not thread-safe:
 * one caller. */
#ifndef FS_RUNSDIR_H
#define FS_RUNSDIR_H

#include <stddef.h>
#include <stdint.h>

#define FS_RUNSDIR_SAY_AFTER_S 5
#define FS_RUNSDIR_MAX_FILES 4096   /* *.db files followed, the newest; more are said once and left alone */
#define FS_RUNSDIR_MAX_NAMES 100000 /* *.db names looked at in one listing; more are said once */
#define FS_RUNSDIR_RELIST_S 10      /* an unchanged directory is listed again this often */
#define FS_RUNSDIR_BACKOFF_MAX_S 60 /* a refused file is offered again at most this far apart */

struct fs_runsdir;

/* Take path: 0, or -1 with why (said later, see above). */
typedef int (*fs_runsdir_add_fn)(void *arg, const char *path, char *why, size_t whylen);
/* path, taken before, is gone. */
typedef void (*fs_runsdir_drop_fn)(void *arg, const char *path);

/* Watch dir (copied), taking at most max_taken files at once. Returns NULL
 * when out of memory. */
struct fs_runsdir *fs_runsdir_new(const char *dir, int max_taken);

/* Scan: drop() what is gone, add() what is new, newest first; now_ns is
 * the monotonic time (back-offs, when a refusal is said, relisting). */
void fs_runsdir_scan(struct fs_runsdir *w, fs_runsdir_add_fn add, fs_runsdir_drop_fn drop, void *arg, uint64_t now_ns);

/* The directory watched. */
const char *fs_runsdir_dir(const struct fs_runsdir *w);

/* Forget everything (drop() is not called). NULL: no-op. */
void fs_runsdir_free(struct fs_runsdir *w);

#endif
