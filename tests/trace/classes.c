/* classes DIR - a known sequence of calls on every kind of descriptor, so
 * that trace_accuracy.sh can hold the tracer's per-class, per-thread
 * counters (region.h: struct fs_trace_class; the io_classes table) to
 * exact counts and bytes. The expected values, and why, are in that script.
 *
 * The main thread writes a "checkpoint" (3 writes of 10 000 bytes, fsync,
 * fdatasync), msyncs a shared mapping twice, reads DIR/data (5000 bytes),
 * passes bytes through a pipe, a socketpair (send/recv, write/read,
 * sendmsg/recvmsg) and /dev/null. A second thread reads DIR/data2 (3000
 * bytes), then forks: in the child that thread is the main one (tid ==
 * pid), and it reads 2 x 100 bytes of DIR/data before _exit.
 * Prints "pids main=P child=C". The script creates data and data2.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static char buf[65536];
static pid_t child;

static char *at(const char *name)
{
	static char bufs[4][4096];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

static void need(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "classes: %s failed\n", what);
		exit(1);
	}
}

static void checkpoint(void)
{
	int fd = open(at("ckpt"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
	need(fd >= 0, "open ckpt");
	for (int i = 0; i < 3; i++)
		need(write(fd, buf, 10000) == 10000, "write ckpt");
	need(fsync(fd) == 0, "fsync");
	need(fdatasync(fd) == 0, "fdatasync");
	need(close(fd) == 0, "close ckpt");

	fd = open(at("mapped"), O_CREAT | O_RDWR | O_TRUNC, 0644);
	need(fd >= 0 && ftruncate(fd, 8192) == 0, "open mapped");
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	need(m != MAP_FAILED, "mmap");
	memset(m, 'y', 8192);
	need(msync(m, 8192, MS_SYNC) == 0, "msync 1");
	need(msync(m + 4096, 4096, MS_SYNC) == 0, "msync 2");
	munmap(m, 8192);
	need(close(fd) == 0, "close mapped");
}

static void read_file(const char *name, size_t chunk, int reads)
{
	int fd = open(at(name), O_RDONLY);
	need(fd >= 0, "open data");
	for (int i = 0; i < reads; i++)
		need(read(fd, buf, chunk) > 0, "read data");
	need(read(fd, buf, sizeof buf) == 0, "read at EOF");
	need(close(fd) == 0, "close data");
}

static void not_files(void)
{
	int p[2], sv[2];
	need(pipe(p) == 0, "pipe");
	need(write(p[1], buf, 700) == 700 && read(p[0], buf, 700) == 700, "pipe bytes");
	close(p[0]);
	close(p[1]);

	need(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	need(send(sv[0], buf, 300, 0) == 300 && recv(sv[1], buf, 300, MSG_WAITALL) == 300, "send/recv");
	need(write(sv[1], buf, 200) == 200 && read(sv[0], buf, 200) == 200, "socket write/read");
	struct iovec iov = {buf, 100};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	need(sendmsg(sv[0], &msg, 0) == 100 && recvmsg(sv[1], &msg, MSG_WAITALL) == 100, "sendmsg/recvmsg");
	close(sv[0]);
	close(sv[1]);

	int dn = open("/dev/null", O_RDWR);
	need(dn >= 0 && write(dn, buf, 123) == 123 && read(dn, buf, 10) == 0, "/dev/null");
	close(dn);
}

static void *helper(void *arg)
{
	read_file("data2", 1000, 3);
	child = fork();
	if (child == 0) {
		/* this thread is the child's main thread now */
		int fd = open(at("data"), O_RDONLY);
		need(fd >= 0 && read(fd, buf, 100) == 100 && read(fd, buf, 100) == 100, "child reads");
		_exit(0);
	}
	int status;
	need(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	     "fork child");
	return arg;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: classes DIR\n");
		return 2;
	}
	dir = argv[1];
	memset(buf, 'x', sizeof buf);
	checkpoint();
	read_file("data", 4096, 2);
	not_files();
	pthread_t th;
	need(pthread_create(&th, NULL, helper, NULL) == 0, "pthread_create");
	need(pthread_join(th, NULL) == 0, "pthread_join");
	printf("pids main=%d child=%d\n", (int)getpid(), (int)child);
	return 0;
}
