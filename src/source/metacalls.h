/* metacalls.h - which system calls are file-system metadata calls (open,
 * stat, readdir, close, ...): a thread blocked in D inside one is waiting
 * on a lookup, an inode or a directory block, not on file data. Both paths
 * of the job source use this one table: the BPF program through a map the
 * job source fills from it (jobbpf.c), the /proc path on the number in
 * /proc/PID/task/TID/syscall (jobproc.c). Numbers are this build's
 * architecture's (<sys/syscall.h>). */
#ifndef FS_SOURCE_METACALLS_H
#define FS_SOURCE_METACALLS_H

#include <stdbool.h>
#include <stddef.h>

/* System call numbers below this fit the BPF program's table. */
#define FS_METACALL_MAX 1024

/* Whether system call nr is a metadata call. False for a negative number
 * (a thread blocked outside any call: a page fault) and for one not known. */
bool fs_metacall_is(long nr);

/* The metadata calls' numbers: *out points to a static array (never freed);
 * returns its length. */
size_t fs_metacall_list(const long **out);

/* The number of the system call a /proc/PID/task/TID/syscall text names:
 * its first field ("-1" outside a call, "running" while on a CPU, which is
 * -1 here too). False when the text is not one of those. */
bool fs_metacall_parse(const char *text, long *nr);

#endif
