/* openmetrics.h - the Prometheus text exposition format (0.0.4) and
 * OpenMetrics 1.0 text, written into a bounded buffer.
 *
 * A page is families, each a HELP and TYPE line (and UNIT in OpenMetrics)
 * followed by its samples. The caller names a family by its base name
 * ("feedscope_steps", "feedscope_input_wait_seconds") and its type; the
 * samples get the suffix the format wants: counters "_total", info
 * "_info" (an info family is a gauge of 1 in 0.0.4). OpenMetrics ends with
 * "# EOF". Label values are escaped (backslash, double quote, newline) and
 * made valid UTF-8 (a byte that is not: U+FFFD); a label whose value is
 * empty is left out, as Prometheus reads it. */
#ifndef FS_OPENMETRICS_H
#define FS_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>

enum fs_om_type { FS_OM_COUNTER, FS_OM_GAUGE, FS_OM_INFO };

struct fs_om_label {
	const char *name, *value;
};

struct fs_om {
	char *buf;        /* NUL-terminated; the caller takes it (free) */
	size_t len, cap, max;
	bool openmetrics; /* else text 0.0.4 */
	bool truncated;   /* max was reached: the page ends at the last whole line */
	char family[128];
	enum fs_om_type type;
};

/* Start a page of at most max_bytes. */
void fs_om_init(struct fs_om *o, bool openmetrics, size_t max_bytes);

/* A family: its base name (valid by fs_om_name_ok), type, unit (the
 * name's last word, "seconds", "bytes", "ratio"; NULL for none) and help. */
void fs_om_family(struct fs_om *o, const char *name, enum fs_om_type type, const char *unit, const char *help);

/* A sample of the current family: n labels (names valid by
 * fs_om_label_name_ok), its value (NaN, +Inf, -Inf as the format writes
 * them; integers without a decimal point). */
void fs_om_sample(struct fs_om *o, const struct fs_om_label *labels, int n, double value);

/* End the page ("# EOF" in OpenMetrics). Returns the buffer (owned by the
 * caller), or NULL when memory ran out; *len gets its length. */
char *fs_om_finish(struct fs_om *o, size_t *len);

/* The content type for the format. */
const char *fs_om_content_type(bool openmetrics);

/* Metric and label names: [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]*
 * (and not starting with "__", Prometheus's own). */
bool fs_om_name_ok(const char *name);
bool fs_om_label_name_ok(const char *name);

/* Write v escaped for a label value into out[cap] (NUL-terminated; cut
 * before a character or escape that does not fit). Returns out. */
char *fs_om_escape(char *out, size_t cap, const char *v);

#endif
