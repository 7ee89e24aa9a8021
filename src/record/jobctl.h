/* jobctl.h - the launched job's process group, its terminal, and the
 * signals feedscope passes on to it (docs/architecture.md, "Signals").
 *
 * The job runs in a process group of its own, so a signal sent to
 * feedscope's group (kill -INT -- -PGID) reaches feedscope only and is
 * forwarded once. When feedscope is the foreground job of its terminal, the
 * terminal is handed to the job's group, as a shell does: Ctrl-C, Ctrl-\
 * and SIGWINCH go straight to the job, and the job may read the terminal.
 * A job stopped by Ctrl-Z (or SIGTTIN/SIGTTOU) stops feedscope's group too,
 * so the shell sees the stop; SIGCONT (fg, bg) continues the job and, in
 * the foreground, hands the terminal back to it. A SIGKILLed feedscope
 * leaves the job running, its group included (a recorder's death never
 * kills the job). One job per process.
 */
#ifndef FS_JOBCTL_H
#define FS_JOBCTL_H

#include <stdbool.h>
#include <sys/signalfd.h>
#include <sys/types.h>

/* The signals feedscope takes for the job, all blocked in feedscope and
 * read through a signalfd: the forwarded ones and SIGCHLD. */
void fs_jobctl_set(sigset_t *set);

/* Before fork: block that set in the calling thread (so no signal is lost
 * between fork and the loop) and ignore SIGPIPE (feedscope's own writes
 * then fail with EPIPE instead of killing it). Returns 0, or -1 with errno. */
int fs_jobctl_block(void);

/* In the child, before exec: its own process group, every signal unblocked
 * and SIGPIPE back to default. */
void fs_jobctl_child(void);

/* In feedscope, right after fork, before the job may start: put it in its
 * own group and, when feedscope is in the foreground of its controlling
 * terminal, hand the terminal to that group. Nothing here is fatal. */
void fs_jobctl_start(pid_t job);

/* A signal read from the signalfd (not SIGCHLD): forward it to the job, or
 * act on it (see the header comment). */
void fs_jobctl_signal(const struct signalfd_siginfo *si);

/* The job was seen stopped by signal sig (waitpid WUNTRACED): a job
 * control stop in a terminal stops feedscope's group as well, after
 * taking the terminal back. Returns when feedscope is continued. */
void fs_jobctl_stopped(int sig);

/* The job is over: give the terminal back to feedscope's group if the
 * job's group still holds it. Safe to call more than once. */
void fs_jobctl_end(void);

#endif
