#include "util/pfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void fs_buf_free(struct fs_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static int buf_reserve(struct fs_buf *b, size_t cap)
{
	if (b->cap >= cap)
		return 0;
	size_t n = b->cap ? b->cap : 4096;
	while (n < cap)
		n *= 2;
	char *p = realloc(b->data, n);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	b->data = p;
	b->cap = n;
	return 0;
}

/* Read from offset 0 into b; stop_short: a short read ends the file. */
static ssize_t read_from_start(int fd, struct fs_buf *b, bool stop_short)
{
	if (buf_reserve(b, 4096) < 0)
		return -1;
	size_t len = 0;
	for (;;) {
		if (len + 1 >= b->cap && buf_reserve(b, b->cap * 2) < 0)
			return -1;
		size_t want = b->cap - len - 1;
		ssize_t n = pread(fd, b->data + len, want, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		len += (size_t)n;
		if (n == 0 || (stop_short && (size_t)n < want))
			break;
	}
	b->data[len] = '\0';
	b->len = len;
	return (ssize_t)len;
}

/* A seq_file hands out at most its own buffer (a page to begin with) per
 * read, so a short read is not the end of a multi-record file
 * (/proc/PID/maps, mountinfo, diskstats with many devices): read to EOF. */
ssize_t fs_read_fd(int fd, struct fs_buf *b)
{
	return read_from_start(fd, b, false);
}

/* A file the kernel writes in one show() call (single_open: /proc/PID/stat,
 * schedstat, io) is whole in the first read whenever it fits, so the second,
 * empty pread can be saved on the recorder's hottest path. */
ssize_t fs_read_fd_one(int fd, struct fs_buf *b)
{
	return read_from_start(fd, b, true);
}

int fs_pfile_init(struct fs_pfile *pf, const char *path)
{
	pf->fd = -1;
	pf->path = strdup(path);
	return pf->path ? 0 : -1;
}

static ssize_t pfile_read(struct fs_pfile *pf, struct fs_buf *b, bool one)
{
	if (pf->fd < 0) {
		pf->fd = open(pf->path, O_RDONLY | O_CLOEXEC);
		if (pf->fd < 0)
			return -1;
	}
	ssize_t n = read_from_start(pf->fd, b, one);
	if (n < 0) {
		int e = errno;
		close(pf->fd);
		pf->fd = -1;
		errno = e;
	}
	return n;
}

ssize_t fs_pfile_read(struct fs_pfile *pf, struct fs_buf *b)
{
	return pfile_read(pf, b, false);
}

ssize_t fs_pfile_read_one(struct fs_pfile *pf, struct fs_buf *b)
{
	return pfile_read(pf, b, true);
}

void fs_pfile_close(struct fs_pfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
	free(pf->path);
	pf->path = NULL;
}

ssize_t fs_read_file(const char *path, struct fs_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = fs_read_fd(fd, b);
	int e = errno;
	close(fd);
	errno = e;
	return n;
}

ssize_t fs_read_line(const char *path, char *out, size_t cap)
{
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	do
		n = read(fd, out, cap - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	out[n] = '\0';
	char *nl = memchr(out, '\n', (size_t)n);
	if (nl) {
		*nl = '\0';
		n = nl - out;
	}
	return n;
}
