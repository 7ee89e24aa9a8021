/* traceread.h - reading one tracer region (src/trace/region.h) without
 * mapping it. Every read is a pread into a private copy, so a region that
 * the job truncates, rewrites or replaces under the recorder can give wrong
 * numbers at worst (checked where it can be: magic, version, pid, counters
 * that never go back), never a fault: a load from a mapping of a truncated
 * file is a SIGBUS, a pread past its end is a short read.
 */
#ifndef FS_TRACEREAD_H
#define FS_TRACEREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/region.h"

/* Scratch shared by all the regions one recorder reads (one region is read
 * at a time). Zero it to start; fs_trace_reader_free releases it. */
struct fs_trace_reader {
	struct fs_trace_file *files;   /* FS_TRACE_FILES records, allocated on first use */
	uint64_t named[FS_TRACE_FILES / 64]; /* ops: records whose name is in files[] */
	struct fs_trace_op *ops_a, *ops_b; /* FS_TRACE_OPS each, allocated on first use */
	struct fs_trace_peer *peers;   /* FS_TRACE_PEERS entries, allocated on first use */
};

void fs_trace_reader_free(struct fs_trace_reader *rd);

/* Read the header of the region open at fd into *h. Returns 0; -1 if the
 * file is too short for a header (or, with whole, for the region it says
 * it is: fs_trace_region_size), or the magic or version is not this
 * build's. */
int fs_trace_read_head(int fd, struct fs_trace_head *h, bool whole);

/* Copy the records h->used marks into rd->files (paths NUL-terminated
 * whatever the file holds). Returns how many were read, or -1 (no memory,
 * or the file shrank). Records not marked are left as they were: read only
 * the marked ones (fs_trace_used). */
int fs_trace_read_files(struct fs_trace_reader *rd, int fd, const struct fs_trace_head *h);

/* Whether record i is marked in h->used. */
static inline bool fs_trace_used(const struct fs_trace_head *h, int i)
{
	return (h->used[i / 64] >> (i % 64)) & 1;
}

/* Copy the region's peers table into rd->peers (entries never claimed read
 * as zeros: FREE). Returns 0, or -1 (no memory, or the file shrank). */
int fs_trace_read_peers(struct fs_trace_reader *rd, int fd);

/* The op ring's complete entries from *pos up to h->ops_head, copied in
 * position order into *out (rd's scratch, valid until the next call).
 * Entries the writers lapped count in *lost. An entry not yet complete
 * stops the copy there (next tick), unless `final` (the process is gone):
 * then it is lost. *pos moves past what was returned or lost. Returns the
 * number of entries, or -1 (no memory, or the file shrank). */
int fs_trace_read_ops(struct fs_trace_reader *rd, int fd, const struct fs_trace_head *h, uint64_t *pos,
		      bool final, uint64_t *lost, const struct fs_trace_op **out);

/* Record i's name (state, path_len, path_hash, path; counters not read),
 * from rd's cache or the file: NULL if i is not a READY record. The cache
 * belongs to one region: fs_trace_names_forget when moving to another. */
const struct fs_trace_file *fs_trace_read_name(struct fs_trace_reader *rd, int fd, int i);
void fs_trace_names_forget(struct fs_trace_reader *rd);

#endif
