#include "record/loop.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/jobctl.h"
#include "util/clock.h"
#include "util/log.h"

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])

static void handled_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(set, stop_signals[i]);
	sigaddset(set, SIGCHLD);
}

int fs_loop_block_signals(void)
{
	sigset_t set;
	handled_set(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

static double since(uint64_t start_ns)
{
	return (double)(fs_now_ns() - start_ns) / 1e9;
}

/* Reap every exited child (we are a subreaper: orphaned job processes land
 * here too). Returns true if `child` exited; a stop of `child` is passed to
 * fs_jobctl_stopped (which returns once feedscope is continued). */
static bool reap(pid_t child, int *status)
{
	bool got = false;
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG | WUNTRACED);
		if (p <= 0)
			break;
		if (p == child && WIFSTOPPED(st)) {
			fs_jobctl_stopped(WSTOPSIG(st));
		} else if (p == child) {
			*status = st;
			got = true;
		}
	}
	if (got)
		fs_jobctl_end();
	return got;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int make_timer(double interval_s)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -1;
	struct itimerspec its;
	double whole = floor(interval_s);
	its.it_interval.tv_sec = (time_t)whole;
	its.it_interval.tv_nsec = (long)((interval_s - whole) * 1e9);
	its.it_value = its.it_interval;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int fs_loop_run(const struct fs_loop_opts *o, fs_tick_fn tick, void *arg, struct fs_loop_result *res)
{
	memset(res, 0, sizeof *res);
	sigset_t set;
	if (o->child > 0)
		fs_jobctl_set(&set); /* run: what fs_jobctl_block blocked */
	else
		handled_set(&set);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	int tfd = make_timer(o->interval_s);
	if (sfd < 0 || tfd < 0) {
		fs_warn("cannot set up the sampling timer: %s", strerror(errno));
		if (sfd >= 0)
			close(sfd);
		if (tfd >= 0)
			close(tfd);
		return -1;
	}
	int pfd = o->watched > 0 ? open_pidfd(o->watched) : -1;
	uint64_t ticks = 0;
	bool done = false;

	/* The child may have exited before the loop started. */
	if (o->child > 0 && reap(o->child, &res->child_status)) {
		res->child_exited = true;
		tick(arg, since(o->start_ns), 0);
		done = true;
	}
	while (!done) {
		enum { NFIXED = 3, NMAX = 64 };
		struct pollfd fds[NMAX] = {{.fd = tfd, .events = POLLIN},
					   {.fd = sfd, .events = POLLIN},
					   {.fd = pfd, .events = POLLIN}};
		int nfds = NFIXED;
		if (o->input) {
			int extra[NMAX - NFIXED];
			int k = o->input->fds(o->input->arg, extra, NMAX - NFIXED);
			for (int i = 0; i < k; i++)
				fds[nfds++] = (struct pollfd){.fd = extra[i], .events = POLLIN};
		}
		/* A negative fd (no pidfd) is ignored by poll. */
		int n = poll(fds, (nfds_t)nfds, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fs_warn("poll: %s", strerror(errno));
			break;
		}
		for (int i = NFIXED; i < nfds; i++) {
			if (fds[i].revents) {
				o->input->ready(o->input->arg);
				break;
			}
		}
		if (fds[1].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				if (o->child > 0) {
					fs_jobctl_signal(&si);
				} else {
					res->stop_signal = (int)si.ssi_signo;
					done = true;
				}
			}
			if (o->child > 0 && reap(o->child, &res->child_status)) {
				res->child_exited = true;
				tick(arg, since(o->start_ns), 0);
				break;
			}
		}
		if (done) {
			tick(arg, since(o->start_ns), 0);
			break;
		}
		if (pfd >= 0 && (fds[2].revents & (POLLIN | POLLHUP))) {
			res->watched_exited = true;
			tick(arg, since(o->start_ns), 0);
			break;
		}
		if (fds[0].revents & POLLIN) {
			uint64_t expirations = 0;
			if (read(tfd, &expirations, sizeof expirations) != (ssize_t)sizeof expirations)
				continue;
			double t = since(o->start_ns);
			if (o->duration_s > 0 && t >= o->duration_s - o->interval_s / 1000) {
				tick(arg, t, expirations - 1);
				break;
			}
			tick(arg, t, expirations - 1);
			ticks++;
			if (o->max_ticks && ticks >= o->max_ticks)
				break;
			/* No pidfd (old kernel): poll for the attached process's exit. */
			if (o->watched > 0 && pfd < 0 && kill(o->watched, 0) < 0 && errno == ESRCH) {
				res->watched_exited = true;
				break;
			}
		}
	}
	if (pfd >= 0)
		close(pfd);
	close(tfd);
	close(sfd);
	return 0;
}
