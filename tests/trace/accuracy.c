/* accuracy DIR - a known sequence of file operations, so that
 * trace_accuracy.sh can hold every counter of the tracer's regions to an
 * exact value (the expected values, and why, are in that script).
 *
 * Prints "pids main=P fork=F exec=E vfork=V" so the script knows which
 * region is which: main in <P>, the fork child in <F> (it leaves by _exit
 * right after its reads), the exec'd image in <E>.1 (<E> is its pre-exec
 * image, a fork child), the vfork+exec child in <V> (a vfork child makes
 * no region before its exec).
 *   accuracy --exec-child FILE   (the exec'd image: reads FILE once)
 * The script creates the input files first: f_inherited and f_child (3000
 * bytes), g_exec and i_vfork_exec (2000), h_vfork (1000).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static char buf[65536];

static char *at(const char *name)
{
	static char bufs[8][4096];
	static int k;
	char *b = bufs[k++ % 8];
	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

static void need(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "accuracy: %s failed\n", what);
		exit(1);
	}
}

static void section_posix(void)
{
	const char *a = at("a_posix");
	struct stat st;
	struct statx stx;
	int fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	need(write(fd, buf, 10000) == 10000, "write 10000");
	need(fsync(fd) == 0, "fsync");
	close(fd);
	fd = open(a, O_RDONLY);
	need(read(fd, buf, 4096) == 4096, "read 1");
	need(read(fd, buf, 4096) == 4096, "read 2");
	need(read(fd, buf, 4096) == 1808, "read 3");
	need(read(fd, buf, 4096) == 0, "read EOF");
	need(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	need(pread(fd, buf, 100, 5000) == 100, "pread 5000");
	need(pread(fd, buf, 100, 5100) == 100, "pread 5100");
	need(pread(fd, buf, 100, 7000) == 100, "pread 7000");
	need(read(fd, buf, 512) == 512, "read 512 at 0");
	struct iovec iov[3] = {{buf, 100}, {buf + 100, 200}, {buf + 300, 300}};
	need(readv(fd, iov, 3) == 600, "readv");
	struct iovec iov2[2] = {{buf, 50}, {buf + 50, 50}};
	need(preadv(fd, iov2, 2, 9000) == 100, "preadv");
	need(pread(fd, buf, 100, 20000) == 0, "pread beyond EOF");
	need(fstat(fd, &st) == 0, "fstat");
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	need(m != MAP_FAILED, "mmap");
	munmap(m, 4096);
	close(fd);
	need(stat(a, &st) == 0, "stat");
	need(lstat(a, &st) == 0, "lstat");
	need(access(a, R_OK) == 0, "access");
	need(statx(AT_FDCWD, a, 0, STATX_SIZE, &stx) == 0, "statx");
	need(stat(at("a_missing"), &st) != 0, "stat missing");
}

static void section_stdio(void)
{
	const char *b = at("b_stdio");
	FILE *fp = fopen(b, "w");
	need(fwrite(buf, 1000, 3, fp) == 3, "fwrite");
	need(fputs("hello\n", fp) >= 0, "fputs");
	need(fprintf(fp, "%d\n", 12345) == 6, "fprintf");
	need(fclose(fp) == 0, "fclose w");
	fp = fopen(b, "r");
	for (int i = 0; i < 3; i++)
		need(fread(buf, 1, 1000, fp) == 1000, "fread 1000");
	char line[100];
	need(fgets(line, sizeof line, fp) && strcmp(line, "hello\n") == 0, "fgets");
	need(fgetc(fp) == '1', "fgetc");
	need(ftell(fp) == 3007, "ftell");
	need(fseek(fp, 0, SEEK_SET) == 0, "fseek 0");
	need(fread(buf, 1, 100, fp) == 100, "fread 100");
	need(fseek(fp, 0, SEEK_END) == 0, "fseek end");
	need(fread(buf, 1, 100, fp) == 0, "fread EOF");
	char *l = NULL;
	size_t cap = 0;
	need(getline(&l, &cap, fp) == -1, "getline EOF");
	free(l);
	need(fclose(fp) == 0, "fclose r");
}

static void section_dup(void)
{
	int fd = open(at("c_dup"), O_CREAT | O_RDWR | O_TRUNC, 0644);
	need(write(fd, buf, 8192) == 8192, "write 8192");
	int fd2 = dup(fd);
	need(lseek(fd2, 0, SEEK_SET) == 0, "lseek fd2");
	need(read(fd2, buf, 4096) == 4096, "read fd2");
	int fd3 = fcntl(fd2, F_DUPFD, 100);
	need(fd3 >= 100, "F_DUPFD");
	need(read(fd3, buf, 4096) == 4096, "read fd3");
	need(dup2(fd3, fd) == fd, "dup2");
	close(fd3);
	close(fd2);
	FILE *fp = fdopen(fd, "r");
	need(fp && fread(buf, 1, 10, fp) == 0, "fread at EOF");
	fclose(fp);
}

static void section_dir(void)
{
	need(mkdir(at("d_dir"), 0755) == 0, "mkdir");
	for (int i = 0; i < 5; i++) {
		char name[64];
		snprintf(name, sizeof name, "d_dir/f%d", i);
		close(open(at(name), O_CREAT | O_WRONLY, 0644));
	}
	DIR *d = opendir(at("d_dir"));
	int n = 0;
	while (readdir(d))
		n++;
	need(n == 7, "readdir");
	closedir(d);
}

static void section_paths(void)
{
	/* three spellings of one file: one record */
	char p[4096];
	snprintf(p, sizeof p, "%s//e_norm", dir);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	snprintf(p, sizeof p, "%s/./e_norm", dir);
	close(open(p, O_RDONLY));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	close(openat(dfd, "e_norm", O_RDONLY));
	close(dfd);
	need(chdir(dir) == 0, "chdir");
	close(open("e_norm", O_RDONLY));
}

static void section_fork(void)
{
	int inh = open(at("f_inherited"), O_RDONLY);
	need(read(inh, buf, 1000) == 1000, "parent read");
	pid_t pid = fork();
	if (pid == 0) {
		/* the inherited fd keeps its file; the offset continues at 1000 */
		need(read(inh, buf, 1000) == 1000, "child read inherited 1");
		need(read(inh, buf, 1000) == 1000, "child read inherited 2");
		int fd = open(at("f_child"), O_RDONLY);
		for (int i = 0; i < 3; i++)
			need(read(fd, buf, 1000) == 1000, "child read");
		_exit(0); /* no close, no flush: the counts are already in the region */
	}
	int status;
	waitpid(pid, &status, 0);
	need(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fork child");
	close(inh);
	printf(" fork=%d", (int)pid);
}

static void section_exec(const char *self)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(self, self, "--exec-child", at("g_exec"), (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	need(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exec child");
	printf(" exec=%d", (int)pid);
}

static void section_vfork(const char *self)
{
	int fd = open(at("h_vfork"), O_RDONLY);
	need(read(fd, buf, 100) == 100, "read before vfork");
	pid_t pid = vfork();
	if (pid == 0) {
		/* the child's own copy of fd: the parent's record must not see
		 * this close, nor anything else the child does before exec */
		close(fd);
		execl(self, self, "--exec-child", at("i_vfork_exec"), (char *)NULL);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	need(WIFEXITED(status) && WEXITSTATUS(status) == 0, "vfork child");
	need(read(fd, buf, 100) == 100, "read after vfork");
	close(fd);
	printf(" vfork=%d", (int)pid);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		int fd = open(argv[2], O_RDONLY);
		return read(fd, buf, sizeof buf) == 2000 ? 0 : 1;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: accuracy DIR\n");
		return 2;
	}
	dir = argv[1];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	need(n > 0, "readlink");
	self[n] = '\0';
	memset(buf, 'x', sizeof buf);
	printf("pids main=%d", (int)getpid());
	fflush(stdout);
	section_posix();
	section_stdio();
	section_dup();
	section_dir();
	section_fork();
	section_exec(self);
	section_vfork(self);
	section_paths();
	printf("\n");
	return 0;
}
