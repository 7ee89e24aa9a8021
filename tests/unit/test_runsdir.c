/* test_runsdir - the exporter's runs directory (serve/runsdir.c): a
 * directory that is not there yet (said once, whatever the number of
 * scans), *.db files that appear (offered to add, in name order; other
 * names, directories and side files never), one refused until it becomes
 * acceptable (its refusal said once, only after it has lasted), one
 * replaced by another file under the same name (dropped, then added
 * again), one removed (dropped), and the directory removed (all dropped). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "serve/runsdir.h"
#include "util/clock.h"

static char log_[4096];
static bool refuse_b = true;

static int add(void *arg, const char *path, char *why, size_t whylen)
{
	(void)arg;
	const char *base = strrchr(path, '/') + 1;
	if (refuse_b && !strcmp(base, "b.db")) {
		snprintf(why, whylen, "not a feedscope run file");
		return -1;
	}
	snprintf(log_ + strlen(log_), sizeof log_ - strlen(log_), "+%s ", base);
	return 0;
}

static void drop(void *arg, const char *path)
{
	(void)arg;
	snprintf(log_ + strlen(log_), sizeof log_ - strlen(log_), "-%s ", strrchr(path, '/') + 1);
}

static void touch(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

/* Scan at now_s seconds; returns (and clears) what add and drop saw. */
static const char *scan(struct fs_runsdir *w, double now_s)
{
	static char out[4096];
	log_[0] = 0;
	fs_runsdir_scan(w, add, drop, NULL, (uint64_t)(now_s * 1e9) + 1);
	snprintf(out, sizeof out, "%s", log_);
	return out;
}

/* Lines of the captured stderr that hold needle. */
static int said(const char *file, const char *needle)
{
	fflush(stderr);
	FILE *f = fopen(file, "r");
	char line[2048];
	int n = 0;
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	char top[] = "/tmp/test_runsdir.XXXXXX", dir[256], err[300], p[600];
	if (!mkdtemp(top))
		return 1;
	snprintf(dir, sizeof dir, "%s/runs", top);
	snprintf(err, sizeof err, "%s/stderr", top);
	int saved = dup(2);
	CHECK(freopen(err, "w", stderr) != NULL);

	struct fs_runsdir *w = fs_runsdir_new(dir);
	CHECK_STR(fs_runsdir_dir(w), dir);
	CHECK_STR(scan(w, 0), "");
	CHECK_STR(scan(w, 1), "");
	CHECK_INT(said(err, "No such file or directory"), 1);

	CHECK(mkdir(dir, 0755) == 0);
	touch(dir, "c.db");
	touch(dir, "a.db");
	touch(dir, "b.db");
	touch(dir, "a.db-wal");
	touch(dir, "notes.txt");
	snprintf(p, sizeof p, "%s/d.db", dir);
	CHECK(mkdir(p, 0755) == 0); /* a directory named *.db: never */
	CHECK_STR(scan(w, 2), "+a.db +c.db ");
	CHECK_INT(said(err, "serving its run files"), 1);
	CHECK_STR(scan(w, 3), "");
	CHECK_INT(said(err, "b.db"), 0); /* refused for 1 s only: not said yet */
	CHECK_STR(scan(w, 2 + FS_RUNSDIR_SAY_AFTER_S), "");
	CHECK_STR(scan(w, 3 + FS_RUNSDIR_SAY_AFTER_S), "");
	CHECK_INT(said(err, "b.db: not a feedscope run file: not served"), 1);
	refuse_b = false;
	CHECK_STR(scan(w, 10), "+b.db ");

	/* c.db replaced by another file (a new inode), a.db removed */
	snprintf(p, sizeof p, "%s/c.db", dir);
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s/c.new", dir);
	touch(dir, "c.new");
	CHECK(rename(tmp, p) == 0);
	snprintf(p, sizeof p, "%s/a.db", dir);
	CHECK(unlink(p) == 0);
	CHECK_STR(scan(w, 11), "-a.db -c.db +c.db ");
	CHECK_STR(scan(w, 12), "");

	/* the directory goes: everything dropped, said once more */
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	CHECK_STR(scan(w, 13), "-b.db -c.db ");
	CHECK_STR(scan(w, 14), "");
	CHECK_INT(said(err, "No such file or directory"), 2);
	fs_runsdir_free(w);

	fflush(stderr);
	dup2(saved, 2);
	if (check_failures) { /* they went to the captured stderr: show it */
		snprintf(cmd, sizeof cmd, "cat '%s' >&2", err);
		if (system(cmd) != 0)
			fprintf(stderr, "could not show %s\n", err);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	return check_exit("test_runsdir");
}
