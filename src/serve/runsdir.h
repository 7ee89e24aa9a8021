/* runsdir.h - a directory of run files watched by the exporter: which
 * *.db files appeared, were replaced (another file under the same name) or
 * vanished since the last scan.
 *
 * The caller scans once in a while (the exporter's reader: once a second).
 * A regular file (or a link to one) whose name ends in ".db" is offered to
 * add(); one that add() refuses (not a run file yet: a recording that has
 * not committed its first rows; or not a run file at all) is offered again
 * at each scan, and its reason said once on stderr when it has been refused
 * for FS_RUNSDIR_SAY_AFTER_S. A file that was taken and is gone, or is
 * another file now (a new inode: `run -f` renamed a new run over it), is
 * given to drop() first (and the new one to add()). A directory that is
 * missing or unreadable is said once (until it is readable again), and
 * every file taken from it dropped. Not thread-safe: one caller. */
#ifndef FS_RUNSDIR_H
#define FS_RUNSDIR_H

#include <stddef.h>
#include <stdint.h>

#define FS_RUNSDIR_SAY_AFTER_S 5
#define FS_RUNSDIR_MAX_FILES 4096 /* *.db names followed; more are said once and left alone */

struct fs_runsdir;

/* Take path: 0, or -1 with why (said later, see above). */
typedef int (*fs_runsdir_add_fn)(void *arg, const char *path, char *why, size_t whylen);
/* path, taken before, is gone. */
typedef void (*fs_runsdir_drop_fn)(void *arg, const char *path);

/* Watch dir (copied). Returns NULL when out of memory. */
struct fs_runsdir *fs_runsdir_new(const char *dir);

/* Scan: drop() what is gone, add() what is new, in name order; now_ns is
 * the monotonic time (when a refusal is said). */
void fs_runsdir_scan(struct fs_runsdir *w, fs_runsdir_add_fn add, fs_runsdir_drop_fn drop, void *arg, uint64_t now_ns);

/* The directory watched. */
const char *fs_runsdir_dir(const struct fs_runsdir *w);

/* Forget everything (drop() is not called). NULL: no-op. */
void fs_runsdir_free(struct fs_runsdir *w);

#endif
