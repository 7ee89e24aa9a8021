/* errno_check DIR - failing, partial and odd calls, printing every return
 * value and errno (and errno after successful calls, which must be left
 * alone). trace_transparency.sh runs it with and without the tracer and
 * wants the same output; the program also checks what POSIX/Linux promise
 * and exits 1 on a surprise, so it means something without the tracer too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int bad;
static const char *dir;

/* print one result; want_errno 0: the call must succeed */
static void show(const char *what, long ret, int err, long want_ret, int want_errno)
{
	printf("%-28s ret=%ld errno=%s\n", what, ret, ret < 0 || want_errno ? strerrorname_np(err) : "-");
	if (ret != want_ret || (want_errno && err != want_errno)) {
		fprintf(stderr, "surprise: %s: ret %ld errno %d, wanted %ld errno %d\n", what, ret, err, want_ret,
			want_errno);
		bad = 1;
	}
}

#define CALL(what, expr, want_ret, want_errno) \
	do { \
		errno = 0; \
		long r_ = (long)(expr); \
		show(what, r_, errno, want_ret, want_errno); \
	} while (0)

/* a successful call leaves errno as it was */
#define KEEPS_ERRNO(what, expr) \
	do { \
		errno = 4242; \
		long r_ = (long)(expr); \
		int e_ = errno; \
		printf("%-28s ret=%ld errno-after=%d\n", what, r_, e_); \
		if (e_ != 4242) { \
			fprintf(stderr, "surprise: %s changed errno to %d\n", what, e_); \
			bad = 1; \
		} \
	} while (0)

static char *at(const char *name)
{
	static char bufs[8][4096];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

/* a descriptor of an open regular file (left open: the program ends soon) */
static int fd_small(void)
{
	return open(at("small"), O_RDONLY);
}

static void make_file(const char *name, size_t n)
{
	int fd = open(at(name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	char buf[4096];
	for (size_t i = 0; i < n; i += sizeof buf) {
		size_t k = n - i < sizeof buf ? n - i : sizeof buf;
		for (size_t j = 0; j < k; j++)
			buf[j] = (char)('a' + (i + j) % 26);
		if (write(fd, buf, k) != (ssize_t)k)
			abort();
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: errno_check DIR\n");
		return 2;
	}
	dir = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	char buf[16384];
	struct stat st;
	struct statx stx;
	make_file("small", 100);
	make_file("big", 10000);

	/* ENOENT */
	CALL("open missing", open(at("missing"), O_RDONLY), -1, ENOENT);
	CALL("open64 missing", open64(at("missing"), O_RDONLY), -1, ENOENT);
	CALL("openat missing", openat(AT_FDCWD, at("missing"), O_RDONLY), -1, ENOENT);
	CALL("creat in missing dir", creat(at("nodir/x"), 0644), -1, ENOENT);
	CALL("fopen missing", fopen(at("missing"), "r") == NULL ? -1 : 0, -1, ENOENT);
	CALL("opendir missing", opendir(at("missing")) == NULL ? -1 : 0, -1, ENOENT);
	CALL("stat missing", stat(at("missing"), &st), -1, ENOENT);
	CALL("lstat missing", lstat(at("missing"), &st), -1, ENOENT);
	CALL("access missing", access(at("missing"), R_OK), -1, ENOENT);
	CALL("statx missing", statx(AT_FDCWD, at("missing"), 0, STATX_SIZE, &stx), -1, ENOENT);
	CALL("fstatat missing", fstatat(AT_FDCWD, at("missing"), &st, 0), -1, ENOENT);
	CALL("open empty path", open("", O_RDONLY), -1, ENOENT);

	/* EFAULT: the tracer must not touch a path the kernel refused */
	const char *volatile nullp = NULL;
	const char *volatile badp = (const char *)1;
	CALL("stat NULL", stat(nullp, &st), -1, EFAULT);
	CALL("open bad pointer", open(badp, O_RDONLY), -1, EFAULT);
	CALL("access bad pointer", access(badp, F_OK), -1, EFAULT);

	/* EBADF */
	CALL("read bad fd", read(999, buf, 10), -1, EBADF);
	CALL("write bad fd", write(999, buf, 10), -1, EBADF);
	CALL("pread bad fd", pread(-1, buf, 10, 0), -1, EBADF);
	CALL("lseek bad fd", lseek(999, 0, SEEK_SET), -1, EBADF);
	CALL("fsync bad fd", fsync(999), -1, EBADF);
	int fd = open(at("small"), O_RDONLY);
	CALL("close", close(fd), 0, 0);
	CALL("fstat on closed fd", fstat(fd, &st), -1, EBADF);
	CALL("close again", close(fd), -1, EBADF);
	CALL("read closed fd", read(fd, buf, 10), -1, EBADF);
	CALL("mmap bad fd", mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 999, 0) == MAP_FAILED ? -1 : 0, -1, EBADF);

	/* EISDIR, EINVAL, ESPIPE */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CALL("read a directory", read(dfd, buf, 10), -1, EISDIR);
	CALL("open dir for writing", open(dir, O_WRONLY), -1, EISDIR);
	fd = open(at("small"), O_RDONLY);
	CALL("pread negative offset", pread(fd, buf, 10, -5), -1, EINVAL);
	CALL("lseek bad whence", lseek(fd, 0, 42), -1, EINVAL);
	int p[2];
	if (pipe(p) != 0)
		abort();
	CALL("lseek on a pipe", lseek(p[0], 0, SEEK_CUR), -1, ESPIPE);
	CALL("fsync on a pipe", fsync(p[0]), -1, EINVAL);

	/* short reads */
	CALL("read 16384 of 100", read(fd, buf, sizeof buf), 100, 0);
	CALL("read at EOF", read(fd, buf, sizeof buf), 0, 0);
	CALL("pread beyond EOF", pread(fd, buf, 10, 100000), 0, 0);
	CALL("pread last 10", pread(fd, buf, 100, 90), 10, 0);
	CALL("pipe write 10", write(p[1], "0123456789", 10), 10, 0);
	CALL("pipe read 100 gets 10", read(p[0], buf, 100), 10, 0);
	close(p[1]);
	CALL("pipe read at EOF", read(p[0], buf, 100), 0, 0);
	close(p[0]);

	/* errno untouched by successful calls, traced or not */
	KEEPS_ERRNO("ok read", pread(fd, buf, 10, 0));
	KEEPS_ERRNO("ok stat", stat(at("small"), &st));
	KEEPS_ERRNO("ok fstat", fstat(fd, &st));
	KEEPS_ERRNO("ok lseek", lseek(fd, 5, SEEK_SET));
	KEEPS_ERRNO("ok open+close", close(open(at("big"), O_RDONLY)));
	close(fd);

	/* vectored */
	fd = open(at("big"), O_RDONLY);
	char a[100], b[200], c[300];
	struct iovec iov[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
	CALL("readv 3 iovecs", readv(fd, iov, 3), 600, 0);
	printf("readv data %.5s %.5s %.5s\n", a, b, c);
	CALL("preadv at 9800", preadv(fd, iov, 3, 9800), 200, 0);
	CALL("preadv2 offset -1", preadv2(fd, iov, 3, -1, 0), 600, 0);
	CALL("lseek cur after", lseek(fd, 0, SEEK_CUR), 1200, 0);
	close(fd);

	/* dup2 onto an open fd: reads follow the new file */
	int f1 = open(at("small"), O_RDONLY), f2 = open(at("big"), O_RDONLY);
	CALL("dup2 onto open fd", dup2(f1, f2), f2, 0);
	CALL("read via dup2'd fd", read(f2, buf, 1000), 100, 0);
	int f3 = fcntl(f1, F_DUPFD_CLOEXEC, 50);
	CALL("F_DUPFD_CLOEXEC >= 50", f3 >= 50, 1, 0);
	CALL("F_GETFD cloexec", fcntl(f3, F_GETFD), FD_CLOEXEC, 0);
	CALL("read dup at shared EOF", read(f3, buf, 10), 0, 0);
	close(f1), close(f2), close(f3);

	/* O_APPEND */
	fd = open(at("log"), O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0644);
	CALL("append 5", write(fd, "hello", 5), 5, 0);
	CALL("lseek 0 then append", lseek(fd, 0, SEEK_SET), 0, 0);
	CALL("append 6", write(fd, " world", 6), 6, 0);
	CALL("offset after append", lseek(fd, 0, SEEK_CUR), 11, 0);
	close(fd);
	CALL("size after appends", (stat(at("log"), &st), st.st_size), 11, 0);

	/* stdio */
	FILE *fp = fopen(at("stdio"), "w+");
	CALL("fwrite 3x7", fwrite("abcdefg", 7, 3, fp), 3, 0);
	CALL("ftell", ftell(fp), 21, 0);
	CALL("fseek 2", fseek(fp, 2, SEEK_SET), 0, 0);
	CALL("fread 5x4 gets 3", fread(buf, 5, 4, fp), 3, 0);
	CALL("feof", feof(fp) != 0, 1, 0);
	CALL("fgetc at EOF", fgetc(fp), EOF, 0);
	rewind(fp);
	CALL("fgets", fgets(buf, 5, fp) ? (long)strlen(buf) : -1, 4, 0);
	CALL("fclose", fclose(fp), 0, 0);
	fd = open(at("stdio"), O_RDONLY);
	fp = fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;
	CALL("getline", getline(&line, &cap, fp), 21, 0);
	CALL("getline at EOF", getline(&line, &cap, fp), -1, 0);
	free(line);
	CALL("fclose fdopen'd", fclose(fp), 0, 0);
	CALL("fd closed by fclose", fcntl(fd, F_GETFD), -1, EBADF);

	/* a directory of 1000 entries */
	mkdir(at("many"), 0755);
	for (int i = 0; i < 1000; i++) {
		char name[64];
		snprintf(name, sizeof name, "many/f%04d", i);
		close(open(at(name), O_CREAT | O_WRONLY, 0644));
	}
	DIR *d = opendir(at("many"));
	int n = 0;
	unsigned long sum = 0;
	struct dirent *e;
	errno = 0;
	while ((e = readdir(d))) {
		n++;
		for (const char *s = e->d_name; *s; s++)
			sum += (unsigned char)*s;
	}
	show("readdir end leaves errno 0", 0, errno, 0, 0);
	printf("readdir entries=%d namesum=%lu\n", n, sum);
	CALL("closedir", closedir(d), 0, 0);

	/* mmap, sendfile, copy_file_range */
	fd = open(at("big"), O_RDONLY);
	char *m = mmap(NULL, 10000, PROT_READ, MAP_PRIVATE, fd, 0);
	printf("mmap byte 9999 = %c\n", m[9999]);
	munmap(m, 10000);
	int out = open(at("copy1"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	off_t off = 100;
	CALL("sendfile 500 at 100", sendfile(out, fd, &off, 500), 500, 0);
	CALL("sendfile moved off", off, 600, 0);
	CALL("sendfile fd offset", sendfile(out, fd, NULL, 20000), 10000, 0);
	CALL("copy_file_range at EOF", copy_file_range(fd, NULL, out, NULL, 100, 0), 0, 0);
	close(out);
	close(fd);
	CALL("copy size", (stat(at("copy1"), &st), st.st_size), 10500, 0);

	/* sockets, pipes, msync: classes only, never a different result */
	int sv[2], pp[2];
	CALL("socket bad domain", socket(-1, SOCK_STREAM, 0), -1, EAFNOSUPPORT);
	CALL("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0, 0);
	CALL("send 10", send(sv[0], "0123456789", 10, 0), 10, 0);
	CALL("recv 4 of 10", recv(sv[1], buf, 4, 0), 4, 0);
	KEEPS_ERRNO("recv the rest", recv(sv[1], buf, 100, 0));
	CALL("recv nothing waiting", recv(sv[1], buf, 100, MSG_DONTWAIT), -1, EAGAIN);
	CALL("recvfrom closed fd", recvfrom(1000, buf, 10, 0, NULL, NULL), -1, EBADF);
	CALL("sendto bad buffer", sendto(sv[0], (void *)8, 10, 0, NULL, 0), -1, EFAULT);
	CALL("sendmsg bad msghdr", sendmsg(sv[0], (void *)8, 0), -1, EFAULT);
	CALL("recvmsg on a file", recvmsg(fd_small(), &(struct msghdr){0}, 0), -1, ENOTSOCK);
	close(sv[0]);
	CALL("recv after peer closed", recv(sv[1], buf, 10, 0), 0, 0);
	close(sv[1]);
	CALL("pipe2 bad flags", pipe2(pp, -1), -1, EINVAL);
	CALL("pipe", pipe(pp), 0, 0);
	close(pp[0]);
	CALL("write to a closed pipe", (signal(SIGPIPE, SIG_IGN), write(pp[1], "x", 1)), -1, EPIPE);
	close(pp[1]);
	CALL("msync unmapped", msync((void *)4096, 4096, MS_SYNC), -1, ENOMEM);
	CALL("msync bad flags", msync(buf, 4096, -1), -1, EINVAL);

	/* close_range, then fork and vfork children */
	int hi = open(at("small"), O_RDONLY);
	CALL("close_range", close_range((unsigned)hi, (unsigned)hi + 10, 0), 0, 0);
	CALL("closed by close_range", fcntl(hi, F_GETFD), -1, EBADF);
	pid_t pid = fork();
	if (pid == 0) {
		int k = open(at("big"), O_RDONLY);
		_exit(read(k, buf, 10000) == 10000 ? 7 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	CALL("fork child exit", WEXITSTATUS(status), 7, 0);
	int keep = open(at("small"), O_RDONLY);
	pid = vfork();
	if (pid == 0) {
		close(keep); /* the child's copy: the parent's stays open */
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	CALL("vfork child exit", WEXITSTATUS(status), 0, 0);
	CALL("parent fd after vfork", read(keep, buf, 1000), 100, 0);
	close(keep);
	printf("done\n");
	return bad;
}
