/* util/safefile: only regular files and directories of the caller's are
 * removed, never through a link, never after a swap; a FIFO is never
 * opened. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/safefile.h"

static char dir[] = "/tmp/fs-safefile-XXXXXX";
static int dfd = -1;

static void put(const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
		close(fd);
	}
}

static bool there(const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void test_unlink(void)
{
	put("plain", "x");
	CHECK_INT(fs_safefile_unlink(dfd, "plain", NULL), 0);
	CHECK(!there("plain"));
	CHECK_INT(fs_safefile_unlink(dfd, "plain", NULL), -1);
	CHECK_INT(errno, ENOENT);

	put("target", "keep");
	CHECK_INT(symlinkat("target", dfd, "link"), 0);
	CHECK_INT(fs_safefile_unlink(dfd, "link", NULL), -1);
	CHECK_INT(errno, EINVAL);
	CHECK(there("link") && there("target"));

	CHECK_INT(mkfifoat(dfd, "fifo", 0600), 0);
	CHECK_INT(fs_safefile_unlink(dfd, "fifo", NULL), -1); /* refused, and did not block */
	CHECK_INT(errno, EINVAL);
	CHECK(there("fifo"));

	struct stat st;
	put("other", "a");
	CHECK_INT(fs_safefile_mine(dfd, "target", S_IFREG, &st), 0);
	CHECK_INT(fs_safefile_unlink(dfd, "other", &st), -1); /* not the file expected */
	CHECK_INT(errno, ESTALE);
	CHECK(there("other"));
	CHECK_INT(fs_safefile_mine(dfd, "target", S_IFDIR, &st), -1);
	CHECK_INT(errno, EINVAL);
}

static void test_owner(void)
{
	struct stat st;
	if (geteuid() != 0) {
		/* without root no file of another user can be made here; look at one */
		int etc = open("/etc", O_PATH | O_DIRECTORY);
		CHECK_INT(fs_safefile_mine(etc, "passwd", S_IFREG, &st), -1);
		CHECK_INT(errno, EPERM);
		close(etc);
		return;
	}
	put("theirs", "x");
	CHECK_INT(fchownat(dfd, "theirs", 65534, 65534, 0), 0);
	CHECK_INT(fs_safefile_unlink(dfd, "theirs", NULL), -1);
	CHECK_INT(errno, EPERM);
	CHECK(there("theirs"));
	CHECK_INT(mkdirat(dfd, "theirdir", 0700), 0);
	CHECK_INT(fchownat(dfd, "theirdir", 65534, 65534, 0), 0);
	CHECK_INT(fs_safefile_remove_dir(dfd, "theirdir"), -1);
	CHECK_INT(errno, EPERM);
	CHECK(there("theirdir"));
	/* a link of another user's to a directory of ours: not followed */
	CHECK_INT(mkdirat(dfd, "mine", 0700), 0);
	CHECK_INT(symlinkat("mine", dfd, "theirlink"), 0);
	CHECK_INT(fchownat(dfd, "theirlink", 65534, 65534, AT_SYMLINK_NOFOLLOW), 0);
	CHECK_INT(fs_safefile_remove_dir(dfd, "theirlink"), -1);
	CHECK(there("mine") && there("theirlink"));
}

static void test_remove_dir(void)
{
	/* a link to a directory is not followed: what it points to stays */
	CHECK_INT(mkdirat(dfd, "victim", 0700), 0);
	put("victim/precious", "keep");
	CHECK_INT(symlinkat("victim", dfd, "dirlink"), 0);
	CHECK_INT(fs_safefile_remove_dir(dfd, "dirlink"), -1);
	CHECK_INT(errno, EINVAL);
	CHECK(there("victim/precious") && there("dirlink"));

	/* a directory of ours: its files go, a link in it is left (and with
	 * it the directory); the link's target stays */
	CHECK_INT(mkdirat(dfd, "regions", 0700), 0);
	put("regions/1", "a");
	put("regions/2", "b");
	CHECK_INT(symlinkat("../victim/precious", dfd, "regions/evil"), 0);
	CHECK_INT(fs_safefile_remove_dir(dfd, "regions"), -1);
	CHECK(!there("regions/1") && !there("regions/2") && there("regions/evil"));
	CHECK(there("victim/precious"));
	CHECK_INT(unlinkat(dfd, "regions/evil", 0), 0);
	CHECK_INT(fs_safefile_remove_dir(dfd, "regions"), 0);
	CHECK(!there("regions"));
	CHECK_INT(fs_safefile_remove_dir(dfd, "victim/precious"), -1); /* a file */
	CHECK_INT(errno, EINVAL);
}

static void test_parent(void)
{
	char base[256];
	int fd = fs_safefile_parent("x.db", base, sizeof base);
	CHECK(fd >= 0);
	CHECK_STR(base, "x.db");
	if (fd >= 0)
		close(fd);
	fd = fs_safefile_parent("/tmp/x.db", base, sizeof base);
	CHECK(fd >= 0);
	CHECK_STR(base, "x.db");
	if (fd >= 0)
		close(fd);
	CHECK_INT(fs_safefile_parent("/tmp/", base, sizeof base), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(fs_safefile_parent("/tmp/..", base, sizeof base), -1);
	CHECK_INT(fs_safefile_parent("/nonexistent-dir/x.db", base, sizeof base), -1);
	CHECK_INT(errno, ENOENT);
	CHECK_STR(fs_safefile_kind(S_IFIFO), "a FIFO");
	CHECK_STR(fs_safefile_kind(S_IFLNK), "a symbolic link");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	dfd = open(dir, O_PATH | O_DIRECTORY);
	test_unlink();
	test_owner();
	test_remove_dir();
	test_parent();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
	return check_exit("test_safefile");
}
