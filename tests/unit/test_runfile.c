/* Where a run file goes (store/runfile.h through fs_store_create): a new
 * file with O_EXCL; --force replaces only a regular file of the caller's,
 * through a temporary renamed over it at close (a reader sees the old file
 * until then); links, FIFOs, directories and stale side files are refused
 * and left as they were; a discarded run leaves the old file alone. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "store/store.h"

static char dir[] = "/tmp/fs-runfile-XXXXXX";

static char *at(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The first 15 bytes of a file, or "" if it cannot be read. */
static const char *head(const char *name)
{
	static char buf[16];
	memset(buf, 0, sizeof buf);
	int fd = open(at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		if (read(fd, buf, 15) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return buf;
}

static bool there(const char *name)
{
	struct stat st;
	return lstat(at(name), &st) == 0;
}

static void test_new_and_exists(void)
{
	char err[600];
	bool exists = true;
	struct fs_store *st = fs_store_create_ex(at("a.db"), false, &exists, err, sizeof err);
	CHECK(st != NULL);
	CHECK(!exists);
	if (st)
		CHECK_INT(fs_store_close(st), 0);
	CHECK_STR(head("a.db"), "SQLite format 3");
	CHECK(fs_store_create_ex(at("a.db"), false, &exists, err, sizeof err) == NULL);
	CHECK(exists);
	CHECK(strstr(err, "use --force") != NULL);
	CHECK(fs_store_create_ex(at("nodir/a.db"), false, &exists, err, sizeof err) == NULL);
	CHECK(!exists);
}

static void test_replace(void)
{
	char err[600], where[600];
	put("old.db", "old contents");
	CHECK_INT(link(at("old.db"), at("old-link.db")), 0);
	put("old.db-wal", "stale wal");
	struct fs_store *st = fs_store_create(at("old.db"), true, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	fs_sink_meta(fs_store_sink(st), "k", "v");
	CHECK(fs_store_commit(st) == 0);
	CHECK_STR(head("old.db"), "old contents"); /* a reader still sees the old file */
	CHECK(strstr(fs_store_path(st), ".partial-") != NULL);
	CHECK_INT(fs_store_close_at(st, where, sizeof where), 0);
	CHECK_STR(where, at("old.db"));
	CHECK_STR(head("old.db"), "SQLite format 3");
	CHECK_STR(head("old-link.db"), "old contents"); /* replaced, not written through */
	CHECK(!there("old.db-wal") && !there("old.db-shm"));
	char partial[64];
	snprintf(partial, sizeof partial, "old.db.partial-%d", (int)getpid());
	CHECK(!there(partial));

	/* discarded (the job never started): the old file is left as it was */
	put("keep.db", "keep me");
	st = fs_store_create(at("keep.db"), true, err, sizeof err);
	CHECK(st != NULL);
	if (st)
		fs_store_discard(st);
	CHECK_STR(head("keep.db"), "keep me");
	snprintf(partial, sizeof partial, "keep.db.partial-%d", (int)getpid());
	CHECK(!there(partial));
}

static void refused(const char *name, bool force, const char *what)
{
	char err[600];
	bool exists = false;
	CHECK(fs_store_create_ex(at(name), force, &exists, err, sizeof err) == NULL);
	CHECK(exists);
	if (!strstr(err, what))
		fprintf(stderr, "%s: '%s' lacks '%s'\n", name, err, what);
	CHECK(strstr(err, what) != NULL);
	CHECK(strstr(err, "use --force") == NULL); /* no hint for what --force would not replace */
}

static void test_refusals(void)
{
	put("target", "target text");
	CHECK_INT(symlink("target", at("link.db")), 0);
	CHECK_INT(mkfifo(at("fifo.db"), 0600), 0);
	CHECK_INT(mkdir(at("dir.db"), 0700), 0);
	for (int force = 0; force < 2; force++) {
		refused("link.db", force, "a symbolic link");
		refused("fifo.db", force, "a FIFO"); /* and it did not hang */
		refused("dir.db", force, "a directory");
	}
	CHECK_STR(head("target"), "target text");
	struct stat st;
	CHECK(lstat(at("link.db"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(lstat(at("fifo.db"), &st) == 0 && S_ISFIFO(st.st_mode));

	/* a stale side file that is not a regular file of ours */
	CHECK_INT(symlink("target", at("side.db-wal")), 0);
	refused("side.db", false, "side.db-wal exists");
	refused("side.db", true, "side.db-wal exists");
	put("side2.db", "x");
	CHECK_INT(symlink("target", at("side2.db-journal")), 0);
	refused("side2.db", true, "side2.db-journal exists");
	CHECK_STR(head("target"), "target text");
	CHECK_STR(head("side2.db"), "x");

	if (geteuid() == 0) {
		put("theirs.db", "theirs");
		CHECK_INT(chown(at("theirs.db"), 65534, 65534), 0);
		refused("theirs.db", true, "belongs to uid 65534");
		CHECK_STR(head("theirs.db"), "theirs");
	}
}

static void test_unlink(void)
{
	char err[600];
	put("target2", "keep");
	CHECK_INT(symlink("target2", at("l.db")), 0);
	fs_store_unlink(at("l.db"));
	CHECK(there("l.db"));
	CHECK_STR(head("target2"), "keep");
	struct fs_store *st = fs_store_create(at("u.db"), false, err, sizeof err);
	CHECK(st != NULL);
	if (st)
		fs_store_close(st);
	fs_store_unlink(at("u.db"));
	CHECK(!there("u.db"));
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_new_and_exists();
	test_replace();
	test_refusals();
	test_unlink();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_exit("test_runfile");
}
