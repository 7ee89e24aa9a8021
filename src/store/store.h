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

/* Create a new run file at path. Fails if the file exists and !overwrite.
 * Returns NULL with a one-line reason in err[errlen]. The caller closes it. */
struct fs_store *fs_store_create(const char *path, bool overwrite, char *err, size_t errlen);

/* The store as a sink: rows are inserted, tick_end commits at most once a
 * second. Valid until fs_store_close. */
struct fs_sink *fs_store_sink(struct fs_store *st);

/* Commit whatever is pending now. Returns 0, or -1 (reason said on stderr). */
int fs_store_commit(struct fs_store *st);

/* Number of rows inserted so far, and of insert errors. */
uint64_t fs_store_rows(const struct fs_store *st);

/* Commit, fold the WAL back, leave a single file. Returns 0, or -1 if the
 * final commit failed. Frees st. */
int fs_store_close(struct fs_store *st);

/* Remove a run file and its -wal/-shm side files (used when the job could
 * not even be started). */
void fs_store_unlink(const char *path);

#endif
