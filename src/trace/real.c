/* real.c - the real functions behind every wrapper, resolved once.
 *
 * dlsym(RTLD_NEXT, name) finds the next definition after this library: the
 * C library's (or another interposer's, or a sanitizer's). Resolution is
 * eager, from the constructor: a lazy dlsym inside a wrapper can deadlock
 * under allocators that do I/O while dlsym holds the loader's lock. A
 * wrapper resolves only if it runs before the constructor (another library's
 * constructor doing I/O), and the tracer is still off then.
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "trace/trace.h"

struct fs_real fs_real;

static int resolving;

/* The pre-2.33 stat ABI (__xstat...) may exist only as a compat symbol,
 * which plain dlsym does not return. */
FS_NOSAN static void *lookup(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
#if defined(__x86_64__)
	if (!p && name[0] == '_' && name[1] == '_' && strstr(name, "stat"))
		p = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5");
#endif
	return p;
}

FS_NOSAN void fs_real_resolve(void)
{
	/* a wrapper called from inside dlsym (a custom allocator doing I/O
	 * before our constructor): nothing can be resolved safely here */
	if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQUIRE))
		return;
#define FS_REAL_RESOLVE(name) \
	if (!fs_real.name) \
		__atomic_store_n(&fs_real.name, (__typeof__(fs_real.name))lookup(#name), __ATOMIC_RELAXED);
	FS_REAL_LIST(FS_REAL_RESOLVE)
#undef FS_REAL_RESOLVE
	__atomic_store_n(&resolving, 0, __ATOMIC_RELEASE);
}
