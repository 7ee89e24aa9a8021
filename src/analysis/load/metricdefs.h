/* metricdefs.h - every figure read out of a run file, each defined once
 * (metricdefs_table.h), loaded through one query per source.
 *
 * The summary, the metrics (verdict, report), `watch` and `top` read
 * these figures only through fs_metricdefs_load*, so a figure has one formula
 * (docs/verdicts.md section 6 lists them; tests/unit/test_metricdefs.c pins
 * them against golden run files). What the accounting makes of the steps
 * and phases of each training process (loop_fill.c) is analysis, not a figure
 * of a table, and is not here.
 */
#ifndef FS_METRICDEFS_H
#define FS_METRICDEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/load/metricdefs_table.h"
#include "analysis/load/query.h"

/* The values of one load. v[id] is NaN unless bit id of valid[] is set:
 * valid = the source's table is in the run file and the aggregate was not
 * NULL (no rows in the window, or none with the columns it reads). */
#define FS_MD_VALID_WORDS ((((int)FS_MD__N > (int)FS_MDK__N ? (int)FS_MD__N : (int)FS_MDK__N) + 63) / 64)
struct fs_metric_values {
	double v[FS_MD__N];
	uint64_t valid[FS_MD_VALID_WORDS];
};

/* One key's values (fs_metricdefs_load_keyed). */
struct fs_metric_row {
	char key[64];
	double v[FS_MDK__N];
	uint64_t valid[FS_MD_VALID_WORDS];
};

/* A bit per source for fs_metricdefs_load_from. */
#define FS_MD_FROM(source) (UINT32_C(1) << (source))

/* Whether id was loaded (bit id of valid). */
bool fs_metricdefs_valid(const struct fs_metric_values *mv, enum fs_md_id id);
bool fs_metricdefs_row_valid(const struct fs_metric_row *r, enum fs_mdk_id id);

/* The SQL the loader runs for source: its definitions as columns in id
 * order (after the key for a keyed source), or only definition `only`
 * (only < 0: all). Returns how many definitions it has (0: none of that
 * source), or -1 when it does not fit in out[cap]. */
int fs_metricdefs_sql(enum fs_md_source source, int only, char *out, size_t cap);

/* The same over the source's per-minute tables (each definition's tier
 * form; FS_MD_RAW ones left out). 0 also when the source has none. */
int fs_metricdefs_tier_sql(enum fs_md_source source, int only, char *out, size_t cap);

/* Load the one-row definitions of the sources in mask (FS_MD_FROM bits)
 * within q's window ?1..?2, one query per source; out is reset first
 * (every value NaN, none valid). A table the run file lacks leaves its ids
 * not valid; a column it lacks (an older feedscope) leaves only the
 * definitions that read it not valid. Returns 0, or -1 when one of its
 * queries failed (a damaged file, an I/O error): then recorded in q
 * (fs_q_failed), and no id is valid. Nothing is allocated. */
int fs_metricdefs_load_from(struct fs_q *q, uint32_t mask, struct fs_metric_values *out);

/* Only the definitions ids[0..n) (one-row sources), each its own query: a
 * figure SQLite answers from an index alone (min(t), max(t) of ticks) is
 * then not computed in the same scan as the others of its source (a
 * day-long run's ticks: 864 000 rows). As fs_metricdefs_load_from. */
int fs_metricdefs_load_ids(struct fs_q *q, const enum fs_md_id *ids, int n, struct fs_metric_values *out);

/* fs_metricdefs_load_from with every one-row source. */
int fs_metricdefs_load(struct fs_q *q, struct fs_metric_values *out);

/* The keyed source's rows within q's window, ordered by key, at most cap
 * of them into out. Returns how many (0: not recorded, or no rows), or -1
 * when a query failed (recorded in q; nothing is kept). A key longer than
 * out->key is cut. */
int fs_metricdefs_load_keyed(struct fs_q *q, enum fs_md_source source, struct fs_metric_row *out, int cap);

/* The one order of "busiest" (summary's disk list, watch's disk, the
 * network interface shown): more bytes moved first (FS_MDK_DISK_READ_BYTES
 * + WRITE_BYTES, or FS_MDK_NIC_BYTES), then the higher peak utilization;
 * then the key. For qsort over struct fs_metric_row. */
int fs_metricdefs_busier(const void *a, const void *b);

/* Whether row r moved anything or was ever busy (the summary lists no idle
 * device). */
bool fs_metricdefs_active(const struct fs_metric_row *r);

#endif
