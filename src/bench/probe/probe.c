/* probe.c - `feedscope probe` (probe.h): where the directory lives (its
 * file system and whole disk), a directory of its own to measure in, the
 * order of the tests, and the clean-up on every return. The measurements
 * themselves are in probe_io.c.
 *
 * DIR must be a directory that is empty, or holds the marker (a dataset of
 * `bench generate`), or holds nothing but directories an earlier probe left
 * (killed with SIGKILL): those whose process is gone are removed first. The
 * probe writes only in DIR/.feedscope-probe-PID (marker, test file, small
 * files, fsync file), all through safety.h's *_inside calls, and removes it. */
#include "bench/probe/probe_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/format/dataset.h"
#include "bench/host/safety.h"
#include "source/devpath.h"
#include "util/clock.h"
#include "util/paths.h"

#define PROBE_PREFIX ".feedscope-probe-"
#define DATA_NAME "data"
#define SEQ_BLOCK (1u << 20)
#define SEQ_QD 16
#define RAND_BLOCK 4096u
#define META_FILE_BYTES 8192 /* a small file with its inode, for the space check */

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define NCAUGHT 3

static void catch_signals(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	stop_flag = 0;
	for (int i = 0; i < NCAUGHT; i++) {
		sigaction(caught[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN) /* nohup stays nohup */
			sigaction(caught[i], &sa, NULL);
	}
}

static void restore_signals(const struct sigaction *old)
{
	for (int i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &old[i], NULL);
}

/* Whether name (in the directory dfd) is a probe's directory holding the
 * marker; its pid into *pid. */
static bool is_probe_dir(int dfd, const char *name, long *pid)
{
	if (strncmp(name, PROBE_PREFIX, strlen(PROBE_PREFIX)) != 0)
		return false;
	char *end;
	*pid = strtol(name + strlen(PROBE_PREFIX), &end, 10);
	struct stat st;
	char marker[PATH_MAX];
	snprintf(marker, sizeof marker, "%s/%s", name, FS_DATASET_MARKER);
	return *pid > 0 && (*end == '\0' || *end == '-') && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode) && fstatat(dfd, marker, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Whether dir holds something, all of it probe directories. */
static bool only_probe_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	int n = 0;
	bool all = true;
	long pid;
	for (struct dirent *e; all && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		all = is_probe_dir(dirfd(d), e->d_name, &pid);
		n++;
	}
	closedir(d);
	return all && n > 0;
}

/* Remove the probe directory name below dfd: its regular files, the marker
 * last, then the directory. Anything else in it (which a probe never makes)
 * stays, and so does the directory. */
static void remove_probe_dir(int dfd, const char *name)
{
	int fd = fs_bench_open_inside(dfd, name, O_RDONLY | O_DIRECTORY, 0);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct stat st;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, FS_DATASET_MARKER) &&
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	char marker[PATH_MAX];
	snprintf(marker, sizeof marker, "%s/%s", name, FS_DATASET_MARKER);
	fs_bench_unlink_inside(dfd, marker, false);
	fs_bench_unlink_inside(dfd, name, true);
}

/* Remove what killed probes left in dir (their process is gone). */
static void remove_stale(int dfd, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char names[16][NAME_MAX + 1];
	int n = 0;
	long pid;
	for (struct dirent *e; n < 16 && (e = readdir(d));)
		if (is_probe_dir(dirfd(d), e->d_name, &pid) && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			snprintf(names[n++], sizeof names[0], "%s", e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		remove_probe_dir(dfd, names[i]);
}

/* DIR must exist and be a directory that safety.h allows, or hold only
 * probe directories. */
static int check_dir(const char *dir, char *why, size_t whylen)
{
	struct stat st;
	if (!dir || !*dir) {
		snprintf(why, whylen, "no directory given (--dir)");
		return FS_PROBE_REFUSED;
	}
	if (stat(dir, &st) < 0 && lstat(dir, &st) < 0) {
		snprintf(why, whylen, "%s: %s (probe measures an existing directory)", dir, strerror(errno));
		return FS_PROBE_REFUSED;
	}
	if (fs_bench_dir_check(dir, why, whylen) == FS_SAFETY_OK)
		return FS_PROBE_OK;
	if (S_ISDIR(st.st_mode) && only_probe_dirs(dir))
		return FS_PROBE_OK;
	return FS_PROBE_REFUSED;
}

/* The file system (MAJ:MIN, type) and whole device under dir: fs_devpath_of,
 * the definition the run file's mounts table uses too. */
static void find_device(const char *dir, struct fs_probe_result *r)
{
	struct fs_paths p;
	fs_paths_from_env(&p);
	struct fs_devpath *d = malloc(sizeof *d);
	if (d && fs_devpath_of(&p, NULL, dir, d) == 0) {
		snprintf(r->majmin, sizeof r->majmin, "%s", d->majmin);
		snprintf(r->device, sizeof r->device, "%s", d->device);
		snprintf(r->fs_type, sizeof r->fs_type, "%.31s", d->fstype);
	}
	free(d);
}

/* The test file's size: asked for (whole MiB), or the default halved until
 * it fits. Returns 0, or -1 with why. */
static int choose_size(const struct fs_probe_opts *o, uint64_t other_bytes, uint64_t *size, char *why,
		       size_t whylen)
{
	if (o->size_bytes) {
		*size = o->size_bytes / SEQ_BLOCK * SEQ_BLOCK;
		if (*size < FS_PROBE_MIN_BYTES) {
			snprintf(why, whylen, "the test file must be at least %llu MiB",
				 (unsigned long long)(FS_PROBE_MIN_BYTES >> 20));
			return -1;
		}
		return fs_bench_space_check(o->dir, *size + other_bytes, why, whylen);
	}
	for (*size = FS_PROBE_DEFAULT_BYTES; *size > FS_PROBE_MIN_BYTES; *size /= 2)
		if (fs_bench_space_check(o->dir, *size + other_bytes, why, whylen) == 0)
			return 0;
	*size = FS_PROBE_MIN_BYTES;
	return fs_bench_space_check(o->dir, *size + other_bytes, why, whylen);
}

/* Make DIR/.feedscope-probe-PID with its marker; its name into name. */
static int make_own_dir(int dfd, char *name, size_t cap, char *why, size_t whylen)
{
	for (int k = 0; k < 100; k++) {
		if (k)
			snprintf(name, cap, PROBE_PREFIX "%ld-%d", (long)getpid(), k);
		else
			snprintf(name, cap, PROBE_PREFIX "%ld", (long)getpid());
		int rc = fs_bench_mkdir_inside(dfd, name, 0755);
		if (rc == 0)
			continue; /* there already */
		if (rc < 0) {
			snprintf(why, whylen, "cannot create %s: %s", name, strerror(errno));
			return -1;
		}
		char marker[PATH_MAX];
		snprintf(marker, sizeof marker, "%s/%s", name, FS_DATASET_MARKER);
		int fd = fs_bench_open_inside(dfd, marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
		static const char text[] = "feedscope-bench 1\ncreated_dir yes\n"
					   "# made by feedscope probe, removed when it ends\n";
		bool ok = fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
		int err = errno;
		if (fd >= 0)
			close(fd);
		if (!ok) {
			snprintf(why, whylen, "%s: %s", marker, strerror(err));
			remove_probe_dir(dfd, name);
			return -1;
		}
		return 0;
	}
	snprintf(why, whylen, "cannot find a free name for the probe's directory");
	return -1;
}

/* Read the whole file once so the buffered read tests find it in the page cache. */
static void warm_cache(int fd, uint64_t bytes)
{
	unsigned char *buf = fs_io_buf(SEQ_BLOCK);
	for (uint64_t off = 0; buf && off < bytes && !stop_flag; off += SEQ_BLOCK)
		if (pread(fd, buf, SEQ_BLOCK, (off_t)off) <= 0)
			break;
	free(buf);
}

/* The read tests that were asked for, on the test file. */
static int read_tests(struct fs_probe_env *e, const struct fs_probe_opts *o, unsigned tests,
		      struct fs_probe_result *r)
{
	const struct fs_io_engine_ops *eng = fs_io_engine_find(o->engine ? o->engine : "io_uring");
	char scratch[256];
	struct fs_io_ctx *c = eng->create(1, scratch, sizeof scratch);
	if (!c && !o->engine)
		eng = fs_io_engine_find("psync"); /* io_uring disabled on this kernel */
	else if (c)
		eng->destroy(c);
	snprintf(r->engine, sizeof r->engine, "%s", eng->name);

	bool direct = !o->buffered && eng->supports_direct;
	int fd = fs_bench_open_inside(e->subfd, DATA_NAME, O_RDONLY | (direct ? O_DIRECT : 0), 0);
	if (fd < 0 && direct && errno == EINVAL) { /* no O_DIRECT here (tmpfs before 6.6, some FUSE) */
		direct = false;
		fd = fs_bench_open_inside(e->subfd, DATA_NAME, O_RDONLY, 0);
	}
	if (fd < 0) {
		snprintf(e->why, e->whylen, "opening the test file: %s", strerror(errno));
		return -1;
	}
	r->direct = direct;
	if (!direct)
		warm_cache(fd, r->file_bytes);
	static const struct {
		unsigned bit;
		const char *what;
		size_t block;
		bool random;
	} t[] = {
		{FS_PROBE_SEQ, "sequential read", SEQ_BLOCK, false},
		{FS_PROBE_QD1, "random read QD1", RAND_BLOCK, true},
		{FS_PROBE_QD32, "random read QD32", RAND_BLOCK, true},
		{FS_PROBE_RANDREAD, "random read", RAND_BLOCK, true},
	};
	struct fs_hist *h = malloc(sizeof *h);
	int rc = h ? 0 : -1;
	if (!h)
		snprintf(e->why, e->whylen, "out of memory");
	for (int i = 0; i < 4 && rc == 0; i++) {
		if (!(tests & t[i].bit))
			continue;
		unsigned qd = t[i].bit == FS_PROBE_SEQ ? SEQ_QD : t[i].bit == FS_PROBE_QD1 ? 1
			      : t[i].bit == FS_PROBE_QD32 ? 32 : r->randread_qd;
		struct fs_probe_reads got;
		fs_hist_init(h);
		e->step++;
		rc = fs_probe_read_test(e, t[i].what, eng, fd, r->file_bytes, t[i].block, qd, t[i].random,
					r->runtime_s, h, &got);
		if (rc < 0)
			break;
		double per_s = (double)got.ops / got.elapsed_s;
		if (o->keep) { /* i is the FS_PROBE_KEPT_* index: t[] is in that order */
			struct fs_probe_kept *k = o->keep;
			k->ran[i] = true;
			k->ops[i] = got.ops;
			k->bytes[i] = got.bytes;
			k->elapsed_s[i] = got.elapsed_s;
			k->qd[i] = qd;
			k->block_bytes[i] = (uint32_t)t[i].block;
			k->lat[i] = *h;
		}
		switch (t[i].bit) {
		case FS_PROBE_SEQ:
			r->seq_read_bytes_per_s = (double)got.bytes / got.elapsed_s;
			fs_probe_lat_from(&r->seq_lat, h);
			break;
		case FS_PROBE_QD1:
			r->randread_iops_qd1 = per_s;
			fs_probe_lat_from(&r->qd1_lat, h);
			break;
		case FS_PROBE_QD32:
			r->randread_iops_qd32 = per_s;
			fs_probe_lat_from(&r->qd32_lat, h);
			break;
		default:
			r->randread_iops = per_s;
			fs_probe_lat_from(&r->randread_lat, h);
		}
	}
	free(h);
	close(fd);
	return rc;
}

/* Check o; the reason in why. */
static int check_opts(const struct fs_probe_opts *o, unsigned tests, char *why, size_t whylen)
{
	const struct fs_io_engine_ops *eng = o->engine ? fs_io_engine_find(o->engine) : NULL;
	if (o->engine && !eng)
		snprintf(why, whylen, "unknown engine '%s' (psync, io_uring or mmap)", o->engine);
	else if (eng && !eng->supports_direct && !o->buffered)
		snprintf(why, whylen, "the %s engine reads through the page cache: add --buffered", eng->name);
	else if (tests & ~(FS_PROBE_CEILINGS | FS_PROBE_RANDREAD))
		snprintf(why, whylen, "unknown test bits 0x%x", tests);
	else if (!(o->runtime_s >= 0) || o->runtime_s > 86400)
		snprintf(why, whylen, "bad runtime %g s", o->runtime_s);
	else if (o->qd > 4096)
		snprintf(why, whylen, "queue depth %u is over 4096", o->qd);
	else
		return 0;
	return -1;
}

int fs_probe_run(const struct fs_probe_opts *o, struct fs_probe_result *r, char *why, size_t whylen)
{
	fs_probe_result_init(r);
	if (o->keep)
		memset(o->keep->ran, 0, sizeof o->keep->ran);
	unsigned tests = o->tests ? o->tests : FS_PROBE_CEILINGS;
	if (check_opts(o, tests, why, whylen) < 0 || check_dir(o->dir, why, whylen) != FS_PROBE_OK)
		return FS_PROBE_REFUSED;
	if (!realpath(o->dir, r->dir))
		snprintf(r->dir, sizeof r->dir, "%s", o->dir);
	find_device(o->dir, r);
	r->time_unix = (int64_t)time(NULL);
	r->tests = tests;
	r->runtime_s = o->runtime_s > 0 ? o->runtime_s : FS_PROBE_DEFAULT_RUNTIME_S;
	r->randread_qd = o->qd ? o->qd : 1;
	uint32_t files = (tests & FS_PROBE_META) ? (o->meta_files ? o->meta_files : FS_PROBE_DEFAULT_META_FILES) : 0;
	uint64_t other = (uint64_t)files * META_FILE_BYTES + ((tests & FS_PROBE_FSYNC) ? (1u << 20) : 0);
	if (tests & FS_PROBE_READS) {
		if (choose_size(o, other, &r->file_bytes, why, whylen) < 0)
			return FS_PROBE_REFUSED;
	} else if (fs_bench_space_check(o->dir, other, why, whylen) < 0) {
		return FS_PROBE_REFUSED;
	}

	struct sigaction old[NCAUGHT];
	catch_signals(old);
	int dfd = fs_bench_dir_open(o->dir);
	if (dfd < 0) {
		snprintf(why, whylen, "%s: %s", o->dir, strerror(errno));
		restore_signals(old);
		return FS_PROBE_FAILED;
	}
	remove_stale(dfd, o->dir);
	char name[64];
	struct fs_probe_env e = {.subfd = -1, .stop = &stop_flag, .progress = o->progress, .why = why,
				 .whylen = whylen};
	int rc = make_own_dir(dfd, name, sizeof name, why, whylen);
	bool made = rc == 0;
	if (made) {
		e.subfd = fs_bench_open_inside(dfd, name, O_PATH | O_DIRECTORY, 0);
		if (e.subfd < 0) {
			snprintf(why, whylen, "%s/%s: %s", o->dir, name, strerror(errno));
			rc = -1;
		}
	}
	for (unsigned b = 1; b <= FS_PROBE_RANDREAD; b <<= 1)
		e.steps += (tests & b) != 0;
	if (rc == 0 && (tests & FS_PROBE_READS)) {
		e.steps++;
		e.step++;
		int fd = fs_bench_open_inside(e.subfd, DATA_NAME, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			snprintf(why, whylen, "creating the test file: %s", strerror(errno));
			rc = -1;
		} else {
			rc = fs_probe_write_file(&e, fd, r->file_bytes, &r->prep_write_bytes_per_s);
			if (rc == 0 && !o->buffered)
				posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* the first reads go to the device */
			close(fd);
		}
		if (rc == 0)
			rc = read_tests(&e, o, tests, r);
	}
	if (rc == 0 && (tests & FS_PROBE_META)) {
		e.step++;
		rc = fs_probe_meta_test(&e, files, r);
	}
	if (rc == 0 && (tests & FS_PROBE_FSYNC)) {
		e.step++;
		rc = fs_probe_fsync_test(&e, r->runtime_s, r);
	}
	if (rc == 0 && stop_flag) {
		snprintf(why, whylen, "interrupted");
		rc = -1;
	}
	fs_probe_show_end(&e);
	if (e.subfd >= 0)
		close(e.subfd);
	if (made)
		remove_probe_dir(dfd, name);
	close(dfd);
	restore_signals(old);
	if (!(tests & FS_PROBE_READS))
		r->engine[0] = '\0';
	return rc == 0 ? FS_PROBE_OK : FS_PROBE_FAILED;
}
