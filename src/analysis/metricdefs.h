/* metricdefs.h - the machine-wide figures, each defined once.
 *
 * One const table (metricdefs.c) says, for every figure of the machine
 * (cpu, psi, mem, tcp, nfs, gpu tables), its name, unit, source table, the
 * SQL aggregate over that table's rows and what it means. The summary and
 * the metrics both read these figures through fs_metricdefs_load, so a
 * figure has one formula (docs/verdicts.md, "Metric definitions", lists
 * them; tests/unit/test_metricdefs.c pins each against a golden run file).
 *
 * Per-device disk figures, the network interface, the job's processes,
 * steps and phases are not here (metrics.c, summary.c).
 */
#ifndef FS_METRICDEFS_H
#define FS_METRICDEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/query.h"
#include "store/schema.h"

enum fs_md_id {
	FS_MD_CPU_BUSY_PCT,
	FS_MD_CPU_IOWAIT_PCT,
	FS_MD_CPU_USER_PCT,
	FS_MD_CPU_SYSTEM_PCT,
	FS_MD_CPU_STEAL_PCT,
	FS_MD_CPU_IDLE_PCT,
	FS_MD_PSI_CPU_SOME_PCT,
	FS_MD_PSI_CPU_FULL_PCT,
	FS_MD_PSI_IO_SOME_PCT,
	FS_MD_PSI_IO_FULL_PCT,
	FS_MD_PSI_MEMORY_SOME_PCT,
	FS_MD_PSI_MEMORY_FULL_PCT,
	FS_MD_MEM_AVAILABLE_MIN_BYTES,
	FS_MD_PAGE_CACHE_MAX_BYTES,
	FS_MD_MAJOR_FAULTS_PER_S,
	FS_MD_DENTRIES_GROWTH,
	FS_MD_TCP_RETRANS_PER_S,
	FS_MD_NFS_READ_OPS_PER_S,
	FS_MD_NFS_READ_RTT_MS,
	FS_MD_GPU_COUNT,
	FS_MD_GPU_UTIL_PCT,
	FS_MD_GPU_MEM_USED_MAX_BYTES,
	FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S,
	FS_MD__N
};

/* One definition: the value is `SELECT expr FROM table WHERE t BETWEEN
 * ?1 AND ?2` (the window of the struct fs_q). unit is one of "%",
 * "bytes", "B/s", "1/s", "fraction", "count", "ms"; the name is the key
 * the verdict's JSON uses for it where it has one. */
struct fs_metricdef {
	enum fs_md_id id;
	const char *name;    /* snake_case, unit in the name: "cpu_busy_pct" */
	const char *unit;
	enum fs_table_id table;
	const char *expr;    /* an SQL aggregate over the table's columns */
	const char *meaning; /* one line */
};

/* The table, indexed by id (fs_metricdefs[i].id == i). */
extern const struct fs_metricdef fs_metricdefs[FS_MD__N];

/* The values of one load. v[id] is NaN unless bit id of valid is set:
 * valid = the source table is in the run file and the aggregate was not
 * NULL (no rows in the window, or none with the columns it reads). */
struct fs_metric_values {
	double v[FS_MD__N];
	uint64_t valid;
};

/* A bit per source table for fs_metricdefs_load_from. */
#define FS_MD_FROM(table) (UINT32_C(1) << (table))

/* Whether id was loaded (bit id of mv->valid). */
bool fs_metricdefs_valid(const struct fs_metric_values *mv, enum fs_md_id id);

/* The SQL the loader runs for table: its definitions as columns in id
 * order, or only definition `only` (only < 0: all). Returns how many
 * columns it has (0: none of the definitions is of that table), or -1 when
 * it does not fit in out[cap]. */
int fs_metricdefs_sql(enum fs_table_id table, int only, char *out, size_t cap);

/* Load the definitions of the tables in mask (FS_MD_FROM bits) within q's
 * window ?1..?2, one query per table; out is reset first (every value NaN,
 * none valid). A table the run file lacks leaves its ids not valid; a
 * column it lacks (an older feedscope) leaves only the definitions that
 * read it not valid. Returns 0, or -1 when one of its queries failed (a
 * damaged file, an I/O error): then recorded in q (fs_q_failed), and no id
 * is valid.
 * Nothing is allocated. */
int fs_metricdefs_load_from(struct fs_q *q, uint32_t mask, struct fs_metric_values *out);

/* fs_metricdefs_load_from with every table of the definitions. */
int fs_metricdefs_load(struct fs_q *q, struct fs_metric_values *out);

#endif
