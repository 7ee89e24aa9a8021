/* threadpool.h - what the `threads` source makes of a process's threads
 * and of the cores it may use (issue 39: threads fighting for the cores).
 * Pure parsers, unit-tested against fixture text:
 * - a CPU list ("0-3,8,10-11": cpuset.effective_cpus, Cpus_allowed_list)
 *   and the count of CPUs it names;
 * - a thread's pool, from its name (task/TID/comm): OpenMP's "omp_*" /
 *   "OMP*", MKL's, torch's "pt_*"; a thread named as its process (the name
 *   it inherited: libgomp's, OpenBLAS's and OpenCV's pools do not name
 *   theirs) is "unnamed";
 * - the thread-pool libraries a process has mapped (/proc/PID/maps):
 *   libgomp, libiomp5 / libomp, MKL, OpenBLAS, OpenCV's Python module (cv2:
 *   torch itself maps libopencv_core), TBB, torch. */
#ifndef FS_SOURCE_THREADPOOL_H
#define FS_SOURCE_THREADPOOL_H

#include <stdbool.h>
#include <stddef.h>

/* The CPUs a list names ("0-3,8"; spaces and a trailing newline allowed),
 * or -1 when it is empty or malformed (a range that runs backwards, a
 * letter, a number past 1 << 20). */
int fs_cpulist_count(const char *text);

/* The count of Cpus_allowed_list in /proc/PID/status text (the main
 * thread's affinity, sched_getaffinity's), or -1 when absent or malformed. */
int fs_status_cpus_allowed(const char *status_text);

enum fs_tpool {
	FS_TPOOL_MAIN,    /* the process's main thread (tid == pid) */
	FS_TPOOL_OPENMP,  /* "omp_*", "OMP*", "gomp*" */
	FS_TPOOL_MKL,     /* "mkl*", "MKL*" */
	FS_TPOOL_TORCH,   /* "pt_*" (torch's named threads) */
	FS_TPOOL_UNNAMED, /* named as its process: a pool that does not name its threads, a Python thread */
	FS_TPOOL_OTHER,   /* any other name */
	FS_TPOOL__N
};

/* The pool's name in the run file ("main", "openmp", ...). */
const char *fs_tpool_name(enum fs_tpool p);

/* The pool of a thread named comm (its trailing newline ignored) in a
 * process whose main thread is named main_comm; is_main: tid == pid. */
enum fs_tpool fs_tpool_of(const char *comm, const char *main_comm, bool is_main);

/* The thread-pool libraries maps_text maps, as comma-separated words in
 * their order here ("gomp,torch"; "" when none): gomp (libgomp), iomp
 * (libiomp5, LLVM's libomp), mkl (libmkl_*), openblas, opencv (the cv2
 * module), tbb (libtbb), torch (libtorch_cpu). Returns out. */
char *fs_pool_libs(const char *maps_text, char *out, size_t cap);

#endif
