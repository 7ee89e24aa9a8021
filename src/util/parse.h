/* parse.h - number scanning for /proc text, counter deltas, and CLI values. */
#ifndef FS_PARSE_H
#define FS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Skip blanks at *p, then read an unsigned decimal. Advances *p past it.
 * Returns false (and leaves *p) when no digit follows the blanks, or when
 * the number does not fit in 64 bits (overflow is rejected, never wrapped). */
bool fs_scan_u64(const char **p, uint64_t *out);

/* Same for a signed decimal ("-1" is a valid sysfs speed): an optional '-'
 * directly followed by digits, INT64_MIN..INT64_MAX; anything outside that
 * range is rejected (false, *p left). */
bool fs_scan_i64(const char **p, int64_t *out);

/* Skip blanks, then the next whitespace-delimited word. */
void fs_skip_word(const char **p);

/* The next blank-delimited word of the line at *p (never crossing '\n'):
 * sets *tok to its start and returns its length (0 at the end of the line),
 * and advances *p past it. */
size_t fs_next_word(const char **p, const char **tok);

/* Find "key" at the start of a line in text and read the unsigned number after
 * it (blanks and an optional ':' or '=' skipped). Returns false if absent. */
bool fs_find_u64(const char *text, const char *key, uint64_t *out);

/* The increase of a monotonically growing kernel counter from prev to curr.
 * A counter that went backwards gives 0 (device re-inserted, counter reset),
 * except a 32-bit counter that wrapped past 2^32, which gives the true
 * increase. */
uint64_t fs_counter_delta(uint64_t prev, uint64_t curr);

/* CLI: a positive number of seconds, with an optional unit (ms, s, m, h).
 * Rejects 0, negatives, NaN, trailing junk. Returns false on error. */
bool fs_parse_seconds(const char *s, double *out);

/* CLI: a strictly positive integer that fits in an int. */
bool fs_parse_pos_int(const char *s, int *out);

/* One pass over "key: value" / "key value" lines (/proc/meminfo, /proc/vmstat):
 * for each of the n keys found, store its number in vals[i] and set found[i].
 * Returns how many keys were found. */
int fs_scan_keyed(const char *text, const char *const *keys, int n, uint64_t *vals, bool *found);

#endif
