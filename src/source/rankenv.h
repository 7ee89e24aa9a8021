/* rankenv.h - which rank of a distributed job a process is, from its
 * environment block (/proc/PID/environ), keeping nothing else.
 *
 * An environment holds secrets (tokens, passwords). The parser looks only for
 * the variables listed in rankenv.c and keeps only their values, as numbers:
 * no other name, and no value text, ever leaves it. */
#ifndef FS_SOURCE_RANKENV_H
#define FS_SOURCE_RANKENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of an environment read at most; a longer one is read up to here. */
#define FS_RANKENV_CAP 65536

/* The four numbers; their variables are listed, in order of precedence, in
 * rankenv.c (and docs/schema.md, table ranks). */
enum fs_rankenv_key {
	FS_RANKENV_RANK,       /* RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, ... */
	FS_RANKENV_LOCAL_RANK, /* LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, ... */
	FS_RANKENV_WORLD_SIZE, /* WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, ... */
	FS_RANKENV_NODE_RANK,  /* GROUP_RANK, NODE_RANK, SLURM_NODEID */
	FS_RANKENV__N
};

struct fs_rankenv {
	bool have[FS_RANKENV__N];
	int32_t value[FS_RANKENV__N];   /* 0 .. 2^31-1 where have[] */
	const char *var[FS_RANKENV__N]; /* static: the variable value[] came from; NULL: none */
};

/* Parse an environment block of len bytes: NAME=VALUE entries, each ended by
 * a NUL byte, the last one possibly not. For each key, the first variable of
 * its list (in the order above) whose value is a plain non-negative decimal
 * integer below 2^31 gives it; a variable set twice counts by its first
 * occurrence, as getenv() does; a name only matches whole (RANKING is not
 * RANK). `cut`: the block was cut short at a cap, so an unterminated last
 * entry may be a prefix of the real one ("RANK=12" of "RANK=123") and is
 * ignored. Fills *out (zeroed first); keeps no pointer into buf. Returns true
 * when any key was found. */
bool fs_rankenv_parse(const char *buf, size_t len, bool cut, struct fs_rankenv *out);

/* True when a and b found the same keys with the same values and variables. */
bool fs_rankenv_equal(const struct fs_rankenv *a, const struct fs_rankenv *b);

#endif
