/* store.h - the run file: one SQLite database per run.
 *
 * Written in WAL mode with synchronous=NORMAL, rows batched in a transaction
 * that is committed at most once a second (and at close), so a recorder or a
 * job killed with SIGKILL leaves a file that opens and holds all but the last
 * second. At a clean close the WAL is folded back and the file switched to
 * rollback-journal mode, so the run file is one self-contained file that can
 * be copied to a laptop.
 */
#ifndef FS_STORE_H
#define FS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/row.h"

struct fs_store;

/* Create a new run file at path (store/runfile.h: a new file made with
 * O_EXCL; with overwrite, an existing regular file of the caller's is
 * replaced atomically when the store is closed; a link, directory, FIFO,
 * device or another user's file is refused either way). Returns NULL with
 * a one-line reason in err[errlen]; nothing that existed is changed then.
 * The caller closes it. */
struct fs_store *fs_store_create(const char *path, bool overwrite, char *err, size_t errlen);

/* The same, and *exists (may be NULL) tells whether the failure was that
 * path or one of its side files exists: a caller picking names tries the
 * next one. */
struct fs_store *fs_store_create_ex(const char *path, bool overwrite, bool *exists, char *err, size_t errlen);

/* A run file in memory only (the same schema, nothing on disk): `watch`
 * reads its figures back through the metric definitions. Closed with
 * fs_store_close. NULL with a reason in err. */
struct fs_store *fs_store_create_memory(char *err, size_t errlen);

/* The store's database handle, for reading it back (an in-memory store).
 * Valid until fs_store_close. */
struct sqlite3 *fs_store_db(struct fs_store *st);

/* Where the run file is being written (path, or its temporary while it
 * replaces path). Valid until fs_store_close. */
const char *fs_store_path(const struct fs_store *st);

/* --hash-paths: from now on every word of a meta value that holds a '/'
 * is stored as its keyed hash (util/pathhash.h), never in clear. */
void fs_store_hash_paths(struct fs_store *st, bool on);

/* Keep every raw row (--keep-all): by default a run file past its first
 * hour keeps the raw rows of that hour, of the latest hour and around
 * stalls (store/retain.h), and the per-minute tables of the whole run.
 * Call before the first row. */
void fs_store_keep_all(struct fs_store *st);

/* Raw rows deleted so far by that retention. */
uint64_t fs_store_deleted(const struct fs_store *st);

/* The store as a sink: rows are inserted, tick_end commits at most once a
 * second; a run file's rows are held in memory until the commit and
 * inserted then, in the order they came (store/rowq.h). Valid until
 * fs_store_close. */
struct fs_sink *fs_store_sink(struct fs_store *st);

/* Commit whatever is pending now. Returns 0, or -1 (reason said on stderr). */
int fs_store_commit(struct fs_store *st);

/* Number of rows inserted so far (held ones included), and of insert errors. */
uint64_t fs_store_rows(const struct fs_store *st);

/* Commit, fold the WAL back, leave a single file; when replacing, rename
 * it over the old one then. Returns 0, or -1 if the final commit failed or
 * the run file could not be put at the path asked for (said on stderr).
 * Frees st. */
int fs_store_close(struct fs_store *st);

/* The same, and where the run file is now into path_out[cap] (the path
 * asked for, or the temporary it stayed in). */
int fs_store_close_at(struct fs_store *st, char *path_out, size_t cap);

/* Close and remove the run file made by fs_store_create (the job could not
 * even be started): an old file it was to replace is left as it was.
 * Frees st. */
void fs_store_discard(struct fs_store *st);

/* Remove a run file and its -wal/-shm/-journal side files, each only if it
 * is a regular file of the caller's, never through a link. */
void fs_store_unlink(const char *path);

#endif
