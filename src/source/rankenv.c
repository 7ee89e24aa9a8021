/* rankenv - the rank variables of an environment block, and nothing else. */
#include "source/rankenv.h"

#include <string.h>

#define MAX_NAMES 6

/* Each key's variables, in order of precedence (NULL-terminated). */
static const char *const names[FS_RANKENV__N][MAX_NAMES + 1] = {
	[FS_RANKENV_RANK] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
			     "HOROVOD_RANK", NULL},
	[FS_RANKENV_LOCAL_RANK] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
				   "SLURM_LOCALID", "HOROVOD_LOCAL_RANK", NULL},
	[FS_RANKENV_WORLD_SIZE] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
				   "HOROVOD_SIZE", NULL},
	[FS_RANKENV_NODE_RANK] = {"GROUP_RANK", "NODE_RANK", "SLURM_NODEID", NULL},
};

/* What the first occurrence of one variable said. */
struct seen {
	bool seen, valid;
	int32_t value;
};

/* A plain non-negative decimal integer below 2^31: digits only, at least one. */
static bool parse_value(const char *p, const char *end, int32_t *out)
{
	if (p == end)
		return false;
	int64_t v = 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (*p - '0');
		if (v > INT32_MAX)
			return false;
	}
	*out = (int32_t)v;
	return true;
}

/* Record the entry [p, end) if it sets one of the variables (first one wins). */
static void take_entry(const char *p, const char *end, struct seen seen[][MAX_NAMES])
{
	size_t len = (size_t)(end - p);
	for (int k = 0; k < FS_RANKENV__N; k++) {
		for (int i = 0; names[k][i]; i++) {
			const char *n = names[k][i];
			size_t nl = strlen(n);
			if (len <= nl || p[nl] != '=' || memcmp(p, n, nl) != 0)
				continue;
			struct seen *s = &seen[k][i];
			if (!s->seen) {
				s->seen = true;
				s->valid = parse_value(p + nl + 1, end, &s->value);
			}
			return; /* no variable is listed under two keys */
		}
	}
}

bool fs_rankenv_parse(const char *buf, size_t len, bool cut, struct fs_rankenv *out)
{
	memset(out, 0, sizeof *out);
	struct seen seen[FS_RANKENV__N][MAX_NAMES];
	memset(seen, 0, sizeof seen);
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		if (!nul && cut)
			break; /* a partial last entry */
		take_entry(p, nul ? nul : end, seen);
		if (!nul)
			break;
		p = nul + 1;
	}
	bool any = false;
	for (int k = 0; k < FS_RANKENV__N; k++) {
		for (int i = 0; names[k][i]; i++) {
			if (seen[k][i].seen && seen[k][i].valid) {
				out->have[k] = any = true;
				out->value[k] = seen[k][i].value;
				out->var[k] = names[k][i];
				break;
			}
		}
	}
	return any;
}

bool fs_rankenv_equal(const struct fs_rankenv *a, const struct fs_rankenv *b)
{
	for (int k = 0; k < FS_RANKENV__N; k++) {
		if (a->have[k] != b->have[k])
			return false;
		if (a->have[k] && (a->value[k] != b->value[k] || strcmp(a->var[k], b->var[k]) != 0))
			return false;
	}
	return true;
}
