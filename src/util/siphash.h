/* siphash.h - SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012): a keyed 64-bit hash. Without the 128-bit key its
 * output cannot be computed, so a hash of a guessed input confirms nothing. */
#ifndef FS_SIPHASH_H
#define FS_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define FS_SIPHASH_KEY_BYTES 16

/* SipHash-2-4 of msg[len] under key (k0 = key[0..7], k1 = key[8..15], both
 * little-endian, as in the paper). Never fails; msg may be NULL if len is 0. */
uint64_t fs_siphash24(const uint8_t key[FS_SIPHASH_KEY_BYTES], const void *msg, size_t len);

#endif
