/* csv.h - a run file as one CSV file per table (`feedscope export --format
 * csv`), for pandas and spreadsheets.
 *
 * Every schema table the run file holds rows of gets TABLE.csv, and meta
 * gets meta.csv (key,value). RFC 4180: a header row, CRLF line ends, a
 * field holding a comma, a quote, CR or LF quoted with quotes doubled; NULL
 * is an empty field, an empty string "". Text is written as valid UTF-8
 * (a byte that is not: U+FFFD). Values are in base units, and a column
 * converted says so in its name (docs/schema.md, "CSV export"):
 * NAME_pct -> NAME_ratio (/100), NAME_ms -> NAME_s (/1e3), NAME_us -> NAME_s
 * (/1e6), NAME_mbps -> NAME_bits_per_s (x1e6). A column of seconds since
 * t = 0 (t, t_start, t_end, first_t, last_t) is followed by NAME_unix:
 * meta start_unix + it, seconds since the epoch (when start_unix is known). */
#ifndef FS_RENDER_CSV_H
#define FS_RENDER_CSV_H

#include <stddef.h>

#include "analysis/load/metrics.h"

/* Write the CSV files of the run file at path into the directory dirfd
 * (files created with O_EXCL: the directory is expected empty). Sampled
 * tables keep the rows with t within w, phases those overlapping it; the
 * other tables are whole (NULL: everything). *files is set to the number
 * of files written. Returns 0; -1 with "PATH: ..." in err when the run file
 * cannot be read; -2 with the reason in err when a file cannot be written. */
int fs_csv_write(int dirfd, const char *path, const struct fs_window *w, int *files, char *err, size_t errlen);

#endif
