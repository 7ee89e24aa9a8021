/* nvml - load libnvidia-ml.so.1 at run time and resolve the calls the gpu
 * source uses, newest symbol version first. See nvml.h. */
#include "source/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The binding must match NVIDIA's C ABI on LP64 (x86-64, aarch64). */
_Static_assert(sizeof(struct fs_nvml_memory) == 24, "nvmlMemory_t layout");
_Static_assert(sizeof(struct fs_nvml_memory_v2) == 40, "nvmlMemory_v2_t layout");
_Static_assert(offsetof(struct fs_nvml_memory_v2, total) == 8, "nvmlMemory_v2_t layout");
_Static_assert(FS_NVML_MEMORY_V2_VERSION == 0x02000028u, "nvmlMemory_v2 version");
_Static_assert(sizeof(struct fs_nvml_proc_sample) == 32, "nvmlProcessUtilizationSample_t");
_Static_assert(offsetof(struct fs_nvml_proc_sample, timestamp_us) == 8,
	       "nvmlProcessUtilizationSample_t layout");
_Static_assert(sizeof(fs_nvml_ret) == sizeof(unsigned int), "nvmlReturn_t size");

/* The first of names[] the library exports (NULL-terminated list, newest
 * first); *used gets its name. NULL if none. */
static void *resolve(void *lib, const char *const *names, const char **used)
{
	for (; *names; names++) {
		void *p = dlsym(lib, *names);
		if (p) {
			if (used)
				*used = *names;
			return p;
		}
	}
	return NULL;
}

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* n->field = the first of the names the library exports, cast to the
 * field's own type (no stores through void **). Evaluates to the pointer. */
#define RESOLVE(field, ...) \
	(n->field = (__typeof__(n->field))resolve(n->lib, NAMES(__VA_ARGS__), &used))

/* Fill the required pointers. Returns NULL, or the name of the first one missing. */
static const char *resolve_required(struct fs_nvml *n)
{
	const char *used = NULL;
	if (!RESOLVE(init, "nvmlInit_v2", "nvmlInit"))
		return "nvmlInit";
	n->init_sym = used;
	if (!RESOLVE(shutdown, "nvmlShutdown"))
		return "nvmlShutdown";
	if (!RESOLVE(get_count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"))
		return "nvmlDeviceGetCount";
	if (!RESOLVE(get_handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"))
		return "nvmlDeviceGetHandleByIndex";
	if (!RESOLVE(get_name, "nvmlDeviceGetName"))
		return "nvmlDeviceGetName";
	if (!RESOLVE(get_utilization, "nvmlDeviceGetUtilizationRates"))
		return "nvmlDeviceGetUtilizationRates";
	return NULL;
}

static void note_missing(struct fs_nvml *n, const char *name)
{
	size_t len = strlen(n->missing);
	snprintf(n->missing + len, sizeof n->missing - len, "%s%s", len ? "," : "", name);
}

#define OPTIONAL(field, name)                   \
	do {                                    \
		if (!RESOLVE(field, name))      \
			note_missing(n, name);  \
	} while (0)

/* Fill the optional pointers; absent ones stay NULL and are listed in missing. */
static void resolve_optional(struct fs_nvml *n)
{
	const char *used = NULL;
	RESOLVE(get_memory_v2, "nvmlDeviceGetMemoryInfo_v2");
	RESOLVE(get_memory, "nvmlDeviceGetMemoryInfo");
	if (!n->get_memory_v2 && !n->get_memory)
		note_missing(n, "nvmlDeviceGetMemoryInfo");
	OPTIONAL(get_pcie_throughput, "nvmlDeviceGetPcieThroughput");
	OPTIONAL(get_clock, "nvmlDeviceGetClockInfo");
	OPTIONAL(get_power, "nvmlDeviceGetPowerUsage");
	OPTIONAL(get_temperature, "nvmlDeviceGetTemperature");
	OPTIONAL(get_process_utilization, "nvmlDeviceGetProcessUtilization");
	OPTIONAL(error_string, "nvmlErrorString");
	(void)used;
}

int fs_nvml_load(struct fs_nvml *n, char *why, size_t whylen)
{
	memset(n, 0, sizeof *n);
	const char *name = getenv("FEEDSCOPE_NVML_LIB");
	if (!name || !*name)
		name = FS_NVML_SONAME;
	dlerror();
	n->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *e = dlerror();
		snprintf(why, whylen, "no NVIDIA driver: %s", e ? e : name);
		return -1;
	}
	const char *lack = resolve_required(n);
	if (lack) {
		snprintf(why, whylen, "%s lacks %s (driver too old?)", name, lack);
		fs_nvml_unload(n);
		return -1;
	}
	resolve_optional(n);
	Dl_info info;
	if (dladdr((void *)n->init, &info) && info.dli_fname && *info.dli_fname)
		snprintf(n->path, sizeof n->path, "%s", info.dli_fname);
	else
		snprintf(n->path, sizeof n->path, "%s", name);
	return 0;
}

void fs_nvml_unload(struct fs_nvml *n)
{
	if (n->lib)
		dlclose(n->lib);
	memset(n, 0, sizeof *n);
}

const char *fs_nvml_strerror(const struct fs_nvml *n, fs_nvml_ret r, char *buf, size_t cap)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;
	if (s && *s)
		return s;
	snprintf(buf, cap, "NVML error %u", (unsigned)r);
	return buf;
}

fs_nvml_ret fs_nvml_memory(struct fs_nvml *n, fs_nvml_device dev, uint64_t *total_bytes,
			   uint64_t *used_bytes)
{
	if (n->get_memory_v2) {
		struct fs_nvml_memory_v2 m = {.version = FS_NVML_MEMORY_V2_VERSION};
		fs_nvml_ret r = n->get_memory_v2(dev, &m);
		if (r == FS_NVML_SUCCESS) {
			*total_bytes = m.total;
			*used_bytes = m.used;
			return r;
		}
		/* An old driver exporting the symbol but not this struct version. */
		if ((r != FS_NVML_ERROR_ARGUMENT_VERSION_MISMATCH &&
		     r != FS_NVML_ERROR_FUNCTION_NOT_FOUND) ||
		    !n->get_memory)
			return r;
		n->get_memory_v2 = NULL;
	}
	if (!n->get_memory)
		return FS_NVML_ERROR_FUNCTION_NOT_FOUND;
	struct fs_nvml_memory m;
	fs_nvml_ret r = n->get_memory(dev, &m);
	if (r == FS_NVML_SUCCESS) {
		*total_bytes = m.total;
		*used_bytes = m.used;
	}
	return r;
}

double fs_nvml_kbps_to_bytes_per_s(unsigned int kb_per_s)
{
	return (double)kb_per_s * 1024.0;
}

double fs_nvml_mw_to_w(unsigned int mw)
{
	return (double)mw / 1000.0;
}

unsigned int fs_nvml_proc_latest(struct fs_nvml_proc_sample *s, unsigned int n,
				 unsigned long long *last_seen_us)
{
	unsigned int out = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (s[i].timestamp_us > *last_seen_us)
			*last_seen_us = s[i].timestamp_us;
		unsigned int j = 0;
		while (j < out && s[j].pid != s[i].pid)
			j++;
		if (j == out)
			s[out++] = s[i];
		else if (s[i].timestamp_us >= s[j].timestamp_us)
			s[j] = s[i];
	}
	return out;
}
