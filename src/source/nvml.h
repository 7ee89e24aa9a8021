/* nvml.h - our own minimal binding to NVIDIA's management library.
 *
 * No nvml.h is needed at build time: libnvidia-ml.so.1 is opened with dlopen
 * at run time (as nvtop does), so a machine without a GPU or driver builds
 * and runs fine. Only the few types, enum values and calls the gpu source
 * uses are declared here, written from NVIDIA's NVML API reference; the
 * layouts must match the C ABI of the real library (checked by the static
 * asserts in nvml.c).
 *
 * Symbols are resolved with versioned fallbacks (nvmlInit_v2 -> nvmlInit,
 * ...). Required calls missing make loading fail; an optional call missing
 * leaves its pointer NULL and only its metric is lost.
 */
#ifndef FS_NVML_H
#define FS_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FS_NVML_SONAME "libnvidia-ml.so.1"

/* nvmlReturn_t: the values of NVIDIA's enum (an unsigned int in the ABI). */
enum fs_nvml_return {
	FS_NVML_SUCCESS = 0,
	FS_NVML_ERROR_UNINITIALIZED = 1,
	FS_NVML_ERROR_INVALID_ARGUMENT = 2,
	FS_NVML_ERROR_NOT_SUPPORTED = 3,
	FS_NVML_ERROR_NO_PERMISSION = 4,
	FS_NVML_ERROR_NOT_FOUND = 6,
	FS_NVML_ERROR_INSUFFICIENT_SIZE = 7,
	FS_NVML_ERROR_DRIVER_NOT_LOADED = 9,
	FS_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	FS_NVML_ERROR_GPU_IS_LOST = 15,
	FS_NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	FS_NVML_ERROR_UNKNOWN = 999,
};

/* nvmlPcieUtilCounter_t */
enum fs_nvml_pcie_counter { FS_NVML_PCIE_UTIL_TX_BYTES = 0, FS_NVML_PCIE_UTIL_RX_BYTES = 1 };
/* nvmlClockType_t (only the one we ask for) */
enum fs_nvml_clock { FS_NVML_CLOCK_SM = 1 };
/* nvmlTemperatureSensors_t */
enum fs_nvml_temp_sensor { FS_NVML_TEMPERATURE_GPU = 0 };

/* nvmlDevice_t: an opaque handle owned by the library. */
typedef struct fs_nvml_device_st *fs_nvml_device;

/* nvmlUtilization_t: percent of the driver's last sample period (1/6 s to
 * 1 s, product dependent) in which a kernel ran / device memory was busy. */
struct fs_nvml_utilization {
	unsigned int gpu;
	unsigned int memory;
};

/* nvmlMemory_t (v1): bytes; `used` includes memory the driver reserves. */
struct fs_nvml_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

/* nvmlMemory_v2_t: bytes; `used` excludes `reserved` (what nvidia-smi shows). */
struct fs_nvml_memory_v2 {
	unsigned int version; /* must be FS_NVML_MEMORY_V2_VERSION */
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
};

/* NVML's versioned-struct rule: size in the low bits, version in the top
 * byte. Not plain 2 (nvtop's bug: the driver answers "version mismatch"). */
#define FS_NVML_MEMORY_V2_VERSION \
	((unsigned int)(sizeof(struct fs_nvml_memory_v2) | (2u << 24)))

/* nvmlProcessUtilizationSample_t: one process's utilization, percent. */
struct fs_nvml_proc_sample {
	unsigned int pid;
	unsigned long long timestamp_us; /* CPU (wall-clock) time of the sample, us */
	unsigned int sm_util;
	unsigned int mem_util;
	unsigned int enc_util;
	unsigned int dec_util;
};

/* nvmlDeviceGetName buffer; NVML_DEVICE_NAME_V2_BUFFER_SIZE, enough for every driver. */
#define FS_NVML_NAME_BYTES 96

typedef enum fs_nvml_return fs_nvml_ret;

/* The library and its calls. Required pointers are never NULL after a
 * successful fs_nvml_load; optional ones (marked) may be. */
struct fs_nvml {
	void *lib;
	char path[512];             /* the file loaded (dladdr), or the name asked for */
	const char *init_sym;       /* the symbol used: "nvmlInit_v2" or "nvmlInit" */
	char missing[256];          /* optional symbols absent, comma separated ("" if none) */

	fs_nvml_ret (*init)(void);
	fs_nvml_ret (*shutdown)(void);
	fs_nvml_ret (*get_count)(unsigned int *count);
	fs_nvml_ret (*get_handle)(unsigned int index, fs_nvml_device *dev);
	fs_nvml_ret (*get_name)(fs_nvml_device dev, char *name, unsigned int len);
	fs_nvml_ret (*get_utilization)(fs_nvml_device dev, struct fs_nvml_utilization *u);
	/* optional */
	fs_nvml_ret (*get_memory_v2)(fs_nvml_device dev, struct fs_nvml_memory_v2 *m);
	fs_nvml_ret (*get_memory)(fs_nvml_device dev, struct fs_nvml_memory *m);
	fs_nvml_ret (*get_pcie_throughput)(fs_nvml_device dev, enum fs_nvml_pcie_counter c,
					   unsigned int *kb_per_s);
	fs_nvml_ret (*get_clock)(fs_nvml_device dev, enum fs_nvml_clock c, unsigned int *mhz);
	fs_nvml_ret (*get_power)(fs_nvml_device dev, unsigned int *mw);
	fs_nvml_ret (*get_temperature)(fs_nvml_device dev, enum fs_nvml_temp_sensor s,
				       unsigned int *celsius);
	fs_nvml_ret (*get_process_utilization)(fs_nvml_device dev, struct fs_nvml_proc_sample *buf,
					       unsigned int *count, unsigned long long last_seen_us);
	const char *(*error_string)(fs_nvml_ret r);
};

/* dlopen libnvidia-ml.so.1 (or $FEEDSCOPE_NVML_LIB if set, for tests) and
 * resolve its calls into *n. Does not call nvmlInit. Returns 0, or -1 with a
 * one-line reason in why ("no NVIDIA driver: <dlerror>", or the required
 * symbol that is missing) and nothing left open. */
int fs_nvml_load(struct fs_nvml *n, char *why, size_t whylen);

/* dlclose the library; *n is zeroed. Safe on a zeroed or failed struct. */
void fs_nvml_unload(struct fs_nvml *n);

/* NVML's text for r (nvmlErrorString), or "NVML error <r>" written into
 * buf when the library lacks it. Returns a string valid until the next call
 * with the same buf; never NULL. */
const char *fs_nvml_strerror(const struct fs_nvml *n, fs_nvml_ret r, char *buf, size_t cap);

/* Device memory in bytes: nvmlDeviceGetMemoryInfo_v2 when the library has
 * it (falling back to v1 for good if the driver rejects the v2 struct),
 * else v1. Returns FS_NVML_SUCCESS, FS_NVML_ERROR_FUNCTION_NOT_FOUND when
 * the library has neither, or the call's error. */
fs_nvml_ret fs_nvml_memory(struct fs_nvml *n, fs_nvml_device dev, uint64_t *total_bytes,
			   uint64_t *used_bytes);

/* NVML's unit conversions: PCIe KB/s (KiB) -> bytes/s; mW -> W. */
double fs_nvml_kbps_to_bytes_per_s(unsigned int kb_per_s);
double fs_nvml_mw_to_w(unsigned int mw);

/* Keep only the newest sample of each pid in s[0..n) (NVML may return more
 * than one sample per process), compacting in place in first-seen order.
 * Raises *last_seen_us to the newest timestamp seen. Returns the new count. */
unsigned int fs_nvml_proc_latest(struct fs_nvml_proc_sample *s, unsigned int n,
				 unsigned long long *last_seen_us);

#endif
