/* runfile.h - how the exporter's threads open a run file, so that nothing
 * put in the runs directory can freeze them (docs/exporter.md, "Reading
 * run files safely").
 *
 * The file is opened once, open(O_RDONLY|O_NONBLOCK|O_CLOEXEC): a FIFO
 * opens without waiting for a writer. fstat on that descriptor: only a
 * regular file goes on. SQLite then reads that very descriptor: it is
 * opened as /proc/self/fd/N and handed over through the unix VFS's
 * system-call table ("open"), since SQLite resolves a symbolic link (and
 * /proc/self/fd/N is one) to the file's name and would otherwise open the
 * name again. Its side files (-wal, -shm, -journal) are found by that name,
 * as every SQLite connection finds them (the recorder's locks are seen),
 * and opened the same way: non-blocking, a regular file only.
 *
 * A thread marked with fs_runfile_guard_thread gets that for every SQLite
 * open it makes (the verdict thread's analysis too). A deadline
 * (fs_runfile_set_deadline) bounds the thread's SQLite work on a file: a
 * lock waited for (FS_RUNFILE_LOCK_WAIT_MS at most, instead of SQLite's
 * busy timeout) and the statements run (a progress handler interrupts
 * them). */
#ifndef FS_RUNFILE_H
#define FS_RUNFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/load/query.h"

/* The longest a lock is waited for, within the deadline. */
#define FS_RUNFILE_LOCK_WAIT_MS 100

struct fs_runfile_stat {
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
	int64_t size;
};

/* Every SQLite open of the calling thread from now on: non-blocking, and
 * refused unless a regular file (/dev/urandom aside, which SQLite reads
 * for its randomness). Installs the hook the first time (any thread). */
void fs_runfile_guard_thread(void);

/* The calling thread's deadline (fs_now_ns clock) for what SQLite does on
 * connections opened by fs_runfile_open: waiting for a lock and running
 * statements stop there (SQLITE_BUSY, SQLITE_INTERRUPT). 0: none. */
void fs_runfile_set_deadline(uint64_t deadline_ns);

/* Open path for q as above (the calling thread guarded) and check it is a
 * run file (it has meta rows). Returns 0; or -1 with why in err ("not a
 * regular file (a FIFO)", SQLite's message, "not a feedscope run file"),
 * q closed. *st is filled once the descriptor was checked (NULL: not
 * wanted). */
int fs_runfile_open(struct fs_q *q, const char *path, struct fs_runfile_stat *st, char *err, size_t errlen);

#endif
