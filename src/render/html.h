/* html.h - `feedscope report --format html`: the verdict and the run's
 * timelines as one self-contained HTML file (inline CSS, inline SVG, one
 * small inline script for hover; nothing fetched from anywhere).
 *
 * Two halves, like the rest of the pipeline: html_series.c reads the
 * timelines and tables of each run file (through analysis/load/query.h), each
 * series downsampled to FS_HTML_COLUMNS columns holding the minimum and the
 * maximum of the samples that fall in each, so a 24-hour run is as large
 * as a 1-hour one; html.c is a pure function from those and the merged
 * verdict (analysis/compare/merge.h) to bytes. */
#ifndef FS_RENDER_HTML_H
#define FS_RENDER_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/compare/merge.h"

/* Columns per timeline: one per pixel of the plot area. */
#define FS_HTML_COLUMNS 1200
#define FS_HTML_MAX_SERIES 10
#define FS_HTML_MAX_SPANS 1500
#define FS_HTML_MAX_ROWS 20
/* The job memory chart's /dev/shm series (a line over the stack) */
#define FS_HTML_SHM_LABEL "/dev/shm used"

/* The timelines, in the order they are drawn. */
enum fs_html_chart_id {
	FS_HC_GPU,        /* accelerator busy per GPU, % */
	FS_HC_WAIT,       /* data wait per step, ms */
	FS_HC_THREADS,    /* loader thread states, stacked, threads */
	FS_HC_CPU,        /* CPU busy and iowait, % */
	FS_HC_PSI,        /* pressure stall, % */
	FS_HC_DISK_MB,    /* disk MB/s per device */
	FS_HC_DISK_UTIL,  /* disk util per device, % */
	FS_HC_NET,        /* network MB/s per interface */
	FS_HC_MEM,        /* page cache and memory, GiB */
	FS_HC_JOBMEM,     /* the job's PSS by part, stacked, and /dev/shm used, MiB */
	FS_HC__N
};

/* One series: per column the least and the largest sample in it (NaN:
 * none); a stacked chart's series hold the column's mean in both. */
struct fs_html_series {
	char label[128];                /* run-file text: escaped when written */
	long points;                    /* columns with a value */
	float lo[FS_HTML_COLUMNS], hi[FS_HTML_COLUMNS];
};

struct fs_html_chart {
	int nseries;
	struct fs_html_series s[FS_HTML_MAX_SERIES];
	char subject[64];               /* threads: whose ("DataLoader workers", "the main process") */
};

/* A phase shaded on every timeline: a checkpoint, an epoch's end, a phase
 * the job named (validation, ...); an epoch's start is a line (t0 == t1).
 * Phases closer than a column are merged into one span. FS_HS_VERDICT: a
 * phase of the verdict (docs/verdicts.md "Phases"), shaded behind the
 * rest, one shade and the next in turn. */
enum fs_html_span_kind { FS_HS_CHECKPOINT, FS_HS_EPOCH_END, FS_HS_EPOCH_START, FS_HS_OTHER, FS_HS_VERDICT, FS_HS__N };
struct fs_html_span {
	double t0, t1;                  /* merged seconds */
	enum fs_html_span_kind kind;
	int count;                      /* phases merged into it */
	char name[96];                  /* the (first) phase's name */
};

/* A few rows of a table: text cells, run-file text escaped when written. */
struct fs_html_row {
	char cell[6][160];
};
struct fs_html_table {
	int nrows;
	struct fs_html_row row[FS_HTML_MAX_ROWS];
};

/* One run file (a node). */
struct fs_html_node {
	char name[320], path[1024];
	char command[1024], host[256], version[32];
	double start_unix, duration_s, interval_s, end_s; /* end_s: the last tick's t; NaN when unknown */
	double shift_s;                 /* file t + shift_s = merged t */
	const char *resolution;         /* the timelines': "every tick", "per second", "per minute" */
	struct fs_html_chart chart[FS_HC__N];
	int nspans;
	struct fs_html_span span[FS_HTML_MAX_SPANS];
	struct fs_html_table files_by_time, files_by_bytes, procs, knobs;
};

struct fs_html_report {
	double t0, t1;                  /* the shared time axis, merged seconds */
	int nnodes;
	struct fs_html_node *node;
};

/* Read the timelines and tables of the n loaded files that g merged, within
 * w (merged seconds; NULL: all). Returns the report, or NULL with a reason
 * in err (a query failed: a damaged run file; out of memory). */
struct fs_html_report *fs_html_load(const struct fs_merged *g, const struct fs_merge_file *files, int n,
				    const struct fs_window *w, char *err, size_t errlen);
void fs_html_free(struct fs_html_report *r);

/* The whole document. Pure: writes to out only (errors left in out). */
void fs_html_render(FILE *out, const struct fs_merged *g, const struct fs_html_report *r);

/* The phases strip and every timeline of node n (html_chart.c; part of
 * fs_html_render). */
void fs_html_timelines(FILE *out, const struct fs_html_report *r, const struct fs_html_node *n);

/* s as HTML text or a double-quoted attribute value: first the visible
 * escape every run-file string is printed through (util/text.h: controls
 * as \xHH / \uHHHH, invalid UTF-8 as U+FFFD), then & < > " ' as entities. */
void fs_html_escape(FILE *out, const char *s);

/* s with & < > " ' as entities only: for text that went through the
 * visible escape already (the diff's headline), so it is not escaped twice. */
void fs_html_entities(FILE *out, const char *s);

/* The pieces every feedscope HTML document shares (html.c), so that the
 * report and the diff look alike: the head (<title>feedscope WHAT: DETAIL,
 * DETAIL escaped; the one stylesheet, then more_style if not NULL), <body>
 * and <h1>feedscope WHAT</h1>; an accounting (share: each bucket's, summing
 * to 1) as one stacked bar in the buckets' colours, width px wide, so two
 * bars of the same width are on the same scale; and the colours' legend
 * (with each share when share is not NULL). */
void fs_html_begin(FILE *out, const char *what, const char *detail, const char *more_style);
void fs_html_bucket_bar(FILE *out, const double share[FS_BUCKET__N], int width, int height);
void fs_html_bucket_legend(FILE *out, const double share[FS_BUCKET__N]);

#endif
