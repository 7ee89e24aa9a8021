/* test_runsdir - the exporter's runs directory (serve/runsdir.c): a
 * directory that is not there yet (said once, whatever the number of
 * scans), *.db files that appear (offered to add, newest first, name order
 * among equals; other names, directories and side files never), one
 * refused until it becomes acceptable (offered again after 1, 2, 4, 8 s:
 * a back-off; its refusal said once, only after it has lasted), one
 * replaced by another file under the same name (dropped, then added
 * again), one removed (dropped), and the directory removed (all dropped).
 * Then the bounds: with room for two, the two newest are taken and a newer
 * file takes the oldest one's place; more than FS_RUNSDIR_MAX_FILES files,
 * refused ones among them: the newest are still taken, each refusal said
 * at most once and tried again only as the back-off allows. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "serve/runsdir.h"
#include "util/clock.h"

static char log_[4096];
static bool refuse_b = true;
static int tries_b, tries_broken;

static int add(void *arg, const char *path, char *why, size_t whylen)
{
	(void)arg;
	const char *base = strrchr(path, '/') + 1;
	if (!strncmp(base, "broken", 6)) {
		tries_broken++;
		snprintf(why, whylen, "not a feedscope run file");
		return -1;
	}
	tries_b += !strcmp(base, "b.db");
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

/* A file name, its mtime secs_ago seconds ago. */
static void age(const char *dir, const char *name, int secs_ago)
{
	char p[512];
	touch(dir, name);
	snprintf(p, sizeof p, "%s/%s", dir, name);
	struct timespec ts[2] = {{time(NULL) - secs_ago, 0}, {time(NULL) - secs_ago, 0}};
	CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
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

	struct fs_runsdir *w = fs_runsdir_new(dir, 64);
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
	for (int t = 4; t <= 20; t++)
		CHECK_STR(scan(w, t), "");
	CHECK_INT(tries_b, 5); /* at 2, 3, 5, 9, 17 s */
	CHECK_INT(said(err, "b.db: not a feedscope run file: not served"), 1);
	refuse_b = false;
	CHECK_STR(scan(w, 32), "");
	CHECK_STR(scan(w, 33), "+b.db ");

	/* c.db replaced by another file (a new inode), a.db removed */
	snprintf(p, sizeof p, "%s/c.db", dir);
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s/c.new", dir);
	touch(dir, "c.new");
	CHECK(rename(tmp, p) == 0);
	snprintf(p, sizeof p, "%s/a.db", dir);
	CHECK(unlink(p) == 0);
	CHECK_STR(scan(w, 34), "-a.db -c.db +c.db ");
	CHECK_STR(scan(w, 35), "");

	/* the directory goes: everything dropped, said once more */
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	CHECK_STR(scan(w, 36), "-b.db -c.db ");
	CHECK_STR(scan(w, 37), "");
	CHECK_INT(said(err, "No such file or directory"), 2);
	fs_runsdir_free(w);

	/* room for two: the newest two, then a newer one in the oldest's place */
	CHECK(mkdir(dir, 0755) == 0);
	w = fs_runsdir_new(dir, 2);
	age(dir, "old1.db", 300);
	age(dir, "old2.db", 200);
	age(dir, "new1.db", 100);
	CHECK_STR(scan(w, 1), "+new1.db +old2.db ");
	CHECK_STR(scan(w, 2), "");
	age(dir, "new2.db", 0);
	CHECK_STR(scan(w, 3), "-old2.db +new2.db ");
	CHECK_STR(scan(w, 4), "");
	fs_runsdir_free(w);

	/* more files than followed, most of them broken: the newest taken, each
	 * refusal said at most once, tried again less and less often */
	for (int i = 0; i < FS_RUNSDIR_MAX_FILES + 100; i++) {
		char name[64];
		snprintf(name, sizeof name, "broken%05d.db", i);
		age(dir, name, 1000 + i % 500);
	}
	age(dir, "late1.db", 10);
	age(dir, "late2.db", 5);
	w = fs_runsdir_new(dir, 64);
	tries_broken = 0;
	const char *first = scan(w, 1);
	CHECK(strstr(first, "+late1.db") && strstr(first, "+late2.db") && strstr(first, "+new1.db") && !strstr(first, "broken"));
	CHECK_INT(said(err, "are followed, the others left alone"), 1);
	int lines0 = said(err, "broken");
	for (int t = 2; t <= 100; t++)
		scan(w, t);
	CHECK_INT(said(err, "are followed, the others left alone"), 1);
	int lines = said(err, "broken") - lines0;
	CHECK(lines <= FS_RUNSDIR_MAX_FILES);
	/* each followed broken file tried at 1, 2, 4, 8, 16, 32, 64 s: 7 times */
	CHECK(tries_broken <= 7 * FS_RUNSDIR_MAX_FILES);
	printf("%d broken files followed: %d tries and %d lines in 100 s\n", FS_RUNSDIR_MAX_FILES, tries_broken, lines);
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
