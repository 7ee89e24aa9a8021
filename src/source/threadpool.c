/* threadpool.c - CPU lists, thread pools by name, and pool libraries by
 * mapping (threadpool.h). */
#include "source/threadpool.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CPU_MAX (1 << 20)

static bool scan_num(const char **p, long *out)
{
	const char *s = *p;
	long v = 0;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v > CPU_MAX)
			return false;
	}
	*out = v;
	*p = s;
	return true;
}

int fs_cpulist_count(const char *text)
{
	if (!text)
		return -1;
	const char *p = text;
	long n = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n' || !*p)
		return -1;
	for (;;) {
		long a, b;
		if (!scan_num(&p, &a))
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (!scan_num(&p, &b) || b < a)
				return -1;
		}
		n += b - a + 1;
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		return (*p == '\n' || !*p) ? (int)n : -1;
	}
}

int fs_status_cpus_allowed(const char *text)
{
	static const char key[] = "Cpus_allowed_list:";
	for (const char *line = text; line && *line;) {
		if (!strncmp(line, key, sizeof key - 1))
			return fs_cpulist_count(line + sizeof key - 1);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

static const char *const pool_names[FS_TPOOL__N] = {
	[FS_TPOOL_MAIN] = "main",       [FS_TPOOL_OPENMP] = "openmp", [FS_TPOOL_MKL] = "mkl",
	[FS_TPOOL_TORCH] = "torch",     [FS_TPOOL_UNNAMED] = "unnamed", [FS_TPOOL_OTHER] = "other",
};

const char *fs_tpool_name(enum fs_tpool p)
{
	return p < FS_TPOOL__N ? pool_names[p] : "other";
}

/* Whether a and b are the same name, each up to its newline. */
static bool same_name(const char *a, const char *b)
{
	size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
	return na == nb && !strncmp(a, b, na);
}

enum fs_tpool fs_tpool_of(const char *comm, const char *main_comm, bool is_main)
{
	static const struct {
		const char *prefix;
		enum fs_tpool pool;
	} by_name[] = {
		{"omp_", FS_TPOOL_OPENMP}, {"OMP", FS_TPOOL_OPENMP}, {"gomp", FS_TPOOL_OPENMP},
		{"mkl", FS_TPOOL_MKL},     {"MKL", FS_TPOOL_MKL},    {"pt_", FS_TPOOL_TORCH},
	};
	if (is_main)
		return FS_TPOOL_MAIN;
	for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
		if (!strncmp(comm, by_name[i].prefix, strlen(by_name[i].prefix)))
			return by_name[i].pool;
	if (main_comm && same_name(comm, main_comm))
		return FS_TPOOL_UNNAMED;
	return FS_TPOOL_OTHER;
}

/* Whether some mapped path has a component that is lib followed by '.',
 * '-' or '/' (a soname, a wheel's hashed copy: libgomp-a34b3233.so.1, a
 * package's directory: cv2/), or, for a lib
 * ending in '_' (a family: libmkl_), by anything. */
static bool maps_has(const char *text, const char *lib)
{
	size_t n = strlen(lib);
	for (const char *p = strstr(text, lib); p; p = strstr(p + 1, lib)) {
		if (p == text || p[-1] != '/')
			continue;
		if (lib[n - 1] == '_' || p[n] == '.' || p[n] == '-' || p[n] == '/')
			return true;
	}
	return false;
}

char *fs_pool_libs(const char *text, char *out, size_t cap)
{
	static const struct {
		const char *word, *lib[2];
	} libs[] = {
		{"gomp", {"libgomp", NULL}},        {"iomp", {"libiomp5", "libomp"}},
		{"mkl", {"libmkl_", NULL}},          {"openblas", {"libopenblas", NULL}},
		{"opencv", {"cv2", NULL}}, {"tbb", {"libtbb", NULL}},
		{"torch", {"libtorch_cpu", NULL}},
	};
	size_t n = 0;
	if (cap)
		out[0] = 0;
	for (size_t i = 0; text && i < sizeof libs / sizeof libs[0]; i++) {
		bool hit = false;
		for (int k = 0; k < 2 && libs[i].lib[k] && !hit; k++)
			hit = maps_has(text, libs[i].lib[k]);
		if (hit && n < cap)
			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? "," : "", libs[i].word);
	}
	return out;
}
