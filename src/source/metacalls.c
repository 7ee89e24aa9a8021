/* metacalls - the metadata system calls of this architecture (metacalls.h). */
#include "source/metacalls.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

/* The calls the I/O tracer counts in its `meta` class (open, close, stat,
 * seek, readdir) and their relatives that resolve a path, read an inode or
 * a directory, or change one: each can block on a lookup or on an inode or
 * directory block, never on a file's data. mmap is left out: a thread blocks
 * in it on the address space, not on the file system. Each name is taken
 * only where the architecture has it (x86_64 has open and stat, the generic
 * table of arm64 only their *at forms). */
static const long calls[] = {
#define C(name) SYS_##name,
#ifdef SYS_open
	C(open)
#endif
#ifdef SYS_creat
	C(creat)
#endif
#ifdef SYS_openat2
	C(openat2)
#endif
#ifdef SYS_open_by_handle_at
	C(open_by_handle_at)
#endif
#ifdef SYS_name_to_handle_at
	C(name_to_handle_at)
#endif
#ifdef SYS_close_range
	C(close_range)
#endif
#ifdef SYS_stat
	C(stat)
#endif
#ifdef SYS_lstat
	C(lstat)
#endif
#ifdef SYS_newfstatat
	C(newfstatat)
#endif
#ifdef SYS_statx
	C(statx)
#endif
#ifdef SYS_access
	C(access)
#endif
#ifdef SYS_faccessat2
	C(faccessat2)
#endif
#ifdef SYS_readlink
	C(readlink)
#endif
#ifdef SYS_getdents
	C(getdents)
#endif
#ifdef SYS_unlink
	C(unlink)
#endif
#ifdef SYS_rename
	C(rename)
#endif
#ifdef SYS_renameat
	C(renameat)
#endif
#ifdef SYS_renameat2
	C(renameat2)
#endif
#ifdef SYS_mkdir
	C(mkdir)
#endif
#ifdef SYS_rmdir
	C(rmdir)
#endif
#ifdef SYS_link
	C(link)
#endif
#ifdef SYS_symlink
	C(symlink)
#endif
#ifdef SYS_mknod
	C(mknod)
#endif
#ifdef SYS_chmod
	C(chmod)
#endif
#ifdef SYS_chown
	C(chown)
#endif
#ifdef SYS_lchown
	C(lchown)
#endif
#ifdef SYS_utime
	C(utime)
#endif
#ifdef SYS_utimes
	C(utimes)
#endif
#ifdef SYS_futimesat
	C(futimesat)
#endif
	/* every architecture has these */
	C(openat) C(close) C(fstat) C(fstatfs) C(statfs) C(faccessat) C(readlinkat) C(getdents64)
	C(lseek) C(chdir) C(fchdir) C(getcwd) C(unlinkat) C(mkdirat) C(linkat) C(symlinkat)
	C(mknodat) C(fchmod) C(fchmodat) C(fchown) C(fchownat) C(utimensat)
	C(getxattr) C(lgetxattr) C(fgetxattr) C(listxattr) C(llistxattr) C(flistxattr)
#undef C
};

bool fs_metacall_is(long nr)
{
	if (nr < 0)
		return false;
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (calls[i] == nr)
			return true;
	return false;
}

size_t fs_metacall_list(const long **out)
{
	*out = calls;
	return sizeof calls / sizeof calls[0];
}

bool fs_metacall_parse(const char *text, long *nr)
{
	if (strncmp(text, "running", 7) == 0) {
		*nr = -1;
		return true;
	}
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	*nr = v;
	return true;
}
