/* The receiving end of the marker channel: record parsing (good and bad
 * records) and a burst of records far beyond a datagram queue's 10, all
 * received. */
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "record/markers.h"

/* A sink that keeps the last row and meta, and counts. */
static struct fs_row last;
static char meta_key[128], meta_val[256];
static int rows, metas;
static char loaders[8][64];

static void on_row(struct fs_sink *s, const struct fs_row *r)
{
	(void)s;
	last = *r;
	if (r->table == FS_T_STEPS && rows < 8)
		snprintf(loaders[rows], sizeof loaders[0], "%s", r->v[FS_STEPS_loader].s);
	/* text values are borrowed: don't keep the pointers */
	if (r->table == FS_T_PHASES)
		last.v[FS_PHASES_name].s = NULL;
	if (r->table == FS_T_STEPS)
		last.v[FS_STEPS_loader].s = NULL;
	rows++;
}

static void on_meta(struct fs_sink *s, const char *k, const char *v)
{
	(void)s;
	snprintf(meta_key, sizeof meta_key, "%s", k);
	snprintf(meta_val, sizeof meta_val, "%s", v);
	metas++;
}

static struct fs_sink sink = {.row = on_row, .meta = on_meta};

static int parse(const char *rec)
{
	return fs_markers_parse(rec, strlen(rec), &sink, 1000000000ull);
}

static void test_parse(void)
{
	rows = metas = 0;
	CHECK_INT(parse("S1 42 train 1 7 3500000000 250000000 750000000"), 0);
	CHECK_INT(rows, 1);
	CHECK_INT(last.table, FS_T_STEPS);
	CHECK_NEAR(last.v[FS_STEPS_t].d, 2.5, 1e-9);
	CHECK_INT(last.v[FS_STEPS_pid].i, 42);
	CHECK_STR(loaders[0], "train");
	CHECK_INT(last.v[FS_STEPS_epoch].i, 1);
	CHECK_INT(last.v[FS_STEPS_step].i, 7);
	CHECK_NEAR(last.v[FS_STEPS_wait_s].d, 0.25, 1e-12);
	CHECK_NEAR(last.v[FS_STEPS_compute_s].d, 0.75, 1e-12);

	CHECK_INT(parse("P1 43 checkpoint 2000000000 2500000000"), 0);
	CHECK_INT(last.table, FS_T_PHASES);
	CHECK_NEAR(last.v[FS_PHASES_t_start].d, 1.0, 1e-9);
	CHECK_NEAR(last.v[FS_PHASES_t_end].d, 1.5, 1e-9);
	CHECK_INT(last.v[FS_PHASES_pid].i, 43);

	CHECK_INT(parse("M1 42 loader.train.dataset torchvision.datasets.ImageFolder (root=/data x)"), 0);
	CHECK_STR(meta_key, "loader.train.dataset");
	CHECK_STR(meta_val, "torchvision.datasets.ImageFolder (root=/data x)");
	CHECK_INT(parse("M1 42 user.note"), 0); /* empty value */
	CHECK_STR(meta_val, "");

	int before_rows = rows, before_meta = metas;
	const char *bad[] = {
		"",
		"S1",
		"S1 42 train 1 7 3500000000 250000000",         /* a field short */
		"S1 42 train 1 7 3500000000 250000000 75 9",    /* a field long */
		"S1 42 train x 7 3500000000 250000000 750000000", /* not a number */
		"S1 -4 train 1 7 3500000000 250000000 750000000",
		"P1 43 checkpoint 2500000000 2000000000",       /* ends before it starts */
		"M1 42 exit_code 0",                            /* feedscope's own key */
		"M1 42 source.gpu ok",
		"X1 1 2 3",
		"S2 42 train 1 7 3500000000 250000000 750000000",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(parse(bad[i]), -1);
		if (parse(bad[i]) != -1)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
	}
	CHECK_INT(fs_markers_parse("S1 42 a\n 1 2 3 4 5", 19, &sink, 0), -1);
	CHECK_INT(fs_markers_parse("P1 1 a\0b 1 2", 12, &sink, 0), -1);
	char big[1100];
	memset(big, '7', sizeof big);
	memcpy(big, "M1 1 user.x ", 12);
	CHECK_INT(fs_markers_parse(big, sizeof big, &sink, 0), -1);
	CHECK_INT(rows, before_rows);
	CHECK_INT(metas, before_meta);
}

static int connect_to(const char *addr)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(addr);
	memcpy(sa.sun_path, addr, n);
	sa.sun_path[0] = '\0';
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_burst(void)
{
	char why[256];
	struct fs_markers *m = fs_markers_open(why, sizeof why);
	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(fs_markers_address(m)[0] == '@');
	/* Two senders, 250 records each, sent before feedscope reads anything:
	 * a datagram socket would keep only 10 of them (max_dgram_qlen); a
	 * connection holds ~270 small records in its default send buffer. */
	int a = connect_to(fs_markers_address(m)), b = connect_to(fs_markers_address(m));
	CHECK(a >= 0 && b >= 0);
	char rec[128];
	int sent = 0;
	for (int i = 0; i < 250; i++) {
		int n = snprintf(rec, sizeof rec, "S1 1 a 0 %d 2000000000 1000 2000", i);
		sent += send(a, rec, (size_t)n, MSG_DONTWAIT) == n;
		n = snprintf(rec, sizeof rec, "S1 2 b 0 %d 2000000000 1000 2000", i);
		sent += send(b, rec, (size_t)n, MSG_DONTWAIT) == n;
	}
	CHECK_INT(sent, 500);
	send(a, "garbage", 7, MSG_DONTWAIT);
	rows = metas = 0;
	fs_markers_drain(m, &sink, 1000000000ull);
	CHECK_INT(rows, 500);
	int fds[8];
	CHECK_INT(fs_markers_fds(m, fds, 8), 3); /* listener + 2 connections */
	close(a);
	close(b);
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(fs_markers_fds(m, fds, 8), 1); /* closed connections are dropped */
	metas = 0;
	fs_markers_close(m, &sink, 0);
	CHECK(metas >= 5);
	/* the counters: the last meta written is bad_records = 1 */
	CHECK_STR(meta_key, "markers.bad_records");
	CHECK_STR(meta_val, "1");
}

int main(void)
{
	test_parse();
	test_burst();
	return check_exit("test_markers");
}
