/* A job that counts the signals it receives (tests/integration/signals.sh):
 * a handler for each signal a launcher may send, so none stops or kills
 * it. Creates READY once the handlers are in place; after every signal
 * rewrites COUNTS ("INT=1 TERM=0 ..." and "total=N"); exits 3 once the
 * file STOP exists (at most 60 s).
 *
 *     sigcount READY COUNTS STOP
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
	int sig;
	const char *name;
} sigs[] = {
	{SIGINT, "INT"},   {SIGTERM, "TERM"},     {SIGHUP, "HUP"},   {SIGQUIT, "QUIT"}, {SIGUSR1, "USR1"},
	{SIGUSR2, "USR2"}, {SIGALRM, "ALRM"},     {SIGPROF, "PROF"}, {SIGVTALRM, "VTALRM"},
	{SIGWINCH, "WINCH"}, {SIGCONT, "CONT"},  {SIGTSTP, "TSTP"}, {SIGTTIN, "TTIN"}, {SIGTTOU, "TTOU"},
};
#define NSIGS (sizeof sigs / sizeof sigs[0])

static volatile sig_atomic_t count[NSIG];

static void on_signal(int sig)
{
	count[sig]++;
}

static void write_counts(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	int total = 0;
	for (size_t i = 0; i < NSIGS; i++) {
		fprintf(f, "%s=%d\n", sigs[i].name, (int)count[sigs[i].sig]);
		total += count[sigs[i].sig];
	}
	fprintf(f, "total=%d\n", total);
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: sigcount READY COUNTS STOP\n");
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(sigs[i].sig, &sa, NULL);
	write_counts(argv[2]);
	FILE *r = fopen(argv[1], "w");
	if (r)
		fclose(r);
	int seen = 0;
	for (int i = 0; i < 6000 && access(argv[3], F_OK) != 0; i++) {
		struct timespec t = {0, 10000000L};
		nanosleep(&t, NULL);
		int total = 0;
		for (size_t k = 0; k < NSIGS; k++)
			total += count[sigs[k].sig];
		if (total != seen) {
			seen = total;
			write_counts(argv[2]);
		}
	}
	write_counts(argv[2]);
	return 3;
}
