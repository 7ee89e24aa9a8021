/* The receiving end of the marker channel: record parsing (good and bad
 * records), text cleaning (control characters, invalid UTF-8, long values),
 * a burst of records far beyond a datagram queue's 10, all received, a
 * stranger (another uid) holding 300 connections: refused, unread, and the
 * job's own connection still served; steps held for their device figure
 * (S2 then D1): written when it comes, without it when the figure is
 * unknown, never comes (held too long, the hold full, the connection
 * closed, the channel closed), or is malformed. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "record/markers.h"

/* A sink that keeps the last row and meta, and counts. */
static struct fs_row last;
static char meta_key[128], meta_val[256];
static int rows, metas;
static char loaders[8][64];
/* the steps rows of the device tests: pid, step, device_idle_s (NaN: NULL) */
static struct {
	long pid, step;
	double idle;
} dev[2048];
static int ndev, step_rows;
static char stage_text[3][128]; /* the last loader_stages row's loader, kind, stage */

static void on_row(struct fs_sink *s, const struct fs_row *r)
{
	(void)s;
	last = *r;
	if (r->table == FS_T_STEPS && rows < 8)
		snprintf(loaders[rows], sizeof loaders[0], "%s", r->v[FS_STEPS_loader].s);
	step_rows += r->table == FS_T_STEPS;
	if (r->table == FS_T_STEPS && ndev < 2048) {
		const struct fs_value *d = &r->v[FS_STEPS_device_idle_s];
		dev[ndev].pid = (long)r->v[FS_STEPS_pid].i;
		dev[ndev].step = (long)r->v[FS_STEPS_step].i;
		dev[ndev++].idle = d->kind == FS_V_REAL ? d->d : NAN;
	}
	/* text values are borrowed: don't keep the pointers */
	if (r->table == FS_T_PHASES)
		last.v[FS_PHASES_name].s = NULL;
	if (r->table == FS_T_STEPS)
		last.v[FS_STEPS_loader].s = NULL;
	if (r->table == FS_T_LOADER_STAGES) {
		snprintf(stage_text[0], sizeof stage_text[0], "%s", r->v[FS_LOADER_STAGES_loader].s);
		snprintf(stage_text[1], sizeof stage_text[1], "%s", r->v[FS_LOADER_STAGES_kind].s);
		snprintf(stage_text[2], sizeof stage_text[2], "%s", r->v[FS_LOADER_STAGES_stage].s);
		last.v[FS_LOADER_STAGES_loader].s = last.v[FS_LOADER_STAGES_kind].s = NULL;
		last.v[FS_LOADER_STAGES_stage].s = NULL;
	}
	rows++;
}

static size_t meta_len;
static char refused_peers[32], bad_records[32], device_steps[32], device_unmatched[32];

static void on_meta(struct fs_sink *s, const char *k, const char *v)
{
	(void)s;
	snprintf(meta_key, sizeof meta_key, "%s", k);
	snprintf(meta_val, sizeof meta_val, "%s", v);
	meta_len = strlen(v);
	if (!strcmp(k, "markers.refused_peers"))
		snprintf(refused_peers, sizeof refused_peers, "%s", v);
	if (!strcmp(k, "markers.bad_records"))
		snprintf(bad_records, sizeof bad_records, "%s", v);
	if (!strcmp(k, "markers.device_steps"))
		snprintf(device_steps, sizeof device_steps, "%s", v);
	if (!strcmp(k, "markers.device_unmatched"))
		snprintf(device_unmatched, sizeof device_unmatched, "%s", v);
	metas++;
}

static struct fs_sink sink = {.row = on_row, .meta = on_meta};

static int parse(const char *rec)
{
	return fs_markers_parse(rec, strlen(rec), &sink, 1000000000ull);
}

/* G1: a worker's time in one stage of its pipeline (docs/markers.md, "Stages"). */
static void test_parse_stage(void)
{
	rows = metas = 0;
	CHECK_INT(parse("G1 77 ImageNet 3500000000 1000000000 transform 40 120000000 110000000 transform[2]:RandomResizedCrop"), 0);
	CHECK_INT(rows, 1);
	CHECK_INT(last.table, FS_T_LOADER_STAGES);
	CHECK_NEAR(last.v[FS_LOADER_STAGES_t].d, 2.5, 1e-9);
	CHECK_NEAR(last.v[FS_LOADER_STAGES_dt_s].d, 1.0, 1e-12);
	CHECK_INT(last.v[FS_LOADER_STAGES_pid].i, 77);
	CHECK_STR(stage_text[0], "ImageNet");
	CHECK_STR(stage_text[1], "transform");
	CHECK_STR(stage_text[2], "transform[2]:RandomResizedCrop");
	CHECK_INT(last.v[FS_LOADER_STAGES_calls].i, 40);
	CHECK_NEAR(last.v[FS_LOADER_STAGES_wall_s].d, 0.12, 1e-12);
	CHECK_NEAR(last.v[FS_LOADER_STAGES_cpu_s].d, 0.11, 1e-12);
	/* a name with a control character is kept, cleaned (1: cleaned) */
	CHECK_INT(parse("G1 77 L 3500000000 1000 collate 1 10 5 a\033b"), 1);
	CHECK_STR(stage_text[2], "a?b");
	int before = rows;
	const char *bad[] = {
		"G1 77 L 3500000000 1000 transform 40 120000000 110000000",            /* no name */
		"G1 77 L 3500000000 1000 transform 40 120000000 110000000 a b",        /* a field long */
		"G1 77 L 3500000000 1000 decode 40 120000000 110000000 x",             /* not a kind */
		"G1 77 L 3500000000 1000 transform -4 120000000 110000000 x",          /* a negative count */
		"G1 77 L 3500000000 1000 transform 40 1.5 110000000 x",                /* not a whole number */
		"G1 x L 3500000000 1000 transform 40 120000000 110000000 x",
		"G1 77 L 3500000000 transform 40 120000000 110000000 x",          /* no interval */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(parse(bad[i]), -1);
		if (parse(bad[i]) != -1)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
	}
	CHECK_INT(rows, before);
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
	CHECK_INT(last.v[FS_STEPS_device_idle_s].kind, FS_V_NULL); /* not measured */

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
		"S2 42 train 1 7 3500000000 250000000 750000000", /* held steps need a channel */
		"D1 42 train 1 7 5000000",
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

/* clean(in) as a string, and whether it changed */
static const char *clean(const char *in, size_t cap, bool *changed)
{
	static char out[64];
	fs_markers_clean(out, cap, in, strlen(in), changed);
	return out;
}

static void test_clean(void)
{
	bool ch;
	CHECK_STR(clean("plain ascii (x=1)", 64, &ch), "plain ascii (x=1)");
	CHECK(!ch);
	CHECK_STR(clean("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80", 64, &ch), "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x9a\x80");
	CHECK(!ch);
	CHECK_STR(clean("\x1b[31mred\x1b[0m", 64, &ch), "?[31mred?[0m");
	CHECK(ch);
	CHECK_STR(clean("a\tb\rc\x7f", 64, &ch), "a?b?c?");
	CHECK_STR(clean("\xc2\x9b" "2J", 64, &ch), "?2J"); /* C1 CSI, encoded */
	CHECK_STR(clean("\xe2\x80\xae" "txt.exe", 64, &ch), "?txt.exe"); /* RIGHT-TO-LEFT OVERRIDE */
	CHECK_STR(clean("a\xe2\x80\xa8" "b", 64, &ch), "a?b");          /* LINE SEPARATOR */
	CHECK_STR(clean("\xff\xfe", 64, &ch), "??");
	CHECK_STR(clean("\xc0\xaf", 64, &ch), "??");         /* overlong '/' */
	CHECK_STR(clean("\xed\xa0\x80", 64, &ch), "???");   /* a surrogate */
	CHECK_STR(clean("\xf4\x90\x80\x80", 64, &ch), "????"); /* above U+10FFFF */
	CHECK_STR(clean("ab\xe6\x97", 64, &ch), "ab??");     /* cut short */
	CHECK(ch);
	/* cut to fit, never inside a character */
	CHECK_STR(clean("abcdef", 4, &ch), "abc");
	CHECK(ch);
	CHECK_STR(clean("ab\xc3\xa9", 4, &ch), "ab");
	CHECK_STR(clean("ab\xc3\xa9", 5, &ch), "ab\xc3\xa9");
	CHECK(!ch);
}

static void test_parse_clean(void)
{
	rows = metas = 0;
	CHECK_INT(parse("M1 42 user.owner \x1b]0;owned\x07\x1b[2Jhi"), 1);
	CHECK_STR(meta_key, "user.owner");
	CHECK_STR(meta_val, "?]0;owned?" "?[2Jhi");
	CHECK_INT(parse("M1 42 user.bytes \xff\xc3\x28 ok \xc3\xa9"), 1);
	CHECK_STR(meta_val, "?" "?( ok \xc3\xa9");
	CHECK_INT(parse("M1 42 user.fine caf\xc3\xa9 (root=/data)"), 0);
	CHECK_STR(meta_val, "caf\xc3\xa9 (root=/data)");
	/* a key must be printable ASCII: the record is refused, not cleaned */
	CHECK_INT(parse("M1 42 user.\x1b[31m x"), -1);
	CHECK_INT(parse("M1 42 user.caf\xc3\xa9 x"), -1);
	CHECK_INT(metas, 3);
	/* a huge value is cut to FS_MARKERS_MAX_VALUE bytes */
	char big[FS_MARKERS_MAX_RECORD];
	memset(big, 'v', sizeof big);
	memcpy(big, "M1 1 user.big ", 14);
	CHECK_INT(fs_markers_parse(big, sizeof big, &sink, 0), 1);
	CHECK_STR(meta_key, "user.big");
	CHECK_INT((int)meta_len, FS_MARKERS_MAX_VALUE);
	/* names in steps and phases are cleaned too */
	CHECK_INT(parse("S1 42 ev\x1bil 0 0 2000000000 1 1"), 1);
	CHECK_STR(loaders[0], "ev?il");
	CHECK_INT(parse("P1 42 \x9b\x1b 2000000000 2000000001"), 1);
	CHECK_INT(rows, 2);
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

static struct fs_markers *open_markers(void)
{
	char why[256];
	struct fs_markers *m = fs_markers_open(why, sizeof why);
	CHECK(m != NULL);
	return m;
}

static void test_burst(void)
{
	struct fs_markers *m = open_markers();
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
	/* the counters: one bad record; the last meta written is refused_peers */
	CHECK_STR(bad_records, "1");
	CHECK_STR(meta_key, "markers.refused_peers");
	CHECK_STR(meta_val, "0");
}

/* A stranger: as root, a child that became uid 65534; otherwise ourselves,
 * with the channel told that the job runs as another uid. It connects
 * 1 + 300 times, sends a fake step on each, and holds them until told. */
static void test_strangers(void)
{
	struct fs_markers *m = open_markers();
	if (!m)
		return;
	const char *addr = fs_markers_address(m);
	bool root = geteuid() == 0;
	int up[2], hold[2];
	CHECK(pipe(up) == 0 && pipe(hold) == 0);
	pid_t pid = -1;
	if (root)
		pid = fork();
	else
		fs_markers_set_job_uid(m, geteuid() + 1);
	if (pid == 0) {
		close(hold[1]);
		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(3);
		int n = 0;
		for (int i = 0; i < 301; i++) {
			int fd = connect_to(addr);
			n += fd >= 0 && send(fd, "S1 6 fake 0 0 2000000000 1 1", 28, MSG_DONTWAIT) == 28;
		}
		if (write(up[1], &n, sizeof n) < 0 || read(hold[0], &n, 1) < 0)
			_exit(4);
		_exit(0);
	}
	int n = 0;
	if (pid < 0) { /* not root: the stranger is this process */
		for (int i = 0; i < 301; i++) {
			int fd = connect_to(addr);
			n += fd >= 0 && send(fd, "S1 6 fake 0 0 2000000000 1 1", 28, MSG_DONTWAIT) == 28;
		}
		fs_markers_set_job_uid(m, geteuid());
	} else {
		CHECK(read(up[0], &n, sizeof n) == (ssize_t)sizeof n);
	}
	CHECK_INT(n, 301);
	rows = 0;
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(rows, 0); /* nothing read from a stranger */
	int fds[8];
	CHECK_INT(fs_markers_fds(m, fds, 8), 1); /* and no slot taken */
	/* the job's own connection, while the stranger still holds its sockets */
	int own = connect_to(addr);
	CHECK(own >= 0);
	CHECK(send(own, "S1 7 job 0 0 2000000000 1 1", 27, MSG_DONTWAIT) == 27);
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(rows, 1);
	CHECK_STR(loaders[0], "job");
	CHECK_INT(fs_markers_fds(m, fds, 8), 2);
	if (pid > 0) {
		close(hold[1]);
		int st = 0;
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(own);
	refused_peers[0] = '\0';
	fs_markers_close(m, &sink, 0);
	CHECK_STR(refused_peers, "301");
}

/* The tick reads only the connections the poll set could not hold: not
 * the listener (a pending connection waits for poll to say so), not the
 * polled ones (poll wakes the loop for them). */
static void test_unpolled(void)
{
	struct fs_markers *m = open_markers();
	if (!m)
		return;
	int a = connect_to(fs_markers_address(m)), b = connect_to(fs_markers_address(m));
	CHECK(a >= 0 && b >= 0);
	rows = 0;
	fs_markers_drain(m, &sink, 0); /* accepts both */
	int fds[8];
	CHECK_INT(fs_markers_fds(m, fds, 2), 2); /* listener + one connection: one left out */
	char rec[64];
	int n = snprintf(rec, sizeof rec, "S1 1 a 0 1 2000000000 1000 2000");
	CHECK(send(a, rec, (size_t)n, MSG_DONTWAIT) == n);
	CHECK(send(b, rec, (size_t)n, MSG_DONTWAIT) == n);
	int c = connect_to(fs_markers_address(m)); /* pending on the listener */
	CHECK(c >= 0);
	fs_markers_unpolled(m, &sink, 0);
	CHECK_INT(rows, 1); /* the one left out of the poll set */
	CHECK_INT(fs_markers_fds(m, fds, 8), 3); /* c not accepted by the tick */
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(rows, 2); /* poll's turn: the other, and c accepted */
	CHECK_INT(fs_markers_fds(m, fds, 8), 4);
	fs_markers_unpolled(m, &sink, 0); /* everything polled: nothing read */
	CHECK_INT(rows, 2);
	close(a);
	close(b);
	close(c);
	fs_markers_close(m, &sink, 0);
}

/* record(m, conn, rec, now): one record of connection conn at now_ns */
static int rec_at(struct fs_markers *m, int conn, const char *rec, uint64_t now_ns)
{
	return fs_markers_record(m, conn, rec, strlen(rec), &sink, 1000000000ull, now_ns);
}

static void test_device(void)
{
	struct fs_markers *m = open_markers();
	if (!m)
		return;
	const uint64_t hold = FS_MARKERS_HOLD_NS;
	rows = ndev = 0;
	/* an S2 step is held until its D1: written then, with the figure */
	CHECK_INT(rec_at(m, 5, "S2 42 train 0 0 3000000000 250000000 750000000", 100), 0);
	CHECK_INT(rec_at(m, 5, "S2 42 train 0 1 4000000000 250000000 750000000", 200), 0);
	CHECK_INT(rows, 0);
	CHECK_INT(rec_at(m, 5, "D1 42 train 0 1 5000000", 300), 0); /* either may come first */
	CHECK_INT(rows, 1);
	CHECK_INT(dev[0].step, 1);
	CHECK_NEAR(dev[0].idle, 0.005, 1e-15);
	CHECK_NEAR(last.v[FS_STEPS_t].d, 3.0, 1e-9);
	CHECK_NEAR(last.v[FS_STEPS_wait_s].d, 0.25, 1e-12);
	CHECK_NEAR(last.v[FS_STEPS_compute_s].d, 0.75, 1e-12);
	CHECK_INT(rec_at(m, 5, "D1 42 train 0 0 -", 300), 0); /* not known: NULL */
	CHECK_INT(rows, 2);
	CHECK(dev[1].step == 0 && isnan(dev[1].idle));
	CHECK_INT(rec_at(m, 5, "D1 42 train 0 0 7", 300), 0); /* written already: nothing */
	CHECK_INT(rows, 2);
	/* 0 is a figure: the device was never idle in the wait */
	CHECK_INT(rec_at(m, 5, "S2 42 train 0 2 4000000000 250000000 750000000", 300), 0);
	CHECK_INT(rec_at(m, 5, "D1 42 train 0 2 0", 300), 0);
	CHECK(rows == 3 && dev[2].idle == 0);

	/* malformed D1s are refused and leave the held step alone */
	CHECK_INT(rec_at(m, 5, "S2 42 train 0 3 4000000000 250000000 750000000", 400), 0);
	const char *bad[] = {
		"D1 42 train 0 3",      "D1 42 train 0 3 -5", "D1 42 train 0 3 5 6", "D1 42 train 0 3 x",
		"D1 42 train 0 3 --",   "D1 42 train 0 3 5 ", "D1 42 train 0 3 1.5", "D1 42 train 0 -",
		"D1 42 train 0 3 - 1",  "D1 x train 0 3 5",   "D1 42 train 0 3 99999999999999999999",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (rec_at(m, 5, bad[i], 400) != -1) {
			CHECK(0);
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
		}
	CHECK_INT(rows, 3);
	/* a D1 of another connection, pid, loader or epoch is not this step's */
	CHECK_INT(rec_at(m, 6, "D1 42 train 0 3 5", 400), 0);
	CHECK_INT(rec_at(m, 5, "D1 43 train 0 3 5", 400), 0);
	CHECK_INT(rec_at(m, 5, "D1 42 val 0 3 5", 400), 0);
	CHECK_INT(rec_at(m, 5, "D1 42 train 1 3 5", 400), 0);
	CHECK_INT(rows, 3);

	/* held too long: written without its figure; its D1 then finds none */
	fs_markers_expire(m, &sink, 400 + hold - 1);
	CHECK_INT(rows, 3);
	fs_markers_expire(m, &sink, 400 + hold);
	CHECK_INT(rows, 4);
	CHECK(dev[3].step == 3 && isnan(dev[3].idle));
	CHECK_INT(rec_at(m, 5, "D1 42 train 0 3 5", 400 + hold), 0);
	CHECK_INT(rows, 4);

	/* the hold full: the oldest goes without its figure to make room */
	char r[128];
	uint64_t now = 10 * hold;
	for (int i = 0; i <= FS_MARKERS_MAX_HELD; i++) {
		snprintf(r, sizeof r, "S2 7 big 0 %d 4000000000 1 1", i);
		CHECK_INT(rec_at(m, 9, r, now), 0);
	}
	CHECK_INT(rows, 5);
	CHECK(dev[4].pid == 7 && dev[4].step == 0 && isnan(dev[4].idle));
	snprintf(r, sizeof r, "D1 7 big 0 %d 1000", FS_MARKERS_MAX_HELD);
	CHECK_INT(rec_at(m, 9, r, now), 0); /* the newest: its figure */
	CHECK(rows == 6 && dev[5].step == FS_MARKERS_MAX_HELD && dev[5].idle == 1e-6);
	/* the rest in the order they came, without figures, when the channel closes */
	device_steps[0] = device_unmatched[0] = '\0';
	fs_markers_close(m, &sink, 0);
	CHECK_INT(rows, 6 + FS_MARKERS_MAX_HELD - 1);
	bool ordered = true;
	for (int i = 6; i < rows; i++)
		ordered &= dev[i].pid == 7 && dev[i].step == i - 5 && isnan(dev[i].idle);
	CHECK(ordered);
	CHECK_STR(device_steps, "3");     /* steps 1, 2 and the newest big one */
	CHECK_STR(device_unmatched, "6"); /* 0 again, the 4 of others, 3 late */
}

/* Through sockets: a connection that closes lets its held steps go
 * (without figures), not another's; a channel without any S2 writes no
 * device meta. */
static void test_device_conns(void)
{
	struct fs_markers *m = open_markers();
	if (!m)
		return;
	int a = connect_to(fs_markers_address(m)), b = connect_to(fs_markers_address(m));
	CHECK(a >= 0 && b >= 0);
	const char *ra[] = {"S2 1 a 0 0 2000000000 1000 2000", "S2 1 a 0 1 2000000000 1000 2000", "D1 1 a 0 0 250",
			    "S2 1 a 0 2 2000000000 1000 2000"};
	for (size_t i = 0; i < sizeof ra / sizeof ra[0]; i++)
		CHECK(send(a, ra[i], strlen(ra[i]), MSG_DONTWAIT) == (ssize_t)strlen(ra[i]));
	const char *rb = "S2 2 b 0 0 2000000000 1000 2000";
	CHECK(send(b, rb, strlen(rb), MSG_DONTWAIT) == (ssize_t)strlen(rb));
	rows = ndev = 0;
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(rows, 1);
	CHECK(dev[0].pid == 1 && dev[0].step == 0 && dev[0].idle == 250e-9);
	close(a); /* the job's process was killed: its steps stay, figures lost */
	fs_markers_drain(m, &sink, 0);
	CHECK_INT(rows, 3);
	CHECK(dev[1].pid == 1 && dev[1].step == 1 && isnan(dev[1].idle));
	CHECK(dev[2].pid == 1 && dev[2].step == 2 && isnan(dev[2].idle));
	const char *rb1 = "D1 2 b 0 0 9";
	CHECK(send(b, rb1, strlen(rb1), MSG_DONTWAIT) == (ssize_t)strlen(rb1));
	fs_markers_drain(m, &sink, 0);
	CHECK(rows == 4 && dev[3].pid == 2 && dev[3].idle == 9e-9);
	close(b);
	device_steps[0] = device_unmatched[0] = '\0';
	fs_markers_close(m, &sink, 0);
	CHECK_STR(device_steps, "2");
	CHECK_STR(device_unmatched, ""); /* none: no key */

	/* S1 only: no device meta at all */
	m = open_markers();
	if (!m)
		return;
	CHECK_INT(rec_at(m, 3, "S1 1 a 0 0 2000000000 1000 2000", 0), 0);
	device_steps[0] = '\0';
	fs_markers_close(m, &sink, 0);
	CHECK_STR(device_steps, "");
}

/* Random mutations of good S1, S2 and D1 records (bytes changed, cut,
 * doubled), from a few connections, with the hold expiring now and then:
 * whatever came, every accepted step is written exactly once, with a
 * figure at most as often as a D1 was accepted. */
static void test_device_mutations(void)
{
	struct fs_markers *m = open_markers();
	if (!m)
		return;
	static const char *const seeds[] = {
		"S2 42 train 0 %d 3000000000 250000000 750000000", "D1 42 train 0 %d 5000000", "D1 42 train 0 %d -",
		"S1 42 train 0 %d 3000000000 250000000 750000000", "S2 43 v\xc3\xa9 1 %d 3000000000 1 1",
		"D1 43 v\xc3\xa9 1 %d 0",
	};
	srand(35);
	rows = ndev = step_rows = 0;
	int steps = 0, figures = 0;
	uint64_t now = 0;
	for (int i = 0; i < 200000; i++) {
		char r[160];
		int n = snprintf(r, sizeof r, seeds[rand() % 6], rand() % 40);
		for (int k = rand() % 3; k > 0 && n > 0; k--) {
			int at = rand() % n;
			switch (rand() % 4) {
			case 0: r[at] = (char)(rand() % 256); break;
			case 1: n = at; break;
			case 2: r[at] = "0123456789- S"[rand() % 13]; break;
			default:
				if (n < (int)sizeof r - 1) {
					memmove(r + at + 1, r + at, (size_t)(n - at));
					n++;
				}
			}
		}
		int before = ndev;
		int rc = fs_markers_record(m, rand() % 3, r, (size_t)n, &sink, 0, now);
		if (rc >= 0 && n >= 3 && r[0] == 'S')
			steps++;
		if (rc >= 0 && n >= 3 && r[0] == 'D' && ndev > before && !isnan(dev[ndev - 1].idle))
			figures++;
		if (ndev > 2000)
			ndev = 0; /* (only the last rows are looked at) */
		now += 1000000;
		if (i % 1000 == 0)
			fs_markers_expire(m, &sink, now);
	}
	device_steps[0] = '\0';
	fs_markers_close(m, &sink, 0);
	CHECK(steps > 10000);
	CHECK_INT(step_rows, steps); /* (a mutation may make a phase: not counted) */
	CHECK(figures > 1000);
	CHECK_INT(atoi(device_steps), figures);
}

int main(void)
{
	test_parse_stage();
	test_parse();
	test_clean();
	test_parse_clean();
	test_burst();
	test_unpolled();
	test_strangers();
	test_device();
	test_device_conns();
	test_device_mutations();
	return check_exit("test_markers");
}
