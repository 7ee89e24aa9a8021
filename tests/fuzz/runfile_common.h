/* runfile_common.h - what the two run-file fuzz targets share: a private
 * scratch path for the run file, and the reading side of `feedscope report`,
 * `diff` and `export` (bench summary, metrics, verdict, summary, every
 * renderer: text, JSON, HTML, Perfetto, CSV) on it. */
#ifndef FS_FUZZ_RUNFILE_COMMON_H
#define FS_FUZZ_RUNFILE_COMMON_H

#include <stdio.h>

/* Make a scratch directory under $TMPDIR (default /tmp), removed at exit;
 * fill path[cap] with the run file's path in it. Exits 1 on failure. */
void fuzz_runfile_init(char *path, size_t cap);

/* Remove the run file and its -wal, -shm and -journal side files. */
void fuzz_runfile_remove(void);

/* Everything `feedscope report` (text, json and html, with and without a
 * window), `diff` (the run against its own first seconds, text, json and
 * html) and `export` (perfetto to out, csv into a scratch directory emptied
 * again) do with the file at path, output to out. Never fails: a file that
 * is not a run file is just an error string for the loaders. */
void fuzz_runfile_read(const char *path, FILE *out);

#endif
