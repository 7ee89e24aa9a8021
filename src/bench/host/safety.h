/* safety.h - the rules every write of `bench generate`, `bench`, `probe` and
 * `bench clean` goes through:
 *
 *   - never write to a block or character device (nor through a symlink to one);
 *   - never write into a non-empty directory feedscope did not make: a
 *     directory is ours when it holds the marker DIR/.feedscope-bench
 *     (dataset.h), which feedscope writes when it starts using an empty or
 *     new directory;
 *   - never write outside DIR: no "..", no symlink and no mount point below
 *     DIR (feedscope never makes either); writes open their files with
 *     openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV), so a
 *     symlink planted after the check is not followed either;
 *   - check free space first: what will be written + 5%, and 5% of the file
 *     system left free afterwards.
 *
 * DIR itself may be reached through a symlink (e.g. /data -> /mnt/nvme/data);
 * only what lies below it is checked. feedscope creates DIR's last component
 * only, never missing parents: a typo in a parent is an error, not a tree.
 */
#ifndef FS_BENCH_SAFETY_H
#define FS_BENCH_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Return values of fs_bench_dir_check / fs_bench_dir_prepare. */
#define FS_SAFETY_OK 0
#define FS_SAFETY_REFUSED (-1) /* a rule says no: the caller exits 2, nothing was written */
#define FS_SAFETY_FAILED (-2)  /* the system said no (mkdir, write of the marker): exit 1 */

/* The checks of fs_bench_dir_prepare without writing anything: DIR is a
 * directory (or a symlink to one) that is empty or holds the marker, or DIR
 * does not exist and its parent is a directory. Returns FS_SAFETY_OK or
 * FS_SAFETY_REFUSED with the reason in why. */
int fs_bench_dir_check(const char *dir, char *why, size_t whylen);

/* Make DIR ready for the benchmark's writes: refuse what fs_bench_dir_check
 * refuses; create DIR when it is missing and create is true (its last
 * component only; a missing DIR is refused when create is false); write the
 * marker when DIR is new or empty (recording whether feedscope created DIR,
 * so `bench clean` knows whether to remove it). Returns FS_SAFETY_OK,
 * FS_SAFETY_REFUSED or FS_SAFETY_FAILED, with the reason in why. */
int fs_bench_dir_prepare(const char *dir, bool create, char *why, size_t whylen);

/* Whether the file system holding DIR (or its nearest existing ancestor) has
 * room for bytes more: free >= bytes + 5%, and 5% of its size still free
 * after. Returns 0, or -1 with the reason (sizes in IEC units) in why. */
int fs_bench_space_check(const char *dir, uint64_t bytes, char *why, size_t whylen);

/* fs_bench_space_check for a checkpoint of ckpt_bytes (what from_keys, a
 * workload's keys, made it at --scale scale) with extra_bytes more to be
 * written first (a dataset about to be generated). Returns 0, or -1 with a
 * reason in why that names the keys and the largest --scale that fits. */
int fs_bench_ckpt_space_check(const char *dir, uint64_t ckpt_bytes, uint64_t extra_bytes, double scale,
			      const char *from_keys, char *why, size_t whylen);

/* Whether path (absolute, or relative to DIR) lies strictly below DIR: no
 * ".." component, and no existing component below DIR that is a symlink, a
 * mount point (another file system than DIR's) or, but for the last, not a
 * directory. Missing components are fine (they will be created). Checked
 * before every write; never writes. */
bool fs_bench_path_inside(const char *dir, const char *path);

/* Whether DIR holds the marker (a regular file, not a symlink). When it does
 * and created is not NULL, *created says whether feedscope created DIR. */
bool fs_bench_has_marker(const char *dir, bool *created);

/* An O_PATH descriptor of DIR for the *_inside calls below; -1 with errno. */
int fs_bench_dir_open(const char *dir);

/* openat(2) of rel below dirfd that can never leave it: openat2 with
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV (on kernels without
 * openat2: fs_bench_path_inside, then O_NOFOLLOW). Returns the fd, or -1 with
 * errno (EXDEV, ELOOP: the path would leave DIR). O_CLOEXEC is added. */
int fs_bench_open_inside(int dirfd, const char *rel, int flags, mode_t mode);

/* Open rel below dirfd for reading, for `bench` (the dataset's files):
 * resolved as fs_bench_open_inside does (a symlink anywhere is refused,
 * ELOOP), opened with O_NONBLOCK|O_NOCTTY (a FIFO or a device planted at the
 * name can never make the open or a read hang), then fstat: anything but a
 * regular file is closed again and refused (errno EINVAL, kind in why).
 * O_NONBLOCK is cleared before returning; O_DIRECT is added when direct.
 * An EINTR is retried unless *stop (may be NULL) is set. Returns the fd, or
 * -1 with errno and "DIR/rel: reason" in why (dir is only used in why). */
int fs_bench_open_read(int dirfd, const char *dir, const char *rel, bool direct,
		       const volatile sig_atomic_t *stop, char *why, size_t whylen);

/* mkdir of rel below dirfd (its parent resolved as above). Returns 1 if it
 * made the directory, 0 if a directory (not a symlink) was already there, -1
 * with errno otherwise. */
int fs_bench_mkdir_inside(int dirfd, const char *rel, mode_t mode);

/* Remove rel below dirfd: a regular file (dir false) or an empty directory
 * (dir true); anything else (a symlink, a device, a file where a directory
 * was expected) is left alone with errno EPERM. Returns 0 or -1 with errno
 * (ENOENT when nothing is there). */
int fs_bench_unlink_inside(int dirfd, const char *rel, bool dir);

#endif
