/* marker.c - the C side of the marker channel (include/feedscope.h,
 * docs/markers.md). Built into libfeedscope-marker.{a,so}; depends on libc
 * only. */
#include "feedscope.h"

#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { FD_UNTRIED = -2, FD_OFF = -1 };

static _Atomic int chan_fd = FD_UNTRIED;
static _Atomic int cached_pid;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

#define MAX_PHASES 8

struct thread_state {
	char loader[64];
	long epoch;
	long step;
	bool waiting, pending;
	uint64_t wait_begin_ns, got_ns;
	int nphases;
	struct {
		char name[64];
		uint64_t start_ns;
	} phases[MAX_PHASES];
};

static _Thread_local struct thread_state ts = {.loader = "train"};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void after_fork_child(void)
{
	atomic_store(&cached_pid, (int)getpid());
}

static void register_atfork(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

/* Connect once per process; FD_OFF when there is no feedscope. */
static int channel(void)
{
	int fd = atomic_load_explicit(&chan_fd, memory_order_acquire);
	if (fd != FD_UNTRIED)
		return fd;
	int saved = errno;
	int made = FD_OFF;
	const char *addr = getenv("FEEDSCOPE_MARKERS");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = addr ? strlen(addr) : 0;
	if (n > 1 && addr[0] == '@' && n < sizeof sa.sun_path) {
		memcpy(sa.sun_path, addr, n);
		sa.sun_path[0] = '\0';
		int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (s >= 0 &&
		    connect(s, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) == 0) {
			/* ~1300 small records may wait for feedscope instead of ~270
			 * (capped by net.core.wmem_max). */
			int bytes = 1 << 20;
			setsockopt(s, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
			made = s;
		} else if (s >= 0) {
			close(s);
		}
	}
	int expected = FD_UNTRIED;
	if (!atomic_compare_exchange_strong(&chan_fd, &expected, made)) {
		if (made >= 0)
			close(made); /* another thread won */
		made = expected;
	} else if (made >= 0) {
		atomic_store(&cached_pid, (int)getpid());
		pthread_once(&atfork_once, register_atfork);
	}
	errno = saved;
	return made;
}

static void send_record(const char *rec, int len)
{
	int fd = channel();
	if (fd < 0 || len <= 0)
		return;
	int saved = errno;
	ssize_t n = send(fd, rec, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		atomic_store(&chan_fd, FD_OFF); /* feedscope is gone: stop trying */
	errno = saved;
}

/* Copy name with blanks made '_' (records are space-separated). */
static void set_name(char *dst, size_t cap, const char *name)
{
	size_t i = 0;
	for (; name && name[i] && i + 1 < cap; i++)
		dst[i] = (name[i] == ' ' || name[i] == '\t' || name[i] == '\n' || name[i] == '\r')
				 ? '_'
				 : name[i];
	if (i == 0 && cap > 1)
		dst[i++] = '_';
	dst[i] = '\0';
}

static void send_pending(uint64_t end_ns)
{
	if (!ts.pending)
		return;
	ts.pending = false;
	char rec[256];
	int len = snprintf(rec, sizeof rec, "S1 %d %s %ld %ld %llu %llu %llu", atomic_load(&cached_pid),
			   ts.loader, ts.epoch, ts.step, (unsigned long long)ts.got_ns,
			   (unsigned long long)(ts.got_ns - ts.wait_begin_ns),
			   (unsigned long long)(end_ns - ts.got_ns));
	send_record(rec, len);
	ts.step++;
}

int fs_markers_enabled(void)
{
	return channel() >= 0;
}

void fs_epoch_begin(const char *loader)
{
	if (channel() < 0)
		return;
	send_pending(now_ns());
	static _Thread_local bool started;
	ts.epoch = started ? ts.epoch + 1 : 0;
	started = true;
	ts.step = 0;
	ts.waiting = false;
	set_name(ts.loader, sizeof ts.loader, loader ? loader : "train");
}

void fs_step_wait_begin(void)
{
	if (channel() < 0)
		return;
	uint64_t t = now_ns();
	send_pending(t);
	ts.wait_begin_ns = t;
	ts.waiting = true;
}

void fs_step_wait_end(void)
{
	if (channel() < 0 || !ts.waiting)
		return;
	ts.got_ns = now_ns();
	ts.waiting = false;
	ts.pending = true;
}

void fs_steps_flush(void)
{
	if (channel() < 0)
		return;
	send_pending(now_ns());
}

void fs_phase_begin(const char *name)
{
	if (channel() < 0 || ts.nphases == MAX_PHASES)
		return;
	set_name(ts.phases[ts.nphases].name, sizeof ts.phases[0].name, name);
	ts.phases[ts.nphases++].start_ns = now_ns();
}

void fs_phase_end(void)
{
	if (channel() < 0 || ts.nphases == 0)
		return;
	ts.nphases--;
	char rec[256];
	int len = snprintf(rec, sizeof rec, "P1 %d %s %llu %llu", atomic_load(&cached_pid),
			   ts.phases[ts.nphases].name, (unsigned long long)ts.phases[ts.nphases].start_ns,
			   (unsigned long long)now_ns());
	send_record(rec, len);
}
