/* blocked - what a process is blocked on, from /proc (blocked.h). */
#include "source/blocked.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source/procstat.h"
#include "util/parse.h"
#include "util/pfile.h"

/* The calls a stalled thread is usually found in, with the argument that
 * holds the descriptor it waits on (-1: none). Each only where this
 * architecture has it (arm64's generic table has no open, poll, select,
 * epoll_wait). */
static const struct {
	long nr;
	const char *name;
	int fd_arg;
} calls[] = {
#define C(name, fd) {SYS_##name, #name, fd},
	C(read, 0) C(write, 0) C(readv, 0) C(writev, 0) C(pread64, 0) C(pwrite64, 0) C(preadv, 0) C(preadv2, 0)
	C(recvfrom, 0) C(recvmsg, 0) C(recvmmsg, 0) C(sendto, 0) C(sendmsg, 0) C(accept4, 0) C(connect, 0)
	C(openat, -1) C(futex, -1) C(nanosleep, -1) C(clock_nanosleep, -1) C(wait4, -1) C(waitid, -1)
	C(ppoll, -1) C(pselect6, -1) C(epoll_pwait, 0) C(fsync, 0) C(fdatasync, 0) C(flock, 0) C(fcntl, 0)
	C(ioctl, 0) C(rt_sigsuspend, -1) C(rt_sigtimedwait, -1) C(io_getevents, -1) C(io_uring_enter, 0)
	C(splice, 0) C(sendfile, 1) C(copy_file_range, 0) C(msgrcv, -1) C(semtimedop, -1) C(sync_file_range, 0)
	C(close, 0) C(newfstatat, 0) C(statx, 0) C(getdents64, 0) C(mmap, -1) C(munmap, -1) C(exit_group, -1)
	C(execve, -1) C(clone, -1) C(sched_yield, -1) C(getrandom, -1)
#ifdef SYS_open
	C(open, -1)
#endif
#ifdef SYS_poll
	C(poll, -1)
#endif
#ifdef SYS_select
	C(select, -1)
#endif
#ifdef SYS_epoll_wait
	C(epoll_wait, 0)
#endif
#ifdef SYS_accept
	C(accept, 0)
#endif
#ifdef SYS_pause
	C(pause, -1)
#endif
#ifdef SYS_semop
	C(semop, -1)
#endif
#ifdef SYS_epoll_pwait2
	C(epoll_pwait2, 0)
#endif
#undef C
};

const char *fs_syscall_name(long nr)
{
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (calls[i].nr == nr)
			return calls[i].name;
	return NULL;
}

int fs_syscall_fd_arg(long nr)
{
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (calls[i].nr == nr)
			return calls[i].fd_arg;
	return -1;
}

static bool hex_word(const char **p, uint64_t *v)
{
	const char *tok;
	size_t len = fs_next_word(p, &tok);
	if (len < 3 || len > 18 || tok[0] != '0' || tok[1] != 'x')
		return false;
	char buf[20], *end;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf + 2, &end, 16);
	return errno == 0 && *end == '\0';
}

bool fs_syscall_parse(const char *text, struct fs_syscall *out)
{
	memset(out, 0, sizeof *out);
	const char *p = text, *tok;
	size_t len = fs_next_word(&p, &tok);
	uint64_t skip;
	if (len == 7 && !memcmp(tok, "running", 7)) {
		out->kind = FS_SC_RUNNING;
		return true;
	}
	if (len == 2 && !memcmp(tok, "-1", 2)) { /* outside a call: SP PC */
		out->kind = FS_SC_NONE;
		return hex_word(&p, &skip) && hex_word(&p, &skip);
	}
	const char *q = tok;
	uint64_t nr;
	if (len == 0 || !fs_scan_u64(&q, &nr) || q != tok + len || nr > 1000000)
		return false;
	out->kind = FS_SC_CALL;
	out->nr = (long)nr;
	for (int i = 0; i < 6; i++)
		if (!hex_word(&p, &out->args[i]))
			return false;
	return hex_word(&p, &skip) && hex_word(&p, &skip); /* SP PC */
}

/* "0100007F:1F90" (the kernel's %08X of the address as it lies in memory,
 * then the port): into "127.0.0.1:8080" or "[::1]:8080". */
static bool inet_text(const char *tok, size_t len, char *out, size_t cap)
{
	unsigned char addr[16];
	size_t hexlen = len > 5 ? len - 5 : 0;
	if ((hexlen != 8 && hexlen != 32) || tok[hexlen] != ':')
		return false;
	for (size_t w = 0; w < hexlen / 8; w++) {
		char word[9];
		memcpy(word, tok + w * 8, 8);
		word[8] = '\0';
		char *end;
		uint32_t v = (uint32_t)strtoul(word, &end, 16);
		if (*end)
			return false;
		memcpy(addr + w * 4, &v, 4);
	}
	char port[5], *end;
	memcpy(port, tok + hexlen + 1, 4);
	port[4] = '\0';
	unsigned long pv = strtoul(port, &end, 16);
	if (*end)
		return false;
	char a[INET6_ADDRSTRLEN];
	if (!inet_ntop(hexlen == 8 ? AF_INET : AF_INET6, addr, a, sizeof a))
		return false;
	snprintf(out, cap, hexlen == 8 ? "%s:%lu" : "[%s]:%lu", a, pv);
	return true;
}

static const char *const tcp_states[] = {"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
					 "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
					 "NEW_SYN_RECV"};

bool fs_blocked_find_inet(const char *text, uint64_t inode, char *local, size_t lcap, char *remote,
			  size_t rcap, char *state, size_t scap)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line, *tok[10];
		size_t len[10];
		int n = 0;
		while (n < 10 && (len[n] = fs_next_word(&p, &tok[n])) > 0)
			n++;
		if (n < 10 || tok[0][len[0] - 1] != ':') /* the header, or a cut line */
			continue;
		const char *q = tok[9];
		uint64_t ino;
		if (!fs_scan_u64(&q, &ino) || q != tok[9] + len[9] || ino != inode)
			continue;
		if (!inet_text(tok[1], len[1], local, lcap) || !inet_text(tok[2], len[2], remote, rcap))
			return false;
		unsigned long st = strtoul(tok[3], NULL, 16);
		snprintf(state, scap, "%s", st < sizeof tcp_states / sizeof tcp_states[0] ? tcp_states[st] : "?");
		return true;
	}
	return false;
}

bool fs_blocked_find_unix(const char *text, uint64_t inode, char *path, size_t cap)
{
	/* Num RefCount Protocol Flags Type St Inode [Path] */
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line, *tok;
		for (int i = 0; i < 6; i++)
			if (!fs_next_word(&p, &tok))
				goto next;
		uint64_t ino;
		const char *q = p;
		if (!fs_scan_u64(&q, &ino) || (*q && *q != ' ' && *q != '\n') || ino != inode)
			continue;
		size_t len = fs_next_word(&q, &tok);
		snprintf(path, cap, "%.*s", (int)len, tok);
		return true;
next:;
	}
	return false;
}

int fs_blocked_kstack(const char *text, char *out, size_t cap)
{
	int n = 0;
	size_t o = 0;
	if (cap)
		out[0] = '\0';
	for (const char *line = text; line && *line && n < 8; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *f = strchr(line, ']');
		const char *eol = strchrnul(line, '\n');
		if (!f || f > eol)
			continue;
		f++;
		while (*f == ' ')
			f++;
		size_t len = strcspn(f, "+ \n");
		if (!len || f + len > eol)
			continue;
		int w = snprintf(out + o, cap - o, "%s%.*s", n ? " < " : "", (int)len, f);
		if (w < 0 || (size_t)w >= cap - o) {
			out[o] = '\0';
			break;
		}
		o += (size_t)w;
		n++;
	}
	return n;
}

/* <proc>/PID/REL into out. */
static char *pid_path(char *out, size_t cap, const struct fs_paths *paths, int pid, const char *rel)
{
	char r[128];
	snprintf(r, sizeof r, "%d/%s", pid, rel);
	return fs_proc_path(out, cap, paths, r);
}

/* Read cap-1 bytes of the job's memory at addr as a string (the path an
 * open() waits on). False where the kernel refuses (another user, ptrace
 * not allowed) or the address is not mapped. */
static bool mem_read(const struct fs_paths *paths, int pid, uint64_t addr, void *buf, size_t len)
{
	char path[512];
	int fd = open(pid_path(path, sizeof path, paths, pid, "mem"), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len || (n > 0 && len > 1 && memchr(buf, '\0', (size_t)n));
}

/* What the link of one descriptor names, and its kind. */
static void fd_target(const struct fs_paths *paths, struct fs_blocked *b, int fd)
{
	char link[512], rel[64], text[320];
	snprintf(rel, sizeof rel, "fd/%d", fd);
	pid_path(link, sizeof link, paths, b->pid, rel);
	ssize_t n = readlink(link, text, sizeof text - 1);
	if (n < 0) {
		snprintf(b->target_kind, sizeof b->target_kind, "gone");
		snprintf(b->target, sizeof b->target, "fd %d: %s", fd, strerror(errno));
		return;
	}
	text[n] = '\0';
	snprintf(b->target, sizeof b->target, "%s", text);
	unsigned long long ino;
	if (sscanf(text, "socket:[%llu]", &ino) == 1) {
		static const char *const nets[] = {"tcp", "tcp6", "udp", "udp6"};
		struct fs_buf buf = {0};
		snprintf(b->target_kind, sizeof b->target_kind, "socket");
		for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
			char f[64], p[512], loc[64], rem[64], st[16];
			snprintf(f, sizeof f, "net/%s", nets[i]);
			if (fs_read_file(pid_path(p, sizeof p, paths, b->pid, f), &buf) < 0)
				continue;
			if (fs_blocked_find_inet(buf.data, ino, loc, sizeof loc, rem, sizeof rem, st, sizeof st)) {
				snprintf(b->target_kind, sizeof b->target_kind, "%s", nets[i]);
				snprintf(b->peer, sizeof b->peer, "%s -> %s (%s)", loc, rem, st);
				fs_buf_free(&buf);
				return;
			}
		}
		char p[512], up[128];
		if (fs_read_file(pid_path(p, sizeof p, paths, b->pid, "net/unix"), &buf) >= 0 &&
		    fs_blocked_find_unix(buf.data, ino, up, sizeof up)) {
			snprintf(b->target_kind, sizeof b->target_kind, "unix");
			snprintf(b->peer, sizeof b->peer, "%s", up);
		}
		fs_buf_free(&buf);
		return;
	}
	const char *kind = "path";
	struct stat st;
	if (!strncmp(text, "pipe:[", 6))
		kind = "pipe";
	else if (!strncmp(text, "anon_inode:", 11))
		kind = "anon";
	else if (stat(link, &st) == 0)
		kind = S_ISFIFO(st.st_mode) ? "fifo" : S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir"
		     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)                    ? "device"
										       : "path";
	snprintf(b->target_kind, sizeof b->target_kind, "%s", kind);
}

/* The descriptors a poll() or ppoll() waits on, read from the job's memory:
 * "fds 5 7 9" (at most 8). */
static void polled(const struct fs_paths *paths, struct fs_blocked *b)
{
	struct pollfd pf[8];
	uint64_t n = b->sc.args[1] < 8 ? b->sc.args[1] : 8;
	if (n == 0 || !mem_read(paths, b->pid, b->sc.args[0], pf, n * sizeof pf[0]))
		return;
	size_t o = (size_t)snprintf(b->target, sizeof b->target, "fds");
	for (uint64_t i = 0; i < n && o < sizeof b->target; i++)
		o += (size_t)snprintf(b->target + o, sizeof b->target - o, " %d", pf[i].fd);
	snprintf(b->target_kind, sizeof b->target_kind, "polled");
	if (n == 1 && pf[0].fd >= 0) { /* one descriptor: name it */
		b->fd = pf[0].fd;
		fd_target(paths, b, pf[0].fd);
	}
}

/* What the call waits on: its descriptor's file or socket, the path an
 * open() waits on (a FIFO without a writer), poll()'s descriptors. */
static void call_target(const struct fs_paths *paths, bool mem, struct fs_blocked *b)
{
	const char *name = fs_syscall_name(b->sc.nr);
	int arg = fs_syscall_fd_arg(b->sc.nr);
	if (arg >= 0 && b->sc.args[arg] < 1u << 20) {
		b->fd = (int)b->sc.args[arg];
		fd_target(paths, b, b->fd);
		return;
	}
	if (!mem || !name)
		return;
	uint64_t at = !strcmp(name, "openat") ? b->sc.args[1] : !strcmp(name, "open") ? b->sc.args[0] : 0;
	char path[256];
	if (at && mem_read(paths, b->pid, at, path, sizeof path)) {
		path[sizeof path - 1] = '\0';
		snprintf(b->target, sizeof b->target, "%s", path);
		struct stat st;
		snprintf(b->target_kind, sizeof b->target_kind, "%s",
			 path[0] == '/' && stat(path, &st) == 0 && S_ISFIFO(st.st_mode) ? "fifo" : "path");
	} else if (!strcmp(name, "poll") || !strcmp(name, "ppoll")) {
		polled(paths, b);
	}
}

int fs_blocked_read(const struct fs_paths *paths, int pid, bool mem, struct fs_blocked *b)
{
	memset(b, 0, sizeof *b);
	b->pid = pid;
	b->fd = -1;
	char path[512];
	struct fs_buf buf = {0};
	struct fs_pstat ps;
	if (fs_read_file(pid_path(path, sizeof path, paths, pid, "stat"), &buf) < 0 || !fs_pstat_parse(buf.data, &ps)) {
		fs_buf_free(&buf);
		return -1;
	}
	b->ppid = ps.ppid;
	b->state = ps.state;
	b->starttime = ps.starttime;
	snprintf(b->comm, sizeof b->comm, "%s", ps.comm);
	if (fs_read_file(pid_path(path, sizeof path, paths, pid, "syscall"), &buf) < 0)
		snprintf(b->syscall_why, sizeof b->syscall_why, "syscall: %s", strerror(errno));
	else if (!fs_syscall_parse(buf.data, &b->sc))
		snprintf(b->syscall_why, sizeof b->syscall_why, "syscall: not understood");
	else
		b->have_syscall = true;
	if (b->have_syscall && b->sc.kind == FS_SC_CALL)
		call_target(paths, mem, b);
	if (fs_read_line(pid_path(path, sizeof path, paths, pid, "wchan"), b->wchan, sizeof b->wchan) > 0 &&
	    !strcmp(b->wchan, "0"))
		b->wchan[0] = '\0';
	if (fs_read_file(pid_path(path, sizeof path, paths, pid, "stack"), &buf) < 0)
		snprintf(b->kstack_why, sizeof b->kstack_why, "stack: %s", strerror(errno));
	else if (fs_blocked_kstack(buf.data, b->kstack, sizeof b->kstack) == 0)
		snprintf(b->kstack_why, sizeof b->kstack_why, "stack: empty");
	fs_buf_free(&buf);
	return 0;
}
