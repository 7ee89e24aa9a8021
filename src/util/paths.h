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
#include <sys/types.h>

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

/* feedscope's state directory: $FEEDSCOPE_STATE_DIR if set, else
 * /var/lib/feedscope for root, else $XDG_STATE_HOME/feedscope (an absolute
 * XDG_STATE_HOME only), else $HOME/.local/state/feedscope. The probe
 * database (probes.db) and the runs directory live there. Returns out, or
 * NULL when none can be named (no HOME) or it does not fit in cap. */
char *fs_state_dir(char *out, size_t cap);

/* The runs directory, <state dir>/runs: where `run --to-runs-dir` writes
 * its run file and what `feedscope exporter` without arguments serves.
 * Returns out, or NULL as fs_state_dir. */
char *fs_runs_dir(char *out, size_t cap);

/* mkdir -p dir, each directory made with mode (less the umask). Returns 0
 * (dir exists, or was made), or -1 with errno (ENOTDIR: a part of it is not
 * a directory). */
int fs_make_dirs(const char *dir, mode_t mode);

#endif
