#include "store/runfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/safefile.h"

static const char *const side_suffix[] = {"-wal", "-shm", "-journal"};
#define NSIDES (sizeof side_suffix / sizeof side_suffix[0])

/* name + suffix into out[256]; false if too long for a file name. */
static bool side_name(char out[256], const char *name, const char *suffix)
{
	return (size_t)snprintf(out, 256, "%s%s", name, suffix) < 256;
}

/* Say what is wrong with an existing entry st at want. */
static void say_existing(const struct fs_runfile *rf, const struct stat *st, bool overwrite, char *err,
			 size_t errlen)
{
	if (!S_ISREG(st->st_mode))
		snprintf(err, errlen, "%s: is %s, not a regular file: not replaced, with or without --force",
			 rf->want, fs_safefile_kind(st->st_mode));
	else if (st->st_uid != geteuid())
		snprintf(err, errlen, "%s: already exists and belongs to uid %u: not replaced, with or "
			 "without --force", rf->want, (unsigned)st->st_uid);
	else if (!overwrite)
		snprintf(err, errlen, "%s: already exists (use --force to overwrite)", rf->want);
}

/* What may be at a side file of a name. */
enum sides {
	SIDES_ABSENT, /* nothing */
	SIDES_OURS,   /* nothing, or regular files of the caller's (left for now) */
	SIDES_REMOVE, /* the same, removed now */
};

/* Check the side files of name. Returns 0, or -1 with err (*exists set). */
static int check_sides(struct fs_runfile *rf, const char *name, enum sides allow, bool *exists, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < NSIDES; i++) {
		char side[256];
		struct stat st;
		if (!side_name(side, name, side_suffix[i])) {
			snprintf(err, errlen, "%s: file name too long", rf->want);
			return -1;
		}
		if (fstatat(rf->dirfd, side, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		bool ours = S_ISREG(st.st_mode) && st.st_uid == geteuid();
		if (ours && allow == SIDES_OURS)
			continue;
		if (ours && allow == SIDES_REMOVE && fs_safefile_unlink(rf->dirfd, side, &st) == 0)
			continue;
		*exists = true;
		snprintf(err, errlen, "%s: %s%s exists (%s%s, a side file of an earlier run file): not removed; "
			 "remove it or choose another -o", rf->want, rf->want, side_suffix[i],
			 fs_safefile_kind(st.st_mode), ours ? "" : " not yours");
		return -1;
	}
	return 0;
}

/* Create name with O_EXCL. Returns the descriptor, or -1 (errno). */
static int create_excl(struct fs_runfile *rf, const char *name)
{
	return openat(rf->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
}

/* A free NAME.partial-PID[-K] next to NAME, created. Returns the fd or -1. */
static int create_partial(struct fs_runfile *rf, char *err, size_t errlen)
{
	for (int k = 0; k < 100; k++) {
		char sfx[48];
		if (k)
			snprintf(sfx, sizeof sfx, ".partial-%d-%d", (int)getpid(), k);
		else
			snprintf(sfx, sizeof sfx, ".partial-%d", (int)getpid());
		bool busy = false;
		char e2[512];
		if (!side_name(rf->name, rf->base, sfx) || strlen(rf->name) + 8 >= 256) {
			snprintf(err, errlen, "%s: file name too long", rf->want);
			return -1;
		}
		if (check_sides(rf, rf->name, SIDES_ABSENT, &busy, e2, sizeof e2) < 0)
			continue;
		int fd = create_excl(rf, rf->name);
		if (fd >= 0 || errno != EEXIST) {
			if (fd < 0)
				snprintf(err, errlen, "%s: %s", rf->name, strerror(errno));
			return fd;
		}
	}
	snprintf(err, errlen, "%s: no free name for the temporary file", rf->want);
	return -1;
}

int fs_runfile_create(struct fs_runfile *rf, const char *path, bool overwrite, bool *exists, char *err,
		      size_t errlen)
{
	memset(rf, 0, sizeof *rf);
	*exists = false;
	snprintf(rf->want, sizeof rf->want, "%s", path);
	rf->dirfd = fs_safefile_parent(path, rf->base, sizeof rf->base);
	if (rf->dirfd < 0) {
		snprintf(err, errlen, "%s: %s", path, errno == EINVAL ? "not a file name" : strerror(errno));
		return -1;
	}
	struct stat st;
	int fd = -1;
	if (fstatat(rf->dirfd, rf->base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		*exists = true;
		say_existing(rf, &st, overwrite, err, errlen);
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || !overwrite)
			goto fail;
		*exists = false;
		/* the old file's side files go with it at the rename */
		if (check_sides(rf, rf->base, SIDES_OURS, exists, err, errlen) < 0)
			goto fail;
		rf->replace = true;
		fd = create_partial(rf, err, errlen);
	} else if (errno == ENOENT) {
		snprintf(rf->name, sizeof rf->name, "%s", rf->base);
		if (check_sides(rf, rf->base, overwrite ? SIDES_REMOVE : SIDES_ABSENT, exists, err, errlen) < 0)
			goto fail;
		fd = create_excl(rf, rf->name);
		if (fd < 0) {
			*exists = errno == EEXIST;
			snprintf(err, errlen, "%s: %s", path,
				 errno == EEXIST ? "already exists" : strerror(errno));
		}
	} else {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	}
	if (fd < 0)
		goto fail;
	fstat(fd, &rf->made);
	close(fd);
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	snprintf(rf->path, sizeof rf->path, "%.*s%s", dirlen, path, rf->name);
	return 0;
fail:
	close(rf->dirfd);
	rf->dirfd = -1;
	return -1;
}

int fs_runfile_verify(const struct fs_runfile *rf, char *err, size_t errlen)
{
	struct stat st;
	if (fstatat(rf->dirfd, rf->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != rf->made.st_dev ||
	    st.st_ino != rf->made.st_ino) {
		snprintf(err, errlen, "%s: replaced by something else while being opened", rf->path);
		return -1;
	}
	return 0;
}

/* Remove name's side files that are regular files of the caller's.
 * Returns 0, or -1 if one is there and could not be removed. */
static int remove_sides(struct fs_runfile *rf, const char *name)
{
	int rc = 0;
	for (size_t i = 0; i < NSIDES; i++) {
		char side[256];
		if (side_name(side, name, side_suffix[i]) && fs_safefile_unlink(rf->dirfd, side, NULL) < 0 &&
		    errno != ENOENT)
			rc = -1;
	}
	return rc;
}

/* Put the temporary over base. Returns 0, or -1 with why. */
static int put_in_place(struct fs_runfile *rf, char *why, size_t whylen)
{
	struct stat st;
	if (fstatat(rf->dirfd, rf->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
		snprintf(why, whylen, "%s is now %s%s", rf->want, fs_safefile_kind(st.st_mode),
			 S_ISREG(st.st_mode) ? " of another user" : "");
		return -1;
	}
	if (remove_sides(rf, rf->base) < 0) {
		snprintf(why, whylen, "a side file of %s (-wal, -shm, -journal) cannot be removed", rf->want);
		return -1;
	}
	if (renameat(rf->dirfd, rf->name, rf->dirfd, rf->base) < 0) {
		snprintf(why, whylen, "rename: %s", strerror(errno));
		return -1;
	}
	snprintf(rf->path, sizeof rf->path, "%s", rf->want);
	return 0;
}

int fs_runfile_finish(struct fs_runfile *rf, bool complete)
{
	int rc = 0;
	if (rf->replace) {
		char why[4600] = "the run file is incomplete";
		if (!complete || put_in_place(rf, why, sizeof why) < 0) {
			fs_error("run file: %s not replaced (%s); this run is in %s", rf->want, why, rf->path);
			rc = -1;
		}
	}
	if (rf->dirfd >= 0)
		close(rf->dirfd);
	rf->dirfd = -1;
	return rc;
}

void fs_runfile_discard(struct fs_runfile *rf)
{
	if (rf->dirfd < 0)
		return;
	remove_sides(rf, rf->name);
	fs_safefile_unlink(rf->dirfd, rf->name, &rf->made);
	close(rf->dirfd);
	rf->dirfd = -1;
}

int fs_runfile_unlink(const char *path)
{
	struct fs_runfile rf = {.dirfd = -1};
	rf.dirfd = fs_safefile_parent(path, rf.base, sizeof rf.base);
	if (rf.dirfd < 0)
		return -1;
	remove_sides(&rf, rf.base);
	int rc = fs_safefile_unlink(rf.dirfd, rf.base, NULL);
	int e = errno;
	close(rf.dirfd);
	errno = e;
	return rc;
}
