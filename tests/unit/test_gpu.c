/* test_gpu - the gpu source and the NVML binding, against the tests' fake
 * libnvidia-ml.so.1 (tests/fake_nvml).
 *
 * The binary is not linked against the fake: the dynamic loader reads
 * LD_LIBRARY_PATH only when a process starts, so each case runs in a child
 * that re-executes this binary (`test_gpu --case NAME`) with LD_LIBRARY_PATH
 * set to the fake's directory (<build>/tests/nvml/{full,minimal}, found next
 * to this binary) and the source's ordinary dlopen("libnvidia-ml.so.1")
 * finds it by soname. Each case writes its script ($FAKE_NVML_SCRIPT) and
 * reads the fake's call log ($FAKE_NVML_LOG). */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "source/nvml.h"
#include "source/source.h"

extern const struct fs_source_ops fs_source_gpu;

/* ---- a sink that keeps what it is given ---- */
#define MAX_ROWS 128
#define MAX_META 32

struct cap_row {
	struct fs_row row;
	char text[FS_MAX_COLS][128];
};

struct cap {
	struct fs_sink sink;
	int nrows;
	struct cap_row rows[MAX_ROWS];
	int nmeta;
	char key[MAX_META][64];
	char val[MAX_META][512];
};

static void cap_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct cap *c = (struct cap *)sink;
	if (c->nrows == MAX_ROWS)
		return;
	struct cap_row *cr = &c->rows[c->nrows++];
	cr->row = *r;
	for (int i = 0; i < FS_MAX_COLS; i++)
		if (r->v[i].kind == FS_V_TEXT) {
			snprintf(cr->text[i], sizeof cr->text[i], "%s", r->v[i].s);
			cr->row.v[i].s = cr->text[i];
		}
}

static void cap_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct cap *c = (struct cap *)sink;
	if (c->nmeta == MAX_META)
		return;
	snprintf(c->key[c->nmeta], sizeof c->key[0], "%s", key);
	snprintf(c->val[c->nmeta], sizeof c->val[0], "%s", value);
	c->nmeta++;
}

static void cap_init(struct cap *c)
{
	memset(c, 0, sizeof *c);
	c->sink.row = cap_row;
	c->sink.meta = cap_meta;
}

static const char *meta(const struct cap *c, const char *key)
{
	for (int i = c->nmeta - 1; i >= 0; i--)
		if (!strcmp(c->key[i], key))
			return c->val[i];
	return NULL;
}

/* The first row of table t whose column col == v, or NULL. */
static const struct fs_row *row_where(const struct cap *c, enum fs_table_id t, int col, int64_t v)
{
	for (int i = 0; i < c->nrows; i++) {
		const struct fs_row *r = &c->rows[i].row;
		if (r->table == t && r->v[col].kind == FS_V_INT && r->v[col].i == v)
			return r;
	}
	return NULL;
}

static int count_rows(const struct cap *c, enum fs_table_id t)
{
	int n = 0;
	for (int i = 0; i < c->nrows; i++)
		n += c->rows[i].row.table == t;
	return n;
}

static bool is_null(const struct fs_row *r, int col)
{
	return r && r->v[col].kind == FS_V_NULL;
}

static double real(const struct fs_row *r, int col)
{
	return r && r->v[col].kind == FS_V_REAL ? r->v[col].d : NAN;
}

static int64_t ival(const struct fs_row *r, int col)
{
	return r && r->v[col].kind == FS_V_INT ? r->v[col].i : -999;
}

static const char *text(const struct fs_row *r, int col)
{
	return r && r->v[col].kind == FS_V_TEXT ? r->v[col].s : NULL;
}

/* ---- files ---- */
static char tmpdir[256];

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", tmpdir, name);
}

/* Replace file `name` atomically (write a temporary, rename over it). */
static void put_file(const char *name, const char *content)
{
	char path[512], tmp[600];
	path_of(path, sizeof path, name);
	snprintf(tmp, sizeof tmp, "%s.new", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(content, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* How many lines of the call log start with prefix followed by ' ' or the end. */
static int log_count(const char *prefix)
{
	char path[512], line[512];
	path_of(path, sizeof path, "log");
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = strlen(prefix);
	int count = 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, prefix, n) && (line[n] == '\n' || line[n] == ' ' || !line[n]))
			count++;
	fclose(f);
	return count;
}

/* ---- driving the source (one at a time) ---- */
static struct run {
	struct cap cap;
	struct fs_paths paths;
	struct fs_source_ctx ctx;
	void *state;
	char why[512];
} run, *const r = &run;

static int run_open(void)
{
	cap_init(&r->cap);
	fs_paths_from_env(&r->paths);
	r->ctx = (struct fs_source_ctx){.paths = &r->paths, .sink = &r->cap.sink,
					.now_ns = 1000000000ull};
	r->why[0] = '\0';
	r->state = NULL;
	return fs_source_gpu.open(&r->state, &r->ctx, r->why, sizeof r->why);
}

/* One tick at t seconds (monotonic 1 s + t). Clears the captured rows first. */
static int run_tick(double t)
{
	r->cap.nrows = 0;
	r->ctx.t = t;
	r->ctx.now_ns = 1000000000ull + (uint64_t)(t * 1e9 + 0.5);
	r->why[0] = '\0';
	return fs_source_gpu.sample(r->state, &r->ctx, r->why, sizeof r->why);
}

static void run_close(void)
{
	fs_source_gpu.close(r->state);
}

#define SAMPLE_OK(t) CHECK_INT(run_tick(t), FS_SOURCE_OK)
#define GPU_ROW(i) row_where(&r->cap, FS_T_GPU, FS_GPU_gpu, i)
#define PROC_ROW(pid) row_where(&r->cap, FS_T_GPU_PROC, FS_GPU_PROC_pid, pid)

/* Two GPUs, every metric scripted: exact values, units, PCIe schedule, the
 * _v2 symbols and the memory struct version. */
static void case_full(void)
{
	put_file("script", "count=2\n"
			   "gpu0.name=NVIDIA H200\n"
			   "gpu0.util=10,20,30\n"
			   "gpu0.mem_util=5\n"
			   "gpu0.mem_total=150754820096\n"
			   "gpu0.mem_used=1073741824\n"
			   "gpu0.pcie_rx_kbps=1000,2000\n"
			   "gpu0.pcie_tx_kbps=300\n"
			   "gpu0.sm_clock=1980\n"
			   "gpu0.power_mw=312500\n"
			   "gpu0.temp=47\n"
			   "gpu0.proc=4242:60:20,4243:5:1\n"
			   "gpu1.name=NVIDIA A100-SXM4-80GB\n"
			   "gpu1.util=99\n"
			   "gpu1.pcie_rx_kbps=7\n"
			   "gpu1.proc=\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	CHECK_STR(meta(&r->cap, "gpu.count"), "2");
	CHECK_STR(meta(&r->cap, "gpu.0.name"), "NVIDIA H200");
	CHECK_STR(meta(&r->cap, "gpu.1.name"), "NVIDIA A100-SXM4-80GB");
	CHECK_STR(meta(&r->cap, "gpu.0.mem_total_bytes"), "150754820096");
	CHECK_STR(meta(&r->cap, "gpu.1.mem_total_bytes"), "17179869184");
	const char *lib = meta(&r->cap, "gpu.nvml_lib");
	const char *want = "/tests/nvml/full/libnvidia-ml.so.1";
	CHECK(lib && strlen(lib) > strlen(want) && !strcmp(lib + strlen(lib) - strlen(want), want));
	CHECK(meta(&r->cap, "gpu.nvml_missing") == NULL);

	/* t=0: PCIe of gpu0 measured (one device per tick), gpu1 not yet */
	SAMPLE_OK(0);
	const struct fs_row *g0 = GPU_ROW(0), *g1 = GPU_ROW(1);
	CHECK(g0 && g1);
	CHECK_STR(text(g0, FS_GPU_name), "NVIDIA H200");
	CHECK_NEAR(real(g0, FS_GPU_t), 0, 0);
	CHECK_NEAR(real(g0, FS_GPU_util_pct), 10, 0);
	CHECK_NEAR(real(g0, FS_GPU_mem_util_pct), 5, 0);
	CHECK_INT(ival(g0, FS_GPU_mem_used_bytes), 1073741824);
	CHECK_INT(ival(g0, FS_GPU_mem_total_bytes), 150754820096);
	CHECK_NEAR(real(g0, FS_GPU_pcie_rx_bytes_per_s), 1000 * 1024.0, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_tx_bytes_per_s), 300 * 1024.0, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_age_s), 0, 0);
	CHECK_INT(ival(g0, FS_GPU_sm_clock_mhz), 1980);
	CHECK_NEAR(real(g0, FS_GPU_power_w), 312.5, 0);
	CHECK_INT(ival(g0, FS_GPU_temp_c), 47);
	CHECK_NEAR(real(g1, FS_GPU_util_pct), 99, 0);
	CHECK(is_null(g1, FS_GPU_pcie_rx_bytes_per_s));
	CHECK(is_null(g1, FS_GPU_pcie_tx_bytes_per_s));
	CHECK(is_null(g1, FS_GPU_pcie_age_s));
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 2);
	const struct fs_row *p = PROC_ROW(4242);
	CHECK_INT(ival(p, FS_GPU_PROC_gpu), 0);
	CHECK_NEAR(real(p, FS_GPU_PROC_sm_util_pct), 60, 0);
	CHECK_NEAR(real(p, FS_GPU_PROC_mem_util_pct), 20, 0);
	CHECK_NEAR(real(PROC_ROW(4243), FS_GPU_PROC_sm_util_pct), 5, 0);

	/* t=0.5: gpu1's turn; gpu0 repeats its measurement, half a second old */
	SAMPLE_OK(0.5);
	g0 = GPU_ROW(0), g1 = GPU_ROW(1);
	CHECK_NEAR(real(g0, FS_GPU_util_pct), 20, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_rx_bytes_per_s), 1000 * 1024.0, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_age_s), 0.5, 1e-9);
	CHECK_NEAR(real(g1, FS_GPU_pcie_rx_bytes_per_s), 7 * 1024.0, 0);
	CHECK_NEAR(real(g1, FS_GPU_pcie_tx_bytes_per_s), 0, 0);
	CHECK_NEAR(real(g1, FS_GPU_pcie_age_s), 0, 0);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 2); /* new samples, no duplicates */

	/* t=1.0: gpu0 is due again (1 s), gets the next scripted value */
	SAMPLE_OK(1.0);
	g0 = GPU_ROW(0), g1 = GPU_ROW(1);
	CHECK_NEAR(real(g0, FS_GPU_util_pct), 30, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_rx_bytes_per_s), 2000 * 1024.0, 0);
	CHECK_NEAR(real(g0, FS_GPU_pcie_age_s), 0, 0);
	CHECK_NEAR(real(g1, FS_GPU_pcie_age_s), 0.5, 1e-9);

	SAMPLE_OK(1.5);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 10, 0); /* the list cycles */
	CHECK_NEAR(real(GPU_ROW(1), FS_GPU_pcie_age_s), 0, 0);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 2);
	run_close();

	CHECK_INT(log_count("nvmlInit_v2"), 1);
	CHECK_INT(log_count("nvmlInit"), 0);
	CHECK_INT(log_count("nvmlDeviceGetCount_v2"), 1);
	CHECK_INT(log_count("nvmlDeviceGetCount"), 0);
	CHECK_INT(log_count("nvmlDeviceGetHandleByIndex_v2 index=1"), 1);
	CHECK_INT(log_count("nvmlDeviceGetHandleByIndex index=0"), 0);
	CHECK_INT(log_count("nvmlDeviceGetMemoryInfo_v2 version=0x2000028"), 2 + 4 * 2);
	CHECK_INT(log_count("nvmlDeviceGetMemoryInfo_v2"), 2 + 4 * 2);
	CHECK_INT(log_count("nvmlDeviceGetMemoryInfo"), 0);
	CHECK_INT(log_count("nvmlDeviceGetPcieThroughput"), 4 * 2); /* 4 refreshes, rx+tx */
	CHECK_INT(log_count("nvmlDeviceGetClockInfo type=1"), 4 * 2);
	CHECK_INT(log_count("nvmlDeviceGetTemperature sensor=0"), 4 * 2);
	/* per tick: gpu0 asks the count then fills, gpu1 has nothing (NOT_FOUND) */
	CHECK_INT(log_count("nvmlDeviceGetProcessUtilization"), 4 * 3);
	/* gpu0 once, then the newest timestamp seen; gpu1 never saw one */
	CHECK_INT(log_count("nvmlDeviceGetProcessUtilization buf=NULL count=0 last=0"), 1 + 4);
	CHECK_INT(log_count("nvmlDeviceGetProcessUtilization buf=set count=10 "
			    "last=1700000000000000"), 1); /* buffer sized 2 + 8 spare */
	CHECK_INT(log_count("nvmlDeviceGetProcessUtilization buf=NULL count=0 "
			    "last=1700000000000002"), 1);
	CHECK_INT(log_count("nvmlShutdown"), 1);
}

/* The fake itself rejects nvtop's bug (version 2), as the driver does. */
static void case_fake_version(void)
{
	put_file("script", "count=1\n");
	void *lib = dlopen(FS_NVML_SONAME, RTLD_NOW | RTLD_LOCAL);
	CHECK(lib != NULL);
	if (!lib)
		return;
	typedef fs_nvml_ret (*init_fn)(void);
	typedef fs_nvml_ret (*handle_fn)(unsigned, fs_nvml_device *);
	typedef fs_nvml_ret (*mem_fn)(fs_nvml_device, struct fs_nvml_memory_v2 *);
	init_fn init = (init_fn)dlsym(lib, "nvmlInit_v2"), shutdown = (init_fn)dlsym(lib, "nvmlShutdown");
	handle_fn handle = (handle_fn)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	mem_fn mem = (mem_fn)dlsym(lib, "nvmlDeviceGetMemoryInfo_v2");
	CHECK(init && handle && mem && shutdown);
	if (init && handle && mem && shutdown) {
		fs_nvml_device d = NULL;
		CHECK_INT(init(), FS_NVML_SUCCESS);
		CHECK_INT(handle(0, &d), FS_NVML_SUCCESS);
		struct fs_nvml_memory_v2 m = {.version = 2};
		CHECK_INT(mem(d, &m), FS_NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
		m.version = FS_NVML_MEMORY_V2_VERSION;
		CHECK_INT(mem(d, &m), FS_NVML_SUCCESS);
		CHECK_INT(m.total, 16ull << 30);
		CHECK_INT(shutdown(), FS_NVML_SUCCESS);
	}
	dlclose(lib);
}

/* NOT_SUPPORTED drops a metric for good; another error only for that tick. */
static void case_unsupported(void)
{
	put_file("script", "count=1\n"
			   "gpu0.util=50\n"
			   "gpu0.pcie=unsupported\n"
			   "gpu0.power_mw=unsupported\n"
			   "gpu0.temp=error\n"
			   "gpu0.proc=unsupported\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	for (int i = 0; i < 3; i++) {
		SAMPLE_OK(i * 1.0);
		const struct fs_row *g = GPU_ROW(0);
		CHECK(g != NULL);
		CHECK_NEAR(real(g, FS_GPU_util_pct), 50, 0);
		CHECK_NEAR(real(g, FS_GPU_mem_util_pct), 0, 0);
		CHECK_INT(ival(g, FS_GPU_mem_total_bytes), 16ll << 30);
		CHECK_INT(ival(g, FS_GPU_sm_clock_mhz), 1410);
		CHECK(is_null(g, FS_GPU_pcie_rx_bytes_per_s));
		CHECK(is_null(g, FS_GPU_pcie_tx_bytes_per_s));
		CHECK(is_null(g, FS_GPU_pcie_age_s));
		CHECK(is_null(g, FS_GPU_power_w));
		CHECK(is_null(g, FS_GPU_temp_c));
		CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 0);
	}
	run_close();
	CHECK_INT(log_count("nvmlDeviceGetPcieThroughput counter=1"), 1);
	CHECK_INT(log_count("nvmlDeviceGetPcieThroughput counter=0"), 1);
	CHECK_INT(log_count("nvmlDeviceGetPowerUsage"), 1);
	CHECK_INT(log_count("nvmlDeviceGetTemperature"), 3);
	CHECK_INT(log_count("nvmlDeviceGetProcessUtilization"), 1);
}

/* An old driver: no _v2 symbols, no optional calls. */
static void case_minimal(void)
{
	put_file("script", "count=1\ngpu0.name=Old GPU\ngpu0.util=42\ngpu0.mem_util=7\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	CHECK_STR(meta(&r->cap, "gpu.count"), "1");
	CHECK_STR(meta(&r->cap, "gpu.0.name"), "Old GPU");
	CHECK(meta(&r->cap, "gpu.0.mem_total_bytes") == NULL);
	CHECK_STR(meta(&r->cap, "gpu.nvml_missing"),
		  "nvmlDeviceGetMemoryInfo,nvmlDeviceGetPcieThroughput,nvmlDeviceGetClockInfo,"
		  "nvmlDeviceGetPowerUsage,nvmlDeviceGetTemperature,"
		  "nvmlDeviceGetProcessUtilization");
	SAMPLE_OK(0);
	SAMPLE_OK(1);
	const struct fs_row *g = GPU_ROW(0);
	CHECK_STR(text(g, FS_GPU_name), "Old GPU");
	CHECK_NEAR(real(g, FS_GPU_util_pct), 42, 0);
	CHECK_NEAR(real(g, FS_GPU_mem_util_pct), 7, 0);
	int optional[] = {FS_GPU_mem_used_bytes, FS_GPU_mem_total_bytes,
			  FS_GPU_pcie_rx_bytes_per_s, FS_GPU_pcie_tx_bytes_per_s,
			  FS_GPU_pcie_age_s, FS_GPU_sm_clock_mhz, FS_GPU_power_w, FS_GPU_temp_c};
	for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
		CHECK(is_null(g, optional[i]));
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 0);
	run_close();
	CHECK_INT(log_count("nvmlInit"), 1);
	CHECK_INT(log_count("nvmlInit_v2"), 0);
	CHECK_INT(log_count("nvmlDeviceGetCount"), 1);
	CHECK_INT(log_count("nvmlDeviceGetHandleByIndex index=0"), 1);
}

/* No library on the search path. */
static void case_nolib(void)
{
	int rc = run_open();
	if (rc == FS_SOURCE_OK) {
		/* a real driver found through ld.so.cache: nothing to check here */
		check_skip("nolib: a libnvidia-ml.so.1 is installed (%s)",
		       meta(&r->cap, "gpu.nvml_lib"));
		run_close();
	} else {
		CHECK(!strncmp(r->why, "no NVIDIA driver: ", 18));
		CHECK(strstr(r->why, "libnvidia-ml.so.1") != NULL);
		CHECK_INT(r->cap.nmeta, 0);
		printf("nolib: %s\n", r->why);
	}
}

/* nvmlInit fails; then a driver with no devices. */
static void case_initfail(void)
{
	put_file("script", "init=fail\ncount=1\n");
	CHECK_INT(run_open(), FS_SOURCE_UNAVAILABLE);
	CHECK_STR(r->why, "nvmlInit failed: Driver Not Loaded");
	put_file("script", "count=0\n");
	CHECK_INT(run_open(), FS_SOURCE_UNAVAILABLE);
	CHECK_STR(r->why, "no GPUs");
	CHECK_INT(log_count("nvmlShutdown"), 1); /* the init that worked is undone */
}

/* util from a file an emulated job writes; the script re-read when replaced. */
static void case_utilfile(void)
{
	char busy[512], script[700];
	path_of(busy, sizeof busy, "busy");
	snprintf(script, sizeof script, "count=1\ngpu0.util_file=%s\n", busy);
	put_file("script", script);
	CHECK_INT(run_open(), FS_SOURCE_OK);
	SAMPLE_OK(0);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 0, 0); /* no file yet: idle */
	put_file("busy", "87\n");
	SAMPLE_OK(0.1);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 87, 0);
	put_file("busy", "12.6\n");
	SAMPLE_OK(0.2);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 13, 0);
	put_file("script", "count=1\ngpu0.util=55\ngpu0.name=Renamed\n");
	SAMPLE_OK(0.3);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 55, 0);
	run_close();
}

/* A device without a handle is skipped and said so in meta. */
static void case_handlefail(void)
{
	put_file("script", "count=2\ngpu0.handle=fail\ngpu1.name=Second\ngpu1.util=3\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	CHECK_STR(meta(&r->cap, "gpu.count"), "1");
	CHECK_STR(meta(&r->cap, "gpu.0.error"), "nvmlDeviceGetHandleByIndex: Unknown Error");
	CHECK(meta(&r->cap, "gpu.0.name") == NULL);
	SAMPLE_OK(0);
	CHECK(GPU_ROW(0) == NULL);
	CHECK_NEAR(real(GPU_ROW(1), FS_GPU_util_pct), 3, 0);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU), 1);
	run_close();
}

/* $FEEDSCOPE_NVML_LIB names the library directly. */
static void case_override(void)
{
	put_file("script", "count=1\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	CHECK_STR(meta(&r->cap, "gpu.nvml_lib"), getenv("FEEDSCOPE_NVML_LIB"));
	run_close();
}

/* No process samples is not an error; several samples of one pid become one row. */
static void case_procs(void)
{
	put_file("script", "count=1\ngpu0.proc=\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	SAMPLE_OK(0);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 0);
	put_file("script", "count=1\ngpu0.proc=7:1:2,8:9:9,7:3:4\n");
	SAMPLE_OK(0.1);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 2);
	CHECK_NEAR(real(PROC_ROW(7), FS_GPU_PROC_sm_util_pct), 3, 0);
	CHECK_NEAR(real(PROC_ROW(7), FS_GPU_PROC_mem_util_pct), 4, 0);
	CHECK_NEAR(real(PROC_ROW(8), FS_GPU_PROC_sm_util_pct), 9, 0);
	run_close();
}

/* With a job, only the job's processes are kept: the root, its descendants
 * (found through <proc>/PID/stat ppid chains), not unrelated pids. */
static void case_jobprocs(void)
{
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	char script[256];
	snprintf(script, sizeof script, "count=1\ngpu0.proc=%d:30:3,%d:40:4,1:50:5\n", (int)getpid(),
		 (int)child);
	put_file("script", script);
	struct fs_job job = {.root = getpid()};
	CHECK_INT(run_open(), FS_SOURCE_OK);
	r->ctx.job = &job;
	SAMPLE_OK(0);
	CHECK_INT(count_rows(&r->cap, FS_T_GPU_PROC), 2);
	CHECK_NEAR(real(PROC_ROW(getpid()), FS_GPU_PROC_sm_util_pct), 30, 0);
	CHECK_NEAR(real(PROC_ROW(child), FS_GPU_PROC_sm_util_pct), 40, 0);
	CHECK(PROC_ROW(1) == NULL); /* init is not the job's */
	run_close();
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/* The utilization call failing (a GPU lost) fails the tick; the row still comes. */
static void case_utilerror(void)
{
	put_file("script", "count=2\ngpu1.util=error\ngpu1.temp=51\n");
	CHECK_INT(run_open(), FS_SOURCE_OK);
	CHECK_INT(run_tick(0), FS_SOURCE_UNAVAILABLE);
	CHECK_STR(r->why, "gpu 1: nvmlDeviceGetUtilizationRates: Unknown Error");
	CHECK(is_null(GPU_ROW(1), FS_GPU_util_pct));
	CHECK_INT(ival(GPU_ROW(1), FS_GPU_temp_c), 51);
	CHECK_NEAR(real(GPU_ROW(0), FS_GPU_util_pct), 0, 0);
	put_file("script", "count=2\ngpu1.util=64\n");
	SAMPLE_OK(0.1); /* not switched off: it was not NOT_SUPPORTED */
	CHECK_NEAR(real(GPU_ROW(1), FS_GPU_util_pct), 64, 0);
	run_close();
}

struct tcase {
	const char *name;
	void (*fn)(void);
	const char *lib; /* "full", "minimal", "empty" */
	bool override;   /* set FEEDSCOPE_NVML_LIB to the minimal library */
};

static const struct tcase cases[] = {
	{"full", case_full, "full", false},
	{"fake_version", case_fake_version, "full", false},
	{"unsupported", case_unsupported, "full", false},
	{"minimal", case_minimal, "minimal", false},
	{"nolib", case_nolib, "empty", false},
	{"initfail", case_initfail, "full", false},
	{"utilfile", case_utilfile, "full", false},
	{"handlefail", case_handlefail, "full", false},
	{"override", case_override, "empty", true},
	{"procs", case_procs, "full", false},
	{"utilerror", case_utilerror, "full", false},
	{"jobprocs", case_jobprocs, "full", false},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- pure functions, in this process ---- */
static void test_pure(void)
{
	CHECK_INT(FS_NVML_MEMORY_V2_VERSION, 0x02000028);
	CHECK_NEAR(fs_nvml_kbps_to_bytes_per_s(1000), 1024000.0, 0);
	CHECK_NEAR(fs_nvml_kbps_to_bytes_per_s(0), 0, 0);
	CHECK_NEAR(fs_nvml_mw_to_w(312500), 312.5, 0);

	struct fs_nvml_proc_sample s[] = {
		{.pid = 1, .timestamp_us = 5, .sm_util = 10},
		{.pid = 2, .timestamp_us = 7, .sm_util = 20},
		{.pid = 1, .timestamp_us = 9, .sm_util = 11},
		{.pid = 2, .timestamp_us = 6, .sm_util = 21},
		{.pid = 3, .timestamp_us = 4, .sm_util = 30},
	};
	unsigned long long last = 3;
	unsigned int n = fs_nvml_proc_latest(s, 5, &last);
	CHECK_INT(n, 3);
	CHECK_INT(last, 9);
	CHECK_INT(s[0].pid, 1);
	CHECK_INT(s[0].sm_util, 11);
	CHECK_INT(s[1].pid, 2);
	CHECK_INT(s[1].sm_util, 20); /* the older sample of pid 2 came later: ignored */
	CHECK_INT(s[2].pid, 3);
	last = 100;
	CHECK_INT(fs_nvml_proc_latest(s, 0, &last), 0);
	CHECK_INT(last, 100);
}

/* ---- running the cases in children ---- */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* <build>/tests/nvml: next to this binary, else $FEEDSCOPE_BUILD (default build). */
static bool find_nvml_dir(char *out, size_t cap)
{
	char exe[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(probe, sizeof probe, "%s/nvml/full/libnvidia-ml.so.1", exe);
		if (access(probe, R_OK) == 0)
			return snprintf(out, cap, "%s/nvml", exe) < (int)cap;
	}
	const char *b = getenv("FEEDSCOPE_BUILD");
	snprintf(probe, sizeof probe, "%s/tests/nvml", b && *b ? b : "build");
	return realpath(probe, out) != NULL;
}

static int run_child(const struct tcase *c, const char *nvml_dir, const char *top)
{
	char dir[512], lib[PATH_MAX + 32], path[PATH_MAX + 64];
	snprintf(dir, sizeof dir, "%s/%s", top, c->name);
	mkdir(dir, 0755);
	if (!strcmp(c->lib, "empty")) {
		snprintf(lib, sizeof lib, "%s/empty", dir);
		mkdir(lib, 0755);
	} else {
		snprintf(lib, sizeof lib, "%s/%s", nvml_dir, c->lib);
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_LIBRARY_PATH", lib, 1);
		if (c->override) {
			snprintf(path, sizeof path, "%s/minimal/libnvidia-ml.so.1", nvml_dir);
			setenv("FEEDSCOPE_NVML_LIB", path, 1);
		} else {
			unsetenv("FEEDSCOPE_NVML_LIB");
		}
		snprintf(path, sizeof path, "%s/script", dir);
		setenv("FAKE_NVML_SCRIPT", path, 1);
		snprintf(path, sizeof path, "%s/log", dir);
		setenv("FAKE_NVML_LOG", path, 1);
		setenv("TEST_GPU_DIR", dir, 1);
		execl("/proc/self/exe", "test_gpu", "--case", c->name, (char *)NULL);
		perror("exec /proc/self/exe");
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int child_main(const char *name)
{
	const char *dir = getenv("TEST_GPU_DIR");
	snprintf(tmpdir, sizeof tmpdir, "%s", dir ? dir : ".");
	for (size_t i = 0; i < NCASES; i++)
		if (!strcmp(cases[i].name, name)) {
			cases[i].fn();
			char label[64];
			snprintf(label, sizeof label, "test_gpu/%s", name);
			return check_exit(label);
		}
	fprintf(stderr, "test_gpu: no case %s\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--case"))
		return child_main(argv[2]);
	test_pure();
	char nvml_dir[PATH_MAX];
	if (!find_nvml_dir(nvml_dir, sizeof nvml_dir)) {
		fprintf(stderr, "test_gpu: the fake libnvidia-ml.so.1 is not built (make unit)\n");
		return 1;
	}
	char top[] = "/tmp/feedscope-test-gpu.XXXXXX";
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	for (size_t i = 0; i < NCASES; i++) {
		int rc = run_child(&cases[i], nvml_dir, top);
		check_count++;
		if (rc == 77) {
			check_skip("test_gpu: case %s skipped a part (said above)", cases[i].name);
		} else if (rc != 0) {
			check_failures++;
			fprintf(stderr, "test_gpu: case %s failed (status %d)\n", cases[i].name, rc);
		}
	}
	nftw(top, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return check_exit("test_gpu");
}
