/* The rows a run file holds until its commit (store/rowq.h): each comes
 * back once, in the order pushed, whole (its text copied, so the source's
 * buffer may change at once), columns past its table's NULL; the queue is
 * empty after a drain and takes rows again. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "store/rowq.h"

struct seen {
	int n;
	struct fs_row rows[600];
	char text[600][FS_MAX_COLS][48]; /* each text column's copy */
};

static void take(void *ctx, const struct fs_row *r)
{
	struct seen *s = ctx;
	if (s->n >= 600)
		return;
	s->rows[s->n] = *r;
	for (int c = 0; c < FS_MAX_COLS; c++)
		if (r->v[c].kind == FS_V_TEXT)
			snprintf(s->text[s->n][c], sizeof s->text[0][0], "%s", r->v[c].s);
	s->n++;
}

static void test_order_and_values(void)
{
	struct fs_rowq q = FS_ROWQ_INIT;
	static struct seen s;
	char name[64];
	/* 500 rows of two tables with different column counts: the buffer
	 * grows (a record of a proc row is 350 bytes and more) */
	for (int i = 0; i < 500; i++) {
		struct fs_row r;
		if (i % 2) {
			fs_row_init(&r, FS_T_PROC, i * 0.1);
			fs_row_int(&r, FS_PROC_pid, 1000 + i);
			snprintf(name, sizeof name, "worker-%d%s", i, i % 3 ? "" : " with a longer name");
			fs_row_text(&r, FS_PROC_comm, name);
			fs_row_text(&r, FS_PROC_role, "loader");
			fs_row_real(&r, FS_PROC_cpu_pct, i / 4.0);
			fs_row_int(&r, FS_PROC_shared_bytes, 4096); /* past disk's columns */
		} else {
			fs_row_init(&r, FS_T_DISK, i * 0.1);
			snprintf(name, sizeof name, "vd%c", 'a' + i % 26);
			fs_row_text(&r, FS_DISK_device, name);
			fs_row_real(&r, FS_DISK_reads_per_s, i);
		}
		CHECK_INT(fs_rowq_push(&q, &r), 0);
		memset(name, 'x', sizeof name - 1); /* the source's buffer changes */
	}
	CHECK_INT(q.rows, 500);
	fs_rowq_drain(&q, take, &s);
	CHECK_INT(s.n, 500);
	CHECK_INT(q.rows, 0);
	for (int i = 0; i < s.n; i++) {
		const struct fs_row *r = &s.rows[i];
		CHECK_NEAR(r->v[0].d, i * 0.1, 1e-12);
		if (i % 2) {
			CHECK_INT(r->table, FS_T_PROC);
			CHECK_INT(r->v[FS_PROC_pid].i, 1000 + i);
			snprintf(name, sizeof name, "worker-%d%s", i, i % 3 ? "" : " with a longer name");
			CHECK_STR(s.text[i][FS_PROC_comm], name);
			CHECK_STR(s.text[i][FS_PROC_role], "loader");
			CHECK_NEAR(r->v[FS_PROC_cpu_pct].d, i / 4.0, 0);
			CHECK_INT(r->v[FS_PROC_ppid].kind, FS_V_NULL);
			CHECK_INT(r->v[FS_PROC_shared_bytes].i, 4096);
		} else {
			CHECK_INT(r->table, FS_T_DISK);
			snprintf(name, sizeof name, "vd%c", 'a' + i % 26);
			CHECK_STR(s.text[i][FS_DISK_device], name);
			CHECK_NEAR(r->v[FS_DISK_reads_per_s].d, i, 0);
			/* a disk row after a proc row: the proc row's extra columns
			 * are not carried over */
			for (int c = fs_tables[FS_T_DISK].ncols; c < FS_MAX_COLS; c++)
				CHECK_INT(r->v[c].kind, FS_V_NULL);
		}
	}
	/* empty now: a second drain sees nothing; new rows come alone */
	s.n = 0;
	fs_rowq_drain(&q, take, &s);
	CHECK_INT(s.n, 0);
	struct fs_row r;
	fs_row_init(&r, FS_T_CPU, 7);
	fs_row_real(&r, FS_CPU_user_pct, 12.5);
	CHECK_INT(fs_rowq_push(&q, &r), 0);
	fs_rowq_drain(&q, take, &s);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.rows[0].table, FS_T_CPU);
	CHECK_NEAR(s.rows[0].v[FS_CPU_user_pct].d, 12.5, 0);
	fs_rowq_free(&q);
	CHECK(q.buf == NULL);
	CHECK_INT(q.rows, 0);
}

int main(void)
{
	test_order_and_values();
	return check_exit("test_rowq");
}
