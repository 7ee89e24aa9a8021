/* blocked.h - what a process is blocked on, read from outside while a
 * stall lasts (record/stall.h; docs/verdicts.md, "Stalls"): its state,
 * its system call and the arguments, the file or socket behind the call's
 * descriptor, its wait channel and its kernel stack. Every path goes
 * through the proc root (util/paths.h), so the tests read fixture trees.
 *
 * Nothing here is fatal: a file that cannot be read leaves its part empty
 * with the reason (a process of another user: EACCES; /proc/PID/stack is
 * root's only), and a process that exits between two reads gives what was
 * read before it went. */
#ifndef FS_SOURCE_BLOCKED_H
#define FS_SOURCE_BLOCKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/paths.h"

/* /proc/PID/syscall: "running", "-1 SP PC" (blocked outside a call: a
 * page fault), or "NR A0 A1 A2 A3 A4 A5 SP PC". */
enum fs_sc_kind { FS_SC_RUNNING, FS_SC_NONE, FS_SC_CALL };

struct fs_syscall {
	enum fs_sc_kind kind;
	long nr;          /* FS_SC_CALL only */
	uint64_t args[6]; /* FS_SC_CALL only */
};

/* Parse the syscall file's text. Returns false when it is none of the
 * three shapes (cut, junk). */
bool fs_syscall_parse(const char *text, struct fs_syscall *out);

/* The name of system call nr on this architecture ("read", "recvfrom",
 * "futex"), or NULL for one the table does not name. */
const char *fs_syscall_name(long nr);

/* Which argument of system call nr is the descriptor it waits on (0 for
 * read, recvfrom, accept, epoll_wait, ...), or -1 when none is (futex,
 * nanosleep, poll: the descriptors of poll are in the job's memory). */
int fs_syscall_fd_arg(long nr);

/* In the text of /proc/PID/net/tcp or tcp6 (the whole file), the socket
 * of this inode: its local and remote addresses ("127.0.0.1:4242",
 * "[::1]:80") and its TCP state ("ESTABLISHED"). Returns false when no
 * line has that inode. */
bool fs_blocked_find_inet(const char *text, uint64_t inode, char *local, size_t lcap, char *remote,
			  size_t rcap, char *state, size_t scap);

/* In the text of /proc/PID/net/unix, the path the socket of this inode is
 * bound to ("" for an unnamed one; "@name" for the abstract namespace).
 * Returns false when no line has that inode. */
bool fs_blocked_find_unix(const char *text, uint64_t inode, char *path, size_t cap);

/* The function names of /proc/PID/stack's text ("[<0>] pipe_read+0x31e/0x380"
 * lines), innermost first, joined by " < " into out[cap] (at most 8).
 * Returns how many were written. */
int fs_blocked_kstack(const char *text, char *out, size_t cap);

/* What one process is blocked on. Strings are "" when not known; *_why
 * says why a part is missing. */
struct fs_blocked {
	int pid, ppid;
	char comm[64];
	char state;             /* R, S, D, T, Z, ... from /proc/PID/stat; 0: gone */
	uint64_t starttime;     /* clock ticks since boot (a pid reused is another process) */
	bool have_syscall;
	struct fs_syscall sc;
	char syscall_why[96];   /* when !have_syscall */
	int fd;                 /* the descriptor the call waits on, -1 none */
	char target[320];       /* readlink of its fd ("/data/q.fifo", "pipe:[123]",
	                         * "socket:[456]"), or the path an open() waits on,
	                         * or, for poll, the descriptors it polls */
	char target_kind[16];   /* file, fifo, pipe, tcp, tcp6, udp, unix, socket, anon,
	                         * device, dir, gone (the fd vanished), polled, path */
	char peer[200];         /* tcp: "LOCAL -> REMOTE (STATE)"; unix: its bound path */
	char wchan[64];         /* /proc/PID/wchan ("" for "0") */
	char kstack[512];       /* fs_blocked_kstack of /proc/PID/stack */
	char kstack_why[96];    /* when kstack is "" */
};

/* Read pid's state, system call, wait target, wchan and kernel stack.
 * With mem true, the job's memory is read too (/proc/PID/mem: the path an
 * open() waits on, the descriptors of poll()), where the kernel lets us
 * (the same user, and ptrace allowed). Returns 0, or -1 when the process
 * is gone (its stat unreadable): b->state is then 0. */
int fs_blocked_read(const struct fs_paths *paths, int pid, bool mem, struct fs_blocked *b);

#endif
