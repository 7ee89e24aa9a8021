/* pathhash.h - what --hash-paths stores instead of a path: SipHash-2-4
 * (util/siphash.h) under a key of the run, as 16 hex digits.
 *
 * The key is made once per process: from FEEDSCOPE_HASH_KEY (32 hex digits,
 * for hashes that can be compared across runs) or else from getrandom(). It
 * is never written anywhere. A path is hashed as (its full length, its
 * FNV-1a 64, its last FS_TRACE_PATH - 1 bytes): the form in which the tracer
 * hands long paths over (src/trace/region.h), so the hash of a long path
 * still depends on all of it, and a path seen by the tracer and the same
 * path in meta hash alike. */
#ifndef FS_PATHHASH_H
#define FS_PATHHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FS_PATHHASH_ENV "FEEDSCOPE_HASH_KEY"
#define FS_PATHHASH_TEXT 17 /* 16 hex digits and the NUL */

/* Make the key: FEEDSCOPE_HASH_KEY if set (taken at every call), else 16
 * bytes from getrandom() (made once, kept). Returns 0, or -1 with a
 * one-line reason in why[whylen] (a malformed FEEDSCOPE_HASH_KEY: the key
 * is then unchanged; getrandom failing). */
int fs_pathhash_init(char *why, size_t whylen);

/* Use this key (tests). */
void fs_pathhash_set_key(const uint8_t key[16]);

/* The keyed hash of a path given as (full length, FNV-1a 64 of the full
 * path, its last tail_len bytes). Makes a random key first if none was set
 * (never an unkeyed hash). */
uint64_t fs_pathhash_parts(uint64_t len, uint64_t fnv, const char *tail, size_t tail_len);

/* The keyed hash of the whole path s[len] (FNV and tail computed here). */
uint64_t fs_pathhash_str(const char *s, size_t len);

/* h as 16 lower-case hex digits into out[cap] (cap >= FS_PATHHASH_TEXT). */
void fs_pathhash_text(uint64_t h, char *out, size_t cap);

/* Whether a word is taken for a path: it holds a '/'. */
bool fs_pathhash_pathlike(const char *s, size_t len);

/* A copy of text in which every word (run of non-blanks) that holds a '/'
 * is replaced by its hash; a word of the form NAME=VALUE keeps "NAME=" and
 * has VALUE hashed. Returns NULL on out-of-memory; the caller frees it. */
char *fs_pathhash_words(const char *text);

#endif
