/* wrap_proc.c - processes: _Fork, vfork, and io_uring (as a blind spot).
 *
 * fork() needs no wrapper: glibc runs the pthread_atfork child handler
 * (trace.c). _Fork() (glibc >= 2.34) runs no handlers, so it is wrapped.
 * exec, exit, _exit and _Exit are not intercepted: there is nothing to
 * flush (the counters are in shared memory already) and an exec'd image
 * starts its own region from its constructor.
 *
 * vfork: the child runs on the parent's memory (stack, TLS, our fd table
 * and the parent's region) until it execs or _exits, and what it does there
 * (Python's subprocess: close_range, dup2...) must not touch any of them.
 * The wrapper is a few instructions of assembly that make the same system
 * call as glibc's vfork, then mark the child's thread FS_OFF_VFORK (every
 * wrapper passes through) and clear the mark when the parent resumes. It
 * keeps no stack frame across the call, as vfork requires. Other
 * architectures: vfork is not wrapped (a vfork child's close/dup2 would
 * update the parent's fd table; docs/tracer.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/syscall.h>

#include "trace/trace.h"

FS_EXPORT pid_t _Fork(void)
{
	pid_t pid = FS_REAL(_Fork)();
	if (pid == 0) {
		int saved = errno;
		fs_after_fork_child();
		errno = saved;
	}
	return pid;
}

#if defined(__x86_64__)
__attribute__((used)) long fs_vfork_failed(int err);
__attribute__((used)) long fs_vfork_failed(int err)
{
	errno = err;
	return -1;
}

/* the child returns with FS_OFF_VFORK set in its (the parent thread's) TLS;
 * the parent clears it when the kernel lets it run again */
__asm__(".text\n"
	".globl vfork\n"
	".type vfork, @function\n"
	"vfork:\n"
	"	endbr64\n"
	"	popq %rdi\n" /* the return address: no stack use across the call */
	"	movl $" FS_STR(SYS_vfork) ", %eax\n"
	"	syscall\n"
	"	pushq %rdi\n"
	"	cmpq $-4095, %rax\n"
	"	jae 2f\n"
	"	movq fs_tls_off@GOTTPOFF(%rip), %rcx\n"
	"	testq %rax, %rax\n"
	"	jnz 1f\n"
	"	orl $0x10000, %fs:(%rcx)\n" /* FS_OFF_VFORK, in the child */
	"	ret\n"
	"1:	andl $0xfffeffff, %fs:(%rcx)\n" /* the parent, resumed */
	"	ret\n"
	"2:	negl %eax\n"
	"	movl %eax, %edi\n"
	"	subq $8, %rsp\n"
	"	call fs_vfork_failed\n"
	"	addq $8, %rsp\n"
	"	ret\n"
	".size vfork, .-vfork\n");
_Static_assert(FS_OFF_VFORK == 0x10000u, "the vfork wrapper sets this bit");
#endif

/* io_uring: its I/O goes through shared rings, not system calls this
 * library can see. liburing's setup is interposed only to record the
 * blind spot. glibc has no io_uring_setup wrapper, and liburing (x86-64,
 * aarch64) makes the system call itself, so a ring set up without liburing,
 * or with a static liburing, goes unnoticed. liburing may be loaded after
 * start-up (dlopen), so its symbols are looked up on first use if the
 * constructor did not find them. */
static void *uring_real(void **slot, const char *name)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
	if (!p) {
		p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	if (fs_on())
		__atomic_fetch_or(&fs.region->blind, (uint64_t)FS_TRACE_BLIND_IO_URING, __ATOMIC_RELAXED);
	if (!p)
		errno = ENOSYS;
	return p;
}

static void *r_setup, *r_init, *r_init_params, *r_init_mem;

FS_EXPORT int io_uring_setup(unsigned entries, void *params);
FS_EXPORT int io_uring_setup(unsigned entries, void *params)
{
	int (*f)(unsigned, void *) = (int (*)(unsigned, void *))uring_real(&r_setup, "io_uring_setup");
	return f ? f(entries, params) : -ENOSYS;
}

FS_EXPORT int io_uring_queue_init(unsigned entries, void *ring, unsigned flags);
FS_EXPORT int io_uring_queue_init(unsigned entries, void *ring, unsigned flags)
{
	int (*f)(unsigned, void *, unsigned) =
		(int (*)(unsigned, void *, unsigned))uring_real(&r_init, "io_uring_queue_init");
	return f ? f(entries, ring, flags) : -ENOSYS;
}

FS_EXPORT int io_uring_queue_init_params(unsigned entries, void *ring, void *params);
FS_EXPORT int io_uring_queue_init_params(unsigned entries, void *ring, void *params)
{
	int (*f)(unsigned, void *, void *) =
		(int (*)(unsigned, void *, void *))uring_real(&r_init_params, "io_uring_queue_init_params");
	return f ? f(entries, ring, params) : -ENOSYS;
}

FS_EXPORT int io_uring_queue_init_mem(unsigned entries, void *ring, void *params, void *buf,
				      size_t size);
FS_EXPORT int io_uring_queue_init_mem(unsigned entries, void *ring, void *params, void *buf,
				      size_t size)
{
	int (*f)(unsigned, void *, void *, void *, size_t) = (int (*)(unsigned, void *, void *, void *, size_t))
		uring_real(&r_init_mem, "io_uring_queue_init_mem");
	return f ? f(entries, ring, params, buf, size) : -ENOSYS;
}

void fs_uring_resolve(void)
{
	r_setup = dlsym(RTLD_NEXT, "io_uring_setup");
	r_init = dlsym(RTLD_NEXT, "io_uring_queue_init");
	r_init_params = dlsym(RTLD_NEXT, "io_uring_queue_init_params");
	r_init_mem = dlsym(RTLD_NEXT, "io_uring_queue_init_mem");
}
