/* stalls.h (render) - the stalls of a run (analysis/load/stalls.h) as text
 * and as the report's JSON `stalls` array (docs/verdicts.md, "Stalls"),
 * and the phrase that says what one process was blocked on, shared with
 * the recorder's line (record/stall.h). Pure: write to out only. */
#ifndef FS_RENDER_STALLS_H
#define FS_RENDER_STALLS_H

#include <stdio.h>

#include "analysis/load/stalls.h"
#include "util/json.h"

/* What a process was doing, for the phrase. Strings may be NULL or "". */
struct fs_stall_what {
	char state;          /* R, S, D, ... */
	const char *syscall; /* "read", "running", "none", NULL: unknown */
	int fd;              /* -1: none */
	const char *kind, *target, *peer, *wchan;
};

/* "S in read on fifo /data/q.fifo", "S in recvfrom on tcp 127.0.0.1:41000
 * -> 127.0.0.1:4242 (ESTABLISHED)", "R running (no system call)", "D in
 * read on file /x (wchan ...)", escaped for a terminal, into out[cap]. */
void fs_stall_phrase(char *out, size_t cap, const struct fs_stall_what *w);

/* The top frames of a faulthandler dump's thread that handled the signal
 * ("Current thread"), else its first: "func (file:line) < caller
 * (file:line)", at most n, into out[cap] (escaped). Returns how many. */
int fs_stall_python_top(const char *dump, int n, char *out, size_t cap);

/* "  stalls: ..." lines; nothing when s has none. */
void fs_stalls_render_text(FILE *out, const struct fs_stalls *s);

/* "stalls": [...] into the open object of j (an empty array when none). */
void fs_stalls_render_json(struct fs_json *j, const struct fs_stalls *s);

#endif
