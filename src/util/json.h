/* json.h - a small streaming JSON writer (objects, arrays, strings with
 * escapes, numbers; NaN and infinities are written as null). The output is
 * always valid JSON and valid UTF-8, whatever bytes a string holds: controls
 * (C0, DEL, C1, bidirectional overrides, U+2028/U+2029) are written as
 * \uXXXX (\n \r \t as such), a byte that is not valid UTF-8 as \ufffd.
 * Nothing is owned: strings are read during the call only. Write errors are
 * left in the FILE (check ferror/fflush after the document). */
#ifndef FS_JSON_H
#define FS_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define FS_JSON_DEPTH 16

struct fs_json {
	FILE *out;
	int depth;
	bool need_comma[FS_JSON_DEPTH];
	char closer[FS_JSON_DEPTH]; /* '}' or ']' for each open level */
};

void fs_json_init(struct fs_json *j, FILE *out);
/* key is NULL inside arrays and at the top level. */
void fs_json_object(struct fs_json *j, const char *key);
void fs_json_array(struct fs_json *j, const char *key);
void fs_json_end(struct fs_json *j);           /* closes the innermost object or array */
void fs_json_string(struct fs_json *j, const char *key, const char *value); /* NULL -> null */
void fs_json_number(struct fs_json *j, const char *key, double value);
void fs_json_int(struct fs_json *j, const char *key, long long value);
void fs_json_bool(struct fs_json *j, const char *key, bool value);

#endif
