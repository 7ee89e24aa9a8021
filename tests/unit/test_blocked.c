/* test_blocked - what a process is blocked on (source/blocked.h): the
 * parsers of /proc/PID/syscall, net/tcp, net/unix and stack; the reader
 * over the fixture trees of tests/fixtures/blocked/ (a FIFO, TCP and Unix
 * sockets, a descriptor that vanished, a process that exited, a syscall
 * file that cannot be read, a process on a CPU, an ugly name); and the
 * reader on live children of this test blocked in read and in poll. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "source/blocked.h"

#define FIXTURES "tests/fixtures/blocked"
#define FIFO "/tmp/feedscope-test-blocked.fifo" /* where fixture fifo's fd 5 links */

static void test_syscall_parse(void)
{
	struct fs_syscall sc;
	CHECK(fs_syscall_parse("running\n", &sc));
	CHECK_INT(sc.kind, FS_SC_RUNNING);
	CHECK(fs_syscall_parse("-1 0x7ffd5a1e8e28 0x7f3a3c91a07d\n", &sc));
	CHECK_INT(sc.kind, FS_SC_NONE);
	CHECK(fs_syscall_parse("45 0x3 0x7f3a2c1a0010 0x1000 0x0 0x0 0x0 0x7ffd5a1e8d18 0x7f3a3c9a9e7c\n", &sc));
	CHECK_INT(sc.kind, FS_SC_CALL);
	CHECK_INT(sc.nr, 45);
	CHECK_INT(sc.args[0], 3);
	CHECK_INT(sc.args[1], 0x7f3a2c1a0010);
	CHECK_INT(sc.args[2], 0x1000);
	/* cut, junk, a word that is not hex */
	CHECK(!fs_syscall_parse("45 0x3 0x7f3a2c1a0010", &sc));
	CHECK(!fs_syscall_parse("", &sc));
	CHECK(!fs_syscall_parse("garbage", &sc));
	CHECK(!fs_syscall_parse("-1 0x7ffd", &sc));
	CHECK(!fs_syscall_parse("0 0x5 zz 0x1 0x0 0x0 0x0 0x1 0x2", &sc));
	CHECK(!fs_syscall_parse("0 0x5 0x1 0x1 0x0 0x0 0x0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9 0x10000000000000000", &sc) ||
	      sc.kind == FS_SC_CALL);

	CHECK_STR(fs_syscall_name(SYS_read), "read");
	CHECK_STR(fs_syscall_name(SYS_recvfrom), "recvfrom");
	CHECK_STR(fs_syscall_name(SYS_futex), "futex");
	CHECK(fs_syscall_name(99999) == NULL);
	CHECK_INT(fs_syscall_fd_arg(SYS_read), 0);
	CHECK_INT(fs_syscall_fd_arg(SYS_sendfile), 1);
	CHECK_INT(fs_syscall_fd_arg(SYS_futex), -1);
	CHECK_INT(fs_syscall_fd_arg(99999), -1);
}

static void test_net_parsers(void)
{
	const char *tcp =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:8269 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2901211 1 0 100 0 0 10 0\n"
		"   1: 0100007F:90BE 0100007F:8269 01 00000000:00000000 00:00000000 00000000     0        0 2903186 1 0 20 4 30 10 -1\n"
		"   2: 0100007F:90BF 0100007F:82";
	char l[64], r[64], st[16];
	CHECK(fs_blocked_find_inet(tcp, 2903186, l, sizeof l, r, sizeof r, st, sizeof st));
	CHECK_STR(l, "127.0.0.1:37054");
	CHECK_STR(r, "127.0.0.1:33385");
	CHECK_STR(st, "ESTABLISHED");
	CHECK(fs_blocked_find_inet(tcp, 2901211, l, sizeof l, r, sizeof r, st, sizeof st));
	CHECK_STR(st, "LISTEN");
	CHECK(!fs_blocked_find_inet(tcp, 42, l, sizeof l, r, sizeof r, st, sizeof st));
	CHECK(!fs_blocked_find_inet("", 42, l, sizeof l, r, sizeof r, st, sizeof st));
	const char *tcp6 = "  sl  local_address                         remote_address                        st tx_queue rx_queue\n"
			   "   0: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:D431 01 "
			   "00000000:00000000 00:00000000 00000000     0        0 2903999 1 0 20 4 0 10 -1\n";
	CHECK(fs_blocked_find_inet(tcp6, 2903999, l, sizeof l, r, sizeof r, st, sizeof st));
	CHECK_STR(l, "[::1]:8080");
	CHECK_STR(r, "[::1]:54321");

	const char *unx = "Num       RefCount Protocol Flags    Type St Inode Path\n"
			  "0000000000000000: 00000002 00000000 00010000 0001 01 31330 /run/other.sock\n"
			  "0000000000000000: 00000003 00000000 00000000 0001 03 31337 /run/feeder.sock\n"
			  "0000000000000000: 00000003 00000000 00000000 0001 03 31338\n";
	char path[128];
	CHECK(fs_blocked_find_unix(unx, 31337, path, sizeof path));
	CHECK_STR(path, "/run/feeder.sock");
	CHECK(fs_blocked_find_unix(unx, 31338, path, sizeof path));
	CHECK_STR(path, "");
	CHECK(!fs_blocked_find_unix(unx, 3133, path, sizeof path)); /* a prefix of an inode is not it */
}

static void test_kstack(void)
{
	char out[512];
	CHECK_INT(fs_blocked_kstack("[<0>] anon_pipe_read+0x2d1/0x3b0\n[<0>] vfs_read+0x2f1/0x330\n", out, sizeof out), 2);
	CHECK_STR(out, "anon_pipe_read < vfs_read");
	CHECK_INT(fs_blocked_kstack("", out, sizeof out), 0);
	CHECK_STR(out, "");
	CHECK_INT(fs_blocked_kstack("junk\n[<0>] \n[<0>] do_syscall_64+0x82/0x190", out, sizeof out), 1);
	CHECK_STR(out, "do_syscall_64");
	char small[12];
	CHECK_INT(fs_blocked_kstack("[<0>] aaaaa+1\n[<0>] bbbbbbbb+1\n", small, sizeof small), 1);
	CHECK_STR(small, "aaaaa");
}

static void read_case(const char *c, int pid, struct fs_blocked *b, int want_rc)
{
	struct fs_paths p = {0};
	snprintf(p.proc, sizeof p.proc, "%s/%s/proc", FIXTURES, c);
	snprintf(p.sys, sizeof p.sys, "/nonexistent");
	int rc = fs_blocked_read(&p, pid, true, b);
	CHECK_INT(rc, want_rc);
	if (rc != want_rc)
		fprintf(stderr, "  case %s\n", c);
}

static void test_fixtures(void)
{
	struct fs_blocked b;
	unlink(FIFO);
	CHECK(mkfifo(FIFO, 0600) == 0);
	read_case("fifo", 500, &b, 0);
	CHECK_INT(b.state, 'S');
	CHECK(b.have_syscall);
	CHECK_INT(b.sc.nr, 0);
	CHECK_INT(b.fd, 5);
	CHECK_STR(b.target, FIFO);
	CHECK_STR(b.target_kind, "fifo");
	CHECK_STR(b.wchan, "anon_pipe_read");
	CHECK_STR(b.kstack, "anon_pipe_read < fifo_pipe_read < vfs_read < ksys_read < do_syscall_64 < "
			    "entry_SYSCALL_64_after_hwframe");
	unlink(FIFO); /* the same link now names nothing: a path, not a FIFO */
	read_case("fifo", 500, &b, 0);
	CHECK_STR(b.target_kind, "path");

	read_case("tcp", 501, &b, 0);
	CHECK_INT(b.fd, 3);
	CHECK_STR(b.target, "socket:[2903186]");
	CHECK_STR(b.target_kind, "tcp");
	CHECK_STR(b.peer, "127.0.0.1:37054 -> 127.0.0.1:33385 (ESTABLISHED)");
	CHECK_STR(b.kstack, "");
	CHECK(strstr(b.kstack_why, "stack:") != NULL); /* no stack file: said why */

	read_case("unix", 502, &b, 0);
	CHECK_INT(b.fd, 4);
	CHECK_STR(b.target_kind, "unix");
	CHECK_STR(b.peer, "/run/feeder.sock");

	read_case("gone", 503, &b, 0); /* fd 7 closed between the two reads */
	CHECK_INT(b.fd, 7);
	CHECK_STR(b.target_kind, "gone");
	CHECK(strstr(b.target, "fd 7:") != NULL);
	CHECK_STR(b.wchan, ""); /* "0" */

	read_case("exited", 504, &b, -1);
	CHECK_INT(b.state, 0);

	read_case("unreadable", 505, &b, 0);
	CHECK(!b.have_syscall);
	CHECK(strstr(b.syscall_why, "syscall:") != NULL);
	CHECK_INT(b.fd, -1);
	CHECK_STR(b.wchan, "do_epoll_wait");

	read_case("running", 506, &b, 0);
	CHECK_INT(b.state, 'R');
	CHECK(b.have_syscall);
	CHECK_INT(b.sc.kind, FS_SC_RUNNING);
	CHECK_INT(b.fd, -1);
	CHECK_STR(b.target, "");

	read_case("ugly", 507, &b, 0);
	CHECK_STR(b.comm, "a) b (c");
	CHECK_INT(b.state, 'D');
	CHECK_INT(b.sc.kind, FS_SC_NONE);
	CHECK_STR(b.wchan, "folio_wait_bit_common");
}

/* A child of ours blocked in read on a pipe, then one in poll on two. */
static void test_live(void)
{
	int p[2], q[2];
	if (pipe(p) < 0 || pipe(q) < 0) {
		CHECK(0);
		return;
	}
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	for (int kind = 0; kind < 2; kind++) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			struct pollfd pf[2] = {{p[0], POLLIN, 0}, {q[0], POLLIN, 0}};
			if (kind == 0)
				_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
			_exit(poll(pf, 2, 10000) > 0 ? 0 : 1);
		}
		struct fs_blocked b;
		int tries = 0;
		do { /* until it sits in its call (a fork is not instant) */
			usleep(20000);
			CHECK_INT(fs_blocked_read(&paths, pid, true, &b), 0);
		} while (++tries < 100 && !(b.have_syscall && b.sc.kind == FS_SC_CALL && b.state == 'S'));
		if (!b.have_syscall) {
			check_skip("/proc/%d/syscall unreadable here (%s)", (int)pid, b.syscall_why);
		} else if (kind == 0) {
			CHECK_STR(fs_syscall_name(b.sc.nr), "read");
			CHECK_INT(b.fd, p[0]);
			CHECK_STR(b.target_kind, "pipe");
			CHECK(!strncmp(b.target, "pipe:[", 6));
		} else {
			CHECK(fs_syscall_name(b.sc.nr) && strstr(fs_syscall_name(b.sc.nr), "poll"));
			char want[32];
			snprintf(want, sizeof want, "fds %d %d", p[0], q[0]);
			if (!strcmp(b.target_kind, "polled"))
				CHECK_STR(b.target, want);
			else /* the kernel would not let us read its memory */
				check_skip("/proc/%d/mem unreadable here", (int)pid);
		}
		if (write(p[1], "x", 1) != 1)
			CHECK(0);
		int st;
		CHECK_INT(waitpid(pid, &st, 0), pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		char c;
		if (kind == 1 && read(p[0], &c, 1) != 1) /* the poller left the byte */
			CHECK(0);
	}
}

int main(void)
{
	test_syscall_parse();
	test_net_parsers();
	test_kstack();
	test_fixtures();
	test_live();
	return check_exit("test_blocked");
}
