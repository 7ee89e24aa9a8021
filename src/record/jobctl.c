#include "record/jobctl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

/* Signals a launcher, a scheduler or a terminal may send that are the
 * job's business. Not here: SIGPIPE, SIGXCPU, SIGXFSZ (about feedscope's
 * own writes and limits, never a message to pass on), SIGKILL and SIGSTOP
 * (cannot be caught). */
static const int forwarded[] = {SIGINT,  SIGTERM,   SIGHUP,   SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
				SIGPROF, SIGVTALRM, SIGWINCH, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

static pid_t job = -1;   /* the job's pid, also its process group */
static pid_t own_pgrp;   /* feedscope's process group */
static int tty = -1;     /* the controlling terminal, when there is one */
static bool shared_tty;  /* another member of our group needs the terminal: leave it to us */

void fs_jobctl_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
}

int fs_jobctl_block(void)
{
	sigset_t set;
	fs_jobctl_set(&set);
	signal(SIGPIPE, SIG_IGN);
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

void fs_jobctl_child(void)
{
	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	sigset_t set;
	fs_jobctl_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* Give the terminal to group pgrp if it is held by group from. SIGTTOU is
 * blocked, so feedscope may do this from the background. */
static void move_tty(pid_t from, pid_t pgrp)
{
	if (tty >= 0 && tcgetpgrp(tty) == from)
		tcsetpgrp(tty, pgrp);
}

void fs_jobctl_start(pid_t pid)
{
	static bool registered;
	job = pid;
	own_pgrp = getpgrp();
	/* The child does the same; whichever runs first wins, as in a shell. */
	if (setpgid(pid, pid) < 0 && errno != EACCES)
		return;
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	move_tty(own_pgrp, pid);
	if (!registered && tty >= 0) {
		registered = true;
		atexit(fs_jobctl_end); /* also when the loop could not run */
	}
}

/* fg, bg, or anyone's SIGCONT: in the foreground, the job gets the
 * terminal back first; then its whole group continues (Ctrl-Z stopped all
 * of it). */
static void continue_job(void)
{
	if (!shared_tty)
		move_tty(own_pgrp, job);
	kill(-job, SIGCONT);
}

void fs_jobctl_signal(const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;
	if (job <= 0 || si->ssi_pid == (uint32_t)getpid())
		return; /* what fs_jobctl sent to its own group */
	if (sig == SIGCONT) {
		continue_job();
		return;
	}
	if ((sig == SIGTTIN || sig == SIGTTOU) && si->ssi_code == SI_KERNEL) {
		/* Not ours (feedscope blocks both, so its own terminal writes
		 * never raise them) and not the job's (its group is another):
		 * another member of our group, the `less` of `feedscope run ...
		 * | less`, wants the terminal. It gets it, and keeps it. */
		shared_tty = true;
		move_tty(job, own_pgrp);
		kill(0, SIGCONT);
		return;
	}
	kill(job, sig);
}

void fs_jobctl_stopped(int sig)
{
	if (tty < 0 || (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU))
		return; /* a SIGSTOP from someone: theirs to continue */
	if (sig != SIGTSTP && !shared_tty && tcgetpgrp(tty) == own_pgrp) {
		/* We are in the foreground (`feedscope run ... &`, then `fg`,
		 * which continues nobody) and the job wants the terminal. */
		move_tty(own_pgrp, job);
		kill(-job, SIGCONT);
		return;
	}
	move_tty(job, own_pgrp);
	/* Stop our whole group with the job's signal, as the terminal would
	 * have stopped it had the job been in it: the shell waiting for us (or
	 * for our parent) sees the stop. The kernel discards this stop for an
	 * orphaned group (no shell to continue us); then we simply go on. */
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	kill(0, sig);
	sigprocmask(SIG_BLOCK, &one, NULL);
}

void fs_jobctl_end(void)
{
	if (tty < 0)
		return;
	move_tty(job, own_pgrp);
	close(tty);
	tty = -1;
}
