/* runfile.c - opening a run file safely for the exporter (runfile.h). */
#include "serve/runfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

typedef int (*open_fn)(const char *, int, int);

static open_fn real_open;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool hooked;

static _Thread_local bool guarded;
static _Thread_local int handoff = -1;  /* the descriptor the next main-file open gets */
static _Thread_local uint64_t deadline; /* fs_now_ns; 0: none */

/* SQLite's unix VFS calls this for every file it opens (it adds
 * O_CLOEXEC itself). Another thread's opens (the recorder's, under run
 * --export) go through as they were. */
static int guarded_open(const char *path, int flags, int mode)
{
	if (!guarded)
		return real_open(path, flags, mode);
	if (handoff >= 0 && (flags & (O_ACCMODE | O_CREAT)) == O_RDONLY) {
		/* the main file of the connection being opened (its first open): the
		 * descriptor already checked, never the name again */
		int fd = handoff;
		handoff = -1;
		return fd;
	}
	int fd = real_open(path, flags | O_NONBLOCK, mode);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) && !strcmp(path, "/dev/urandom"))))
		return fd;
	close(fd); /* not a regular file: no SQLite lock can be on it */
	errno = ENXIO;
	return -1;
}

static void install(void)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find("unix");
	if (!vfs || vfs->iVersion < 3 || !vfs->xGetSystemCall || !vfs->xSetSystemCall)
		return;
	real_open = (open_fn)vfs->xGetSystemCall(vfs, "open");
	hooked = real_open && vfs->xSetSystemCall(vfs, "open", (sqlite3_syscall_ptr)guarded_open) == SQLITE_OK;
}

void fs_runfile_guard_thread(void)
{
	pthread_once(&once, install);
	guarded = hooked;
}

void fs_runfile_set_deadline(uint64_t deadline_ns)
{
	deadline = deadline_ns;
}

/* Waiting for a lock: in 5 ms steps, FS_RUNFILE_LOCK_WAIT_MS at most and
 * not past the thread's deadline (a recorder's commit holds its lock for
 * milliseconds; a file locked longer is someone else's doing). */
static int on_busy(void *arg, int n)
{
	(void)arg;
	if (!deadline || n >= FS_RUNFILE_LOCK_WAIT_MS / 5 || fs_now_ns() + 5000000u > deadline)
		return 0;
	nanosleep(&(struct timespec){0, 5000000L}, NULL);
	return 1;
}

/* Every 1000 virtual-machine steps: past the deadline, interrupt. */
static int on_progress(void *arg)
{
	(void)arg;
	return deadline && fs_now_ns() > deadline;
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
		: S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int fs_runfile_open(struct fs_q *q, const char *path, struct fs_runfile_stat *st, char *err, size_t errlen)
{
	memset(q, 0, sizeof *q);
	fs_runfile_guard_thread();
	if (!hooked) {
		snprintf(err, errlen, "SQLite's unix VFS cannot be given a descriptor");
		return -1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fd <= 2) { /* SQLite keeps 0-2 free: move it up */
		int up = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		close(fd);
		fd = up;
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "not a regular file (%s)", kind_of(sb.st_mode));
		close(fd); /* not a regular file: no SQLite lock can be on it */
		return -1;
	}
	if (st)
		*st = (struct fs_runfile_stat){sb.st_dev, sb.st_ino, (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec,
					       (int64_t)sb.st_size};
	char name[64];
	snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
	sqlite3 *db = NULL;
	handoff = fd;
	int rc = sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY, NULL);
	if (handoff >= 0) {
		/* not taken: SQLite failed before it opened the file, so no
		 * connection of ours has a lock through it */
		close(handoff);
		handoff = -1;
	}
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_handler(db, on_busy, NULL);
	sqlite3_progress_handler(db, 1000, on_progress, NULL);
	fs_q_use(q, db);
	q->borrowed = false; /* fs_q_close closes it */
	double n;
	bool got = fs_q_row(q, "SELECT count(*) FROM meta", 1, &n);
	if (fs_q_failed(q))
		snprintf(err, errlen, "%s", fs_q_failed(q));
	else if (!got || !(n > 0))
		snprintf(err, errlen, "not a feedscope run file");
	if (fs_q_failed(q) || !got || !(n > 0)) {
		fs_q_close(q);
		return -1;
	}
	return 0;
}
