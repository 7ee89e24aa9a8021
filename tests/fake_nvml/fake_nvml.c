/* fake_nvml.c - the tests' stand-in for NVIDIA's libnvidia-ml.so.1.
 *
 * Built as a shared library with the real soname, so feedscope finds it with
 * the same dlopen("libnvidia-ml.so.1") it uses on a GPU machine when
 * LD_LIBRARY_PATH points at its directory. It declares NVML's C ABI itself
 * (from NVIDIA's documented types; no project header), and serves values
 * scripted in the file named by $FAKE_NVML_SCRIPT. The file is re-read
 * whenever its inode, mtime or size changes (write a new file and rename it
 * over the old one), so a test or an emulated job can change values during a
 * run. Lines (# comments allowed; N is the device index):
 *
 *   count=2                      devices (default 1; 0 if the script is missing)
 *   init=fail                    nvmlInit* return NVML_ERROR_DRIVER_NOT_LOADED
 *   gpuN.name=NVIDIA H200
 *   gpuN.handle=fail             nvmlDeviceGetHandleByIndex* fail for it
 *   gpuN.util=35                 or a list 10,20,30 cycled per call
 *   gpuN.mem_util= .mem_total= .mem_used= (bytes) .pcie_rx_kbps= .pcie_tx_kbps=
 *   gpuN.sm_clock= (MHz) .power_mw= .temp= (C)            all cyclable lists
 *   gpuN.proc=PID:SM:MEM[,PID:SM:MEM...]   empty: no samples (NVML_ERROR_NOT_FOUND)
 *   gpuN.util_file=/path         util % from the file's first line on every
 *                                call (missing or unreadable file: 0)
 *   gpuN.busy_file=/path         util from an emulated accelerator's busy time:
 *                                the file holds the job's cumulative busy
 *                                seconds (a float; the job rewrites it after
 *                                each compute step, best atomically: write a
 *                                new file, rename it over). Each
 *                                nvmlDeviceGetUtilizationRates call returns
 *                                100 x (busy now - busy at the previous call)
 *                                / (CLOCK_MONOTONIC now - at the previous call),
 *                                rounded and clamped to 0..100; the first call
 *                                for the device returns 0. A missing file
 *                                counts as 0 s busy (the job has not started);
 *                                a file without a number (a partial write)
 *                                returns the previous value (0 if none) and
 *                                keeps the previous reading as the baseline;
 *                                busy time that went down (a new job) returns
 *                                0 and measures from the new reading. The
 *                                previous reading survives re-reads of the
 *                                script while the path stays the same. Takes
 *                                precedence over util_file and util.
 *   gpuN.METRIC=unsupported      NVML_ERROR_NOT_SUPPORTED; =error gives
 *                                NVML_ERROR_UNKNOWN. METRIC is one of the above,
 *                                or pcie (both counters), mem (memory info).
 *
 * Unscripted metrics have plain defaults (util 0, 16 GiB total, 1410 MHz,
 * 100 W, 40 C). $FAKE_NVML_LOG, if set, gets one line per call: the symbol
 * name and, for some, its arguments ("nvmlDeviceGetMemoryInfo_v2
 * version=0x2000028"). nvmlDeviceGetMemoryInfo_v2 checks the struct version
 * and answers NVML_ERROR_ARGUMENT_VERSION_MISMATCH to anything but
 * sizeof(nvmlMemory_v2_t) | 2 << 24, as the real driver does.
 *
 * Process samples carry timestamp BASE + k, k counting the filled
 * nvmlDeviceGetProcessUtilization calls on that device, and only samples
 * newer than lastSeenTimeStamp are returned, so a caller that does not pass
 * back the newest timestamp it saw gets duplicates or nothing.
 *
 * -DFAKE_NVML_MINIMAL builds an old driver's library: only nvmlInit,
 * nvmlShutdown, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex (no _v2),
 * nvmlDeviceGetName, nvmlDeviceGetUtilizationRates and nvmlErrorString.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- NVML's C ABI, as documented ---- */
typedef enum nvmlReturn_enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlUtilization_st {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;
typedef struct nvmlMemory_st {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;
typedef struct nvmlMemory_v2_st {
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;
typedef enum nvmlPcieUtilCounter_enum {
	NVML_PCIE_UTIL_TX_BYTES = 0,
	NVML_PCIE_UTIL_RX_BYTES = 1
} nvmlPcieUtilCounter_t;
typedef enum nvmlClockType_enum {
	NVML_CLOCK_GRAPHICS = 0,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;
typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef struct nvmlProcessUtilizationSample_st {
	unsigned int pid;
	unsigned long long timeStamp;
	unsigned int smUtil;
	unsigned int memUtil;
	unsigned int encUtil;
	unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

#define nvmlMemory_v2 (unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24))

/* ---- scripted state ---- */
#define MAX_DEV 16
#define MAX_VALS 32
#define MAX_PROC 64
#define TS_BASE 1700000000000000ull /* a wall-clock time in us, like NVML's */

struct series {
	int n;            /* values; 0: the default */
	unsigned long long v[MAX_VALS];
	unsigned next;    /* cycles per call */
	nvmlReturn_t err; /* non-zero: every call fails with it */
};

enum { S_UTIL, S_MEM_UTIL, S_MEM_TOTAL, S_MEM_USED, S_RX, S_TX, S_CLOCK, S_POWER, S_TEMP, S_N };
static const char *const s_names[S_N] = {"util",         "mem_util",     "mem_total",
					 "mem_used",     "pcie_rx_kbps", "pcie_tx_kbps",
					 "sm_clock",     "power_mw",     "temp"};
static const unsigned long long s_default[S_N] = {0, 0, 16ull << 30, 0, 0, 0, 1410, 100000, 40};

struct fake_dev {
	char name[96];
	bool handle_fail;
	struct series s[S_N];
	char util_file[512];
	char busy_file[512];
	int nproc;
	struct {
		unsigned pid, sm, mem;
	} proc[MAX_PROC];
	nvmlReturn_t proc_err;
	unsigned long long proc_k; /* filled process-utilization calls */
};

/* busy_file readings; kept apart from fake_dev, which a script re-read clears */
static struct busy_state {
	char path[512];     /* the busy_file the readings below come from */
	bool have;          /* a previous reading exists */
	double busy_s;      /* its busy seconds */
	double wall_s;      /* its CLOCK_MONOTONIC time */
	unsigned last_util; /* the value returned last */
} B[MAX_DEV];

static struct {
	bool loaded;
	struct stat st; /* of the script last read */
	unsigned count;
	bool init_fail;
	struct fake_dev dev[MAX_DEV];
	int inits; /* nvmlInit minus nvmlShutdown */
	int logfd; /* 0: not opened yet; -1: no log */
} F;

static void log_call(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_call(const char *fmt, ...)
{
	if (F.logfd == 0) {
		const char *p = getenv("FAKE_NVML_LOG");
		F.logfd = p && *p ? open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
	}
	if (F.logfd < 0)
		return;
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(F.logfd, line, (size_t)n) < 0)
		return;
}

static nvmlReturn_t word_err(const char *v)
{
	if (!strcmp(v, "unsupported"))
		return NVML_ERROR_NOT_SUPPORTED;
	if (!strcmp(v, "error"))
		return NVML_ERROR_UNKNOWN;
	return NVML_SUCCESS;
}

static void set_series(struct series *s, const char *v)
{
	memset(s, 0, sizeof *s);
	if ((s->err = word_err(v)))
		return;
	while (*v && s->n < MAX_VALS) {
		char *end;
		s->v[s->n++] = strtoull(v, &end, 10);
		if (end == v)
			break;
		v = *end == ',' ? end + 1 : end;
	}
}

static void set_procs(struct fake_dev *d, const char *v)
{
	d->nproc = 0;
	if ((d->proc_err = word_err(v)))
		return;
	while (*v && d->nproc < MAX_PROC) {
		unsigned pid, sm, mem;
		int used = 0;
		if (sscanf(v, "%u:%u:%u%n", &pid, &sm, &mem, &used) != 3)
			break;
		d->proc[d->nproc].pid = pid;
		d->proc[d->nproc].sm = sm;
		d->proc[d->nproc].mem = mem;
		d->nproc++;
		v += used;
		if (*v == ',')
			v++;
	}
}

static void set_dev_key(struct fake_dev *d, const char *key, const char *v)
{
	if (!strcmp(key, "name")) {
		snprintf(d->name, sizeof d->name, "%s", v);
	} else if (!strcmp(key, "handle")) {
		d->handle_fail = !strcmp(v, "fail");
	} else if (!strcmp(key, "util_file")) {
		snprintf(d->util_file, sizeof d->util_file, "%s", v);
	} else if (!strcmp(key, "busy_file")) {
		snprintf(d->busy_file, sizeof d->busy_file, "%s", v);
	} else if (!strcmp(key, "proc")) {
		set_procs(d, v);
	} else if (!strcmp(key, "pcie")) {
		set_series(&d->s[S_RX], v);
		set_series(&d->s[S_TX], v);
	} else if (!strcmp(key, "mem")) {
		set_series(&d->s[S_MEM_TOTAL], v);
		set_series(&d->s[S_MEM_USED], v);
	} else {
		for (int i = 0; i < S_N; i++)
			if (!strcmp(key, s_names[i]))
				set_series(&d->s[i], v);
	}
}

static void parse_line(char *line)
{
	line[strcspn(line, "\r\n")] = '\0';
	char *eq = strchr(line, '=');
	if (line[0] == '#' || !eq)
		return;
	*eq = '\0';
	const char *v = eq + 1;
	unsigned idx;
	int used = 0;
	if (!strcmp(line, "count")) {
		F.count = (unsigned)atoi(v);
		if (F.count > MAX_DEV)
			F.count = MAX_DEV;
	} else if (!strcmp(line, "init")) {
		F.init_fail = !strcmp(v, "fail");
	} else if (sscanf(line, "gpu%u.%n", &idx, &used) == 1 && used > 0 && idx < MAX_DEV) {
		set_dev_key(&F.dev[idx], line + used, v);
	}
}

static void reset_defaults(void)
{
	memset(F.dev, 0, sizeof F.dev);
	F.count = 1;
	F.init_fail = false;
	for (int i = 0; i < MAX_DEV; i++)
		snprintf(F.dev[i].name, sizeof F.dev[i].name, "Fake NVIDIA GPU %d", i);
}

/* Re-read the script if it changed since the last call. */
static void refresh(void)
{
	const char *path = getenv("FAKE_NVML_SCRIPT");
	struct stat st;
	if (!path || !*path || stat(path, &st) < 0) {
		if (!F.loaded || F.st.st_ino) {
			reset_defaults();
			if (path && *path)
				F.count = 0; /* named but missing: no devices */
			memset(&F.st, 0, sizeof F.st);
			F.loaded = true;
		}
		return;
	}
	if (F.loaded && st.st_ino == F.st.st_ino && st.st_size == F.st.st_size &&
	    st.st_mtim.tv_sec == F.st.st_mtim.tv_sec && st.st_mtim.tv_nsec == F.st.st_mtim.tv_nsec)
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	reset_defaults();
	char line[4096];
	while (fgets(line, sizeof line, f))
		parse_line(line);
	fclose(f);
	F.st = st;
	F.loaded = true;
}

/* The device behind a handle, or NULL if it is not one of ours. */
static struct fake_dev *dev_of(nvmlDevice_t h)
{
	for (unsigned i = 0; i < F.count; i++)
		if ((void *)h == (void *)&F.dev[i])
			return &F.dev[i];
	return NULL;
}

/* Common entry: refresh, check init and handle. */
static nvmlReturn_t enter(nvmlDevice_t h, struct fake_dev **d)
{
	refresh();
	if (F.inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	if (d && !(*d = dev_of(h)))
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

/* The next value of series i of d, or its error. */
static nvmlReturn_t next_value(struct fake_dev *d, int i, unsigned long long *out)
{
	struct series *s = &d->s[i];
	if (s->err)
		return s->err;
	*out = s->n ? s->v[s->next++ % (unsigned)s->n] : s_default[i];
	return NVML_SUCCESS;
}

static unsigned util_from_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[64] = "";
	double v = 0;
	if (fgets(line, sizeof line, f))
		v = strtod(line, NULL);
	fclose(f);
	if (!(v >= 0))
		return 0;
	return v > 100 ? 100 : (unsigned)(v + 0.5);
}

/* Cumulative busy seconds from PATH into *out: 1 read, 0 no number in it
 * (a partial write), and a missing file reads as 0 s busy. */
static int busy_read(const char *path, double *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*out = 0;
		return 1;
	}
	char buf[64];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (end == buf || !(v >= 0))
		return 0;
	*out = v;
	return 1;
}

static unsigned util_from_busy(unsigned idx, const char *path)
{
	struct busy_state *b = &B[idx];
	if (strcmp(b->path, path)) {
		memset(b, 0, sizeof *b);
		snprintf(b->path, sizeof b->path, "%s", path);
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9, busy;
	if (!busy_read(path, &busy))
		return b->last_util; /* a partial write: keep the baseline */
	unsigned util = 0;
	if (b->have && busy >= b->busy_s && now > b->wall_s) {
		double pct = 100.0 * (busy - b->busy_s) / (now - b->wall_s);
		util = pct >= 100 ? 100 : (unsigned)(pct + 0.5);
	} else if (b->have && busy >= b->busy_s) {
		util = b->last_util; /* no time has passed */
	}
	b->have = true;
	b->busy_s = busy;
	b->wall_s = now;
	b->last_util = util;
	return util;
}

/* ---- the exported API ---- */
static nvmlReturn_t do_init(const char *sym)
{
	log_call("%s", sym);
	refresh();
	if (F.init_fail)
		return NVML_ERROR_DRIVER_NOT_LOADED;
	F.inits++;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void)
{
	return do_init("nvmlInit");
}

nvmlReturn_t nvmlShutdown(void)
{
	log_call("nvmlShutdown");
	if (F.inits <= 0)
		return NVML_ERROR_UNINITIALIZED;
	F.inits--;
	return NVML_SUCCESS;
}

static nvmlReturn_t do_count(const char *sym, unsigned int *count)
{
	log_call("%s", sym);
	nvmlReturn_t r = enter(NULL, NULL);
	if (r)
		return r;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = F.count;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
	return do_count("nvmlDeviceGetCount", count);
}

static nvmlReturn_t do_handle(const char *sym, unsigned int index, nvmlDevice_t *dev)
{
	log_call("%s index=%u", sym, index);
	nvmlReturn_t r = enter(NULL, NULL);
	if (r)
		return r;
	if (!dev || index >= F.count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (F.dev[index].handle_fail)
		return NVML_ERROR_UNKNOWN;
	*dev = (nvmlDevice_t)(void *)&F.dev[index];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *dev)
{
	return do_handle("nvmlDeviceGetHandleByIndex", index, dev);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *name, unsigned int length)
{
	log_call("nvmlDeviceGetName length=%u", length);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r)
		return r;
	if (!name)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(d->name) + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(name, d->name, strlen(d->name) + 1);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u)
{
	log_call("nvmlDeviceGetUtilizationRates");
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r || (r = u ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT))
		return r;
	unsigned long long g = 0, m = 0;
	if (d->busy_file[0])
		g = util_from_busy((unsigned)(d - F.dev), d->busy_file);
	else if (d->util_file[0] && !d->s[S_UTIL].err)
		g = util_from_file(d->util_file);
	else if ((r = next_value(d, S_UTIL, &g)))
		return r;
	if ((r = next_value(d, S_MEM_UTIL, &m)))
		return r;
	u->gpu = (unsigned)g;
	u->memory = (unsigned)m;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument Version Mismatch";
	case NVML_ERROR_UNKNOWN: return "Unknown Error";
	}
	return "Unknown Error";
}

#ifndef FAKE_NVML_MINIMAL
/* ---- the calls only newer drivers have ---- */
nvmlReturn_t nvmlInit_v2(void)
{
	return do_init("nvmlInit_v2");
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	return do_count("nvmlDeviceGetCount_v2", count);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
	return do_handle("nvmlDeviceGetHandleByIndex_v2", index, dev);
}

/* total and used bytes of d, or the scripted error. */
static nvmlReturn_t memory_of(struct fake_dev *d, unsigned long long *total,
			      unsigned long long *used)
{
	nvmlReturn_t r = next_value(d, S_MEM_TOTAL, total);
	if (!r)
		r = next_value(d, S_MEM_USED, used);
	if (!r && *used > *total)
		*used = *total;
	return r;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m)
{
	log_call("nvmlDeviceGetMemoryInfo");
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r || (r = m ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT))
		return r;
	unsigned long long total, used;
	if ((r = memory_of(d, &total, &used)))
		return r;
	m->total = total;
	m->used = used;
	m->free = total - used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m)
{
	log_call("nvmlDeviceGetMemoryInfo_v2 version=%#x", m ? m->version : 0u);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r || (r = m ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT))
		return r;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	unsigned long long total, used;
	if ((r = memory_of(d, &total, &used)))
		return r;
	m->total = total;
	m->reserved = 0;
	m->used = used;
	m->free = total - used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, nvmlPcieUtilCounter_t counter,
					 unsigned int *value)
{
	log_call("nvmlDeviceGetPcieThroughput counter=%d", (int)counter);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r)
		return r;
	if (!value || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long v;
	if ((r = next_value(d, counter == NVML_PCIE_UTIL_RX_BYTES ? S_RX : S_TX, &v)))
		return r;
	*value = (unsigned)v;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, nvmlClockType_t type, unsigned int *clock)
{
	log_call("nvmlDeviceGetClockInfo type=%d", (int)type);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r)
		return r;
	if (!clock || type != NVML_CLOCK_SM)
		return clock ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long v;
	if ((r = next_value(d, S_CLOCK, &v)))
		return r;
	*clock = (unsigned)v;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned int *power)
{
	log_call("nvmlDeviceGetPowerUsage");
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r || (r = power ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT))
		return r;
	unsigned long long v;
	if ((r = next_value(d, S_POWER, &v)))
		return r;
	*power = (unsigned)v;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, nvmlTemperatureSensors_t sensor,
				      unsigned int *temp)
{
	log_call("nvmlDeviceGetTemperature sensor=%d", (int)sensor);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r)
		return r;
	if (!temp || sensor != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	unsigned long long v;
	if ((r = next_value(d, S_TEMP, &v)))
		return r;
	*temp = (unsigned)v;
	return NVML_SUCCESS;
}

/* The documented protocol: utilization NULL asks for the count
 * (NVML_ERROR_INSUFFICIENT_SIZE), then a buffer of *count entries is
 * filled; nothing newer than lastSeenTimeStamp gives NVML_ERROR_NOT_FOUND. */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t h,
					     nvmlProcessUtilizationSample_t *utilization,
					     unsigned int *processSamplesCount,
					     unsigned long long lastSeenTimeStamp)
{
	log_call("nvmlDeviceGetProcessUtilization buf=%s count=%u last=%llu",
		 utilization ? "set" : "NULL", processSamplesCount ? *processSamplesCount : 0u,
		 lastSeenTimeStamp);
	struct fake_dev *d;
	nvmlReturn_t r = enter(h, &d);
	if (r)
		return r;
	if (!processSamplesCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->proc_err)
		return d->proc_err;
	unsigned long long ts = TS_BASE + d->proc_k;
	unsigned n = ts > lastSeenTimeStamp ? (unsigned)d->nproc : 0;
	if (n == 0) {
		*processSamplesCount = 0;
		return NVML_ERROR_NOT_FOUND;
	}
	if (!utilization || *processSamplesCount < n) {
		*processSamplesCount = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < n; i++) {
		memset(&utilization[i], 0, sizeof utilization[i]);
		utilization[i].pid = d->proc[i].pid;
		utilization[i].timeStamp = ts;
		utilization[i].smUtil = d->proc[i].sm;
		utilization[i].memUtil = d->proc[i].mem;
	}
	*processSamplesCount = n;
	d->proc_k++;
	return NVML_SUCCESS;
}
#endif
