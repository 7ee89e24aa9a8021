/* text.h - strings that come from outside (a run file, /proc, a job) made
 * safe to print: UTF-8 decoding, and a visible escape for every character
 * that could act on a terminal.
 *
 * The escape (fs_text_escape), documented in docs/verdicts.md:
 *   - C0 controls (U+0000-U+001F, newline and tab included) and DEL: \xHH;
 *   - C1 controls (U+0080-U+009F), the bidirectional overrides and
 *     isolates (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the
 *     line/paragraph separators (U+2028, U+2029): \uHHHH;
 *   - a backslash: \\ (so an escape in the output is never ambiguous);
 *   - a byte that is not part of valid UTF-8 (overlong forms, surrogates
 *     and code points above U+10FFFF included): U+FFFD, one per byte;
 *   - everything else is copied as it is.
 */
#ifndef FS_TEXT_H
#define FS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decode the UTF-8 character at s (at most n bytes). Returns its length
 * (1-4) and stores the code point in *cp, or 0 if the bytes at s are not
 * valid UTF-8 (or n == 0); *cp is then left alone. */
size_t fs_text_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* True for the code points the escape above shows as \xHH or \uHHHH. */
bool fs_text_is_control(uint32_t cp);

/* Write s escaped as above into out[cap] (NUL-terminated; cap >= 1) and
 * return out. s NULL is written as "". When out is too small the text is
 * cut before the first character or escape that does not fit, so the result
 * is always valid UTF-8 and never ends inside an escape. */
char *fs_text_escape(char *out, size_t cap, const char *s);

/* Print s (already escaped: valid UTF-8) left-aligned in a cell of width
 * characters, a character being a UTF-8 sequence ("µ" and "→" one each);
 * a longer s is printed whole. */
void fs_text_cell(FILE *out, const char *s, int width);

#endif
