/* jobenv.h - what `feedscope run` adds to the job's environment: the marker
 * channel's address, the feedscope Python package on PYTHONPATH, and the
 * zero-code PyTorch hook (a sitecustomize) when the job is Python. */
#ifndef FS_JOBENV_H
#define FS_JOBENV_H

#include <stdbool.h>
#include <stddef.h>

enum fs_hook_mode { FS_HOOK_AUTO, FS_HOOK_ON, FS_HOOK_OFF };

struct fs_jobenv {
	char markers[128];     /* FEEDSCOPE_MARKERS, "" = none */
	char preload[8192];    /* the new LD_PRELOAD, "" = leave it */
	char trace_dir[256];   /* FEEDSCOPE_TRACE_DIR, "" = no tracer */
	bool trace_ops;        /* FEEDSCOPE_TRACE_OPS=1 */
	char pythonpath[8192]; /* the new PYTHONPATH, "" = leave it */
	bool hook;             /* FEEDSCOPE_HOOK=pytorch */
	char stacks[300];      /* FEEDSCOPE_STACKS ("SIGNUM:DIR": the hook's stack dumps at a stall), "" = none */
	char why[256];         /* when the hook is off in auto mode, or the package is missing */
};

/* True if argv[0] names a Python interpreter (python, python3, python3.11,
 * python3-dbg, found on PATH like execvp does) or a script whose #! line
 * runs one (torchrun, accelerate, deepspeed). */
bool fs_jobenv_is_python(const char *argv0);

/* The directory holding the feedscope Python package: FEEDSCOPE_PYTHON_DIR,
 * else <dir of this executable>/../python (build tree), else
 * <dir>/../share/feedscope/python (installed). Returns false if none has
 * feedscope/__init__.py. */
bool fs_jobenv_python_dir(char *out, size_t cap);

/* The I/O tracer library: FEEDSCOPE_TRACE_LIB, else libfeedscope-trace.so
 * next to this executable (build trees), else <dir>/../lib/feedscope/.
 * Returns false if none exists. */
bool fs_jobenv_trace_lib(char *out, size_t cap);

/* Work out the environment for the job (in the parent, before fork).
 * trace_dir: the tracer's region directory, or NULL for no tracer. */
void fs_jobenv_prepare(struct fs_jobenv *e, const char *argv0, enum fs_hook_mode mode,
		       const char *markers_address, const char *trace_dir, bool trace_ops);

/* Apply it (in the child, before exec). */
void fs_jobenv_apply(const struct fs_jobenv *e);

#endif
