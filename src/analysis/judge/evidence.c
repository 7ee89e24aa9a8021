/* evidence.c - an evidence item appended to a finding's list. */
#include "analysis/judge/evidence.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void fs_evidence_add(struct fs_evidence *list, int *n, const char *metric, double value,
		     const char *unit, const char *source, const char *fmt, ...)
{
	if (*n >= FS_MAX_EVIDENCE || !isfinite(value))
		return;
	struct fs_evidence *e = &list[(*n)++];
	snprintf(e->metric, sizeof e->metric, "%s", metric);
	e->value = value;
	snprintf(e->unit, sizeof e->unit, "%s", unit);
	snprintf(e->source, sizeof e->source, "%s", source);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
}
