/* runfile.h - where the run file goes on disk, and what may be replaced.
 *
 * A run file is written either as a new file, made with O_EXCL (nothing
 * that exists is ever opened, truncated or followed), or, to replace an
 * existing regular file of the caller's (--force), as a temporary
 * NAME.partial-PID in the same directory that is renamed over NAME when the
 * run file is complete. So a reader of NAME sees the old file or the whole
 * new one, and a recorder killed on the way leaves the old NAME untouched
 * and its own run in NAME.partial-PID. A symbolic link, a directory, a FIFO,
 * a device or a socket at NAME is refused, with or without --force, and so
 * is a file of another user. SQLite's side files (NAME-wal, NAME-shm,
 * NAME-journal) are checked the same way: a stale one would be applied to
 * the new file. All removals go through util/safefile.h. */
#ifndef FS_RUNFILE_H
#define FS_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct fs_runfile {
	int dirfd;           /* the directory holding it (O_PATH), -1 when closed */
	char base[256];      /* the name asked for */
	char name[256];      /* the name being written: base, or base.partial-PID[-K] */
	char path[4400];     /* the path SQLite opens (directory part + name) */
	char want[4400];     /* the path asked for */
	bool replace;        /* name is a temporary to rename over base at the end */
	struct stat made;    /* the file created */
};

/* Create the (empty) file to write, see above. Returns 0; or -1 with a
 * one-line reason in err[errlen], and *exists set when the reason is that
 * path (or one of its side files) exists, so that a caller picking names
 * can try the next one. Nothing that existed is changed on failure. */
int fs_runfile_create(struct fs_runfile *rf, const char *path, bool overwrite, bool *exists, char *err,
		      size_t errlen);

/* Whether rf->path still names the file created (call after SQLite has
 * opened it). Returns 0, or -1 with a reason in err. */
int fs_runfile_verify(const struct fs_runfile *rf, char *err, size_t errlen);

/* The run file is closed. When replacing and complete is true: remove the
 * old NAME's side files and rename the temporary over NAME (rf->path then
 * says NAME). Otherwise, or if that cannot be done (said on stderr), the
 * run file stays where it is (rf->path). Returns 0, or -1 if the run file
 * is not at the path asked for. Closes the directory descriptor. */
int fs_runfile_finish(struct fs_runfile *rf, bool complete);

/* Remove the file created and its side files (the run never started), and
 * close the directory descriptor. An old NAME is left as it was. */
void fs_runfile_discard(struct fs_runfile *rf);

/* Remove the run file at path and its side files if they are regular files
 * of the caller's (never through a link). Returns 0, or -1 if path itself
 * could not be removed (errno set). */
int fs_runfile_unlink(const char *path);

#endif
