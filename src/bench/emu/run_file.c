/* run_file.c (was src/bench/run_db.c) - `feedscope report` on a run
 * file that `feedscope bench --output` wrote: a short bench summary (text) or the bench rows (JSON)
 * instead of a verdict, which needs a recorded job. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/load/query.h"
#include "bench/emu/run_report.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/text.h"

static const char bench_sql[] =
	"SELECT workload, epoch, accelerators, au, au_threshold, passed, samples_per_s, read_bytes_per_s,"
	" nominal_bytes_per_s, reads, read_p50_us, read_p99_us, duration_s, engine, direct, threads,"
	" queue_depth, ranks, dir FROM bench ORDER BY rowid";

static const char ckpt_sql[] =
	"SELECT workload, bytes, files, write_s, write_bytes_per_s, read_s, read_bytes_per_s, ranks"
	" FROM bench_checkpoint ORDER BY rowid";

static const char *txt(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

/* Run-file text for a terminal: escaped (util/text.h) into e[4096]. */
static const char *shown(char e[4096], const char *s)
{
	return fs_text_escape(e, 4096, s);
}

static void text(FILE *out, struct fs_q *q, const char *path)
{
	char cmd[1024], dur[32], e1[4096], e2[4096];
	fs_q_meta(q, "command", cmd, sizeof cmd);
	fs_fmt_time(dur, sizeof dur, fs_q_meta_num(q, "duration_s"));
	fprintf(out, "\nfeedscope: bench run, %s: %s\n  run file   %s (tables bench, bench_checkpoint: docs/schema.md)\n\n",
		dur, shown(e1, cmd), shown(e2, path));
	char cache[8], allow[8];
	fs_q_meta(q, "bench.potential_caching", cache, sizeof cache);
	fs_q_meta(q, "bench.allow_cache", allow, sizeof allow);
	bool refused = !strcmp(cache, "1") && strcmp(allow, "1"); /* the page-cache guard refused the PASS */
	sqlite3_stmt *st = fs_q_prep(q, bench_sql);
	bool head = false;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int(st, 1) != -1)
			continue; /* per-epoch rows: sqlite3 RUN.db 'select * from bench' */
		if (!head) {
			fprintf(out, "%-12s %12s %7s %5s %10s %11s %11s %9s %9s %9s  %s\n", "workload", "accelerators",
				"AU", "", "samples/s", "read", "nominal", "p50", "p99", "time", "engine");
			head = true;
		}
		char au[16], sps[32], rd[32], nom[32], p50[32], p99[32], t[32];
		double a = fs_q_col(st, 3);
		if (isnan(a))
			snprintf(au, sizeof au, "-");
		else
			snprintf(au, sizeof au, "%.1f%%", a * 100);
		fs_fmt_sig3(sps, sizeof sps, fs_q_col(st, 6));
		fs_fmt_rate(rd, sizeof rd, fs_q_col(st, 7));
		fs_fmt_rate(nom, sizeof nom, fs_q_col(st, 8));
		fs_fmt_time(p50, sizeof p50, fs_q_col(st, 10) / 1e6);
		fs_fmt_time(p99, sizeof p99, fs_q_col(st, 11) / 1e6);
		fs_fmt_time(t, sizeof t, fs_q_col(st, 12));
		fprintf(out, "%-12s %12d %7s %5s %10s %11s %11s %9s %9s %9s  %s%s\n", shown(e1, txt(st, 0)),
			sqlite3_column_int(st, 2), au,
			sqlite3_column_int(st, 5) ? "pass" : refused && a >= fs_q_col(st, 4) ? "n/v" : "FAIL", sps, rd, nom, p50, p99, t,
			shown(e2, txt(st, 13)),
			sqlite3_column_int(st, 14) ? " O_DIRECT" : "");
	}
	sqlite3_finalize(st);
	if (refused)
		fprintf(out, "n/v: not valid: the dataset is less than 5x the client's memory (potential caching: "
			     "docs/bench.md)\n");
	char maxn[32];
	fs_q_meta(q, "bench.max_accelerators", maxn, sizeof maxn);
	if (maxn[0])
		fprintf(out, "largest number of accelerators that held the AU threshold: %s\n", shown(e1, maxn));
	st = fs_q_prep(q, ckpt_sql);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char sz[32], wr[32], rr[32];
		fs_fmt_bytes(sz, sizeof sz, fs_q_col(st, 1));
		fs_fmt_rate(wr, sizeof wr, fs_q_col(st, 4));
		fs_fmt_rate(rr, sizeof rr, fs_q_col(st, 6));
		fprintf(out, "checkpoint %s (%s): write+fsync %s, read back %s\n", shown(e1, txt(st, 0)), sz, wr, rr);
	}
	sqlite3_finalize(st);
}

static void json_rows(struct fs_json *j, struct fs_q *q, const char *name, const char *sql)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	fs_json_array(j, name);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		fs_json_object(j, NULL);
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *col = sqlite3_column_name(st, i);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				fs_json_int(j, col, sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				fs_json_number(j, col, sqlite3_column_double(st, i));
				break;
			case SQLITE_TEXT:
				fs_json_string(j, col, txt(st, i));
				break;
			default:
				fs_json_string(j, col, NULL);
			}
		}
		fs_json_end(j);
	}
	fs_json_end(j);
	sqlite3_finalize(st);
}

int fs_bench_report_file(FILE *out, const char *path, bool json, char *err, size_t errlen)
{
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return 0; /* not a run file: the caller's own path says so */
	char mode[32];
	fs_q_meta(&q, "mode", mode, sizeof mode);
	if (strcmp(mode, "bench")) {
		fs_q_close(&q);
		return 0;
	}
	if (json) {
		struct fs_json j;
		fs_json_init(&j, out);
		fs_json_object(&j, NULL);
		fs_json_string(&j, "mode", "bench");
		char cmd[1024];
		fs_q_meta(&q, "command", cmd, sizeof cmd);
		fs_json_string(&j, "command", cmd);
		json_rows(&j, &q, "bench", bench_sql);
		json_rows(&j, &q, "bench_checkpoint", ckpt_sql);
		fs_json_end(&j);
		fputc('\n', out);
	} else {
		text(out, &q, path);
	}
	fs_q_close(&q);
	return 1;
}
