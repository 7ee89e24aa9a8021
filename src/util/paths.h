/* paths.h - every /proc and /sys path goes through one root prefix.
 *
 * FEEDSCOPE_PROC_ROOT (default /proc) and FEEDSCOPE_SYS_ROOT (default /sys)
 * let the tests point every source at a fixture tree, as sysstat's tests do.
 * FEEDSCOPE_SHM_PATH (default /dev/shm) is the shared-memory mount whose free
 * space the mem source reports.
 */
#ifndef FS_PATHS_H
#define FS_PATHS_H

#include <stddef.h>

struct fs_paths {
	char proc[256];
	char sys[256];
	char shm[256];
};

/* Fill p from the environment (defaults where unset or empty). */
void fs_paths_from_env(struct fs_paths *p);

/* out = <proc root>/<rel> ("rel" has no leading slash). Returns out. */
char *fs_proc_path(char *out, size_t cap, const struct fs_paths *p, const char *rel);

/* out = <sys root>/<rel>. Returns out. */
char *fs_sys_path(char *out, size_t cap, const struct fs_paths *p, const char *rel);

/* Map an absolute path as the kernel prints it (a mount point from
 * mountinfo, say "/sys/fs/cgroup/cpu") into the root prefixes: "/sys/..."
 * goes under the sys root, "/proc/..." under the proc root, anything else
 * is returned as is. Returns out. */
char *fs_host_path(char *out, size_t cap, const struct fs_paths *p, const char *abs);

#endif
