/* gpu - NVIDIA GPUs through NVML (libnvidia-ml.so.1, loaded at run time):
 * utilization, memory, PCIe throughput, SM clock, power and temperature per
 * device, and per-process SM/memory utilization. Tables: gpu, gpu_proc.
 *
 * A metric the device does not report is NULL, never 0. A call answering
 * NVML_ERROR_NOT_SUPPORTED is not made again for that device; any other
 * error gives NULL in that tick's row only.
 *
 * PCIe: nvmlDeviceGetPcieThroughput measures over a 20 ms window inside the
 * call, so each call blocks ~20 ms on real hardware (two per device: rx,
 * tx). We refresh a device's PCIe figures at most once per
 * GPU_PCIE_REFRESH_NS, and at most one device per tick (round robin), so no
 * tick pays more than ~40 ms. Between refreshes each row repeats the last
 * measurement and pcie_age_s says how old it is (0 in the tick that measured
 * it); NULL until the first measurement. It is a 20 ms spot sample either
 * way, so repeating it is no less true than re-measuring every tick.
 *
 * gpu_proc: NVML reports every process that used the GPU since the last
 * sample we saw, not only the job's; with a job (run, attach, watch --pid)
 * only the job's processes are kept (fs_jobtree_has: the pid descends from
 * the job's root), without one (watch) all. A process absent from a tick had
 * no new non-zero sample then.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/jobtree.h"
#include "source/nvml.h"
#include "source/source.h"

#define GPU_PCIE_REFRESH_NS 1000000000ull

/* Metrics that can be switched off per device after NOT_SUPPORTED. */
enum metric { M_UTIL, M_MEM, M_RX, M_TX, M_CLOCK, M_POWER, M_TEMP, M_PROC, M__N };

/* One device's reading for a tick, in NVML's units; have_* false = not reported. */
struct gpu_raw {
	bool have_util;
	struct fs_nvml_utilization util;
	bool have_mem;
	uint64_t mem_total, mem_used;
	bool have_clock, have_power, have_temp;
	unsigned int sm_mhz, power_mw, temp_c;
};

struct gpu_dev {
	unsigned int index; /* NVML's device index */
	fs_nvml_device h;
	char name[FS_NVML_NAME_BYTES];
	bool off[M__N]; /* answered NOT_SUPPORTED: not asked again */
	/* the last PCIe measurement */
	bool pcie_tried;
	uint64_t pcie_ns;
	double pcie_t;
	bool have_rx, have_tx;
	unsigned int rx_kbps, tx_kbps;
	/* process utilization */
	unsigned long long proc_last_us;
	struct fs_nvml_proc_sample *procs;
	unsigned int proc_cap;
};

struct gpu_state {
	struct fs_nvml nvml;
	bool inited;
	struct gpu_dev *dev;
	int ndev;
	int pcie_next; /* round-robin position of the next PCIe refresh */
	struct fs_jobtree tree; /* which pids are the job's */
};

/* true if r is a value; NOT_SUPPORTED switches metric m off for d. */
static bool got(struct gpu_dev *d, enum metric m, fs_nvml_ret r)
{
	if (r == FS_NVML_ERROR_NOT_SUPPORTED)
		d->off[m] = true;
	return r == FS_NVML_SUCCESS;
}

static void gpu_free(struct gpu_state *s)
{
	if (s->inited)
		s->nvml.shutdown();
	for (int i = 0; i < s->ndev; i++)
		free(s->dev[i].procs);
	free(s->dev);
	fs_nvml_unload(&s->nvml);
	free(s);
}

/* Set up device i; false (with meta gpu.i.error) if NVML gives no handle. */
static bool dev_open(struct gpu_state *s, unsigned int i, struct gpu_dev *d,
		     const struct fs_source_ctx *ctx)
{
	char key[64], eb[64];
	memset(d, 0, sizeof *d);
	d->index = i;
	fs_nvml_ret r = s->nvml.get_handle(i, &d->h);
	if (r != FS_NVML_SUCCESS) {
		snprintf(key, sizeof key, "gpu.%u.error", i);
		fs_sink_metaf(ctx->sink, key, "nvmlDeviceGetHandleByIndex: %s",
			      fs_nvml_strerror(&s->nvml, r, eb, sizeof eb));
		return false;
	}
	if (s->nvml.get_name(d->h, d->name, sizeof d->name) != FS_NVML_SUCCESS)
		d->name[0] = '\0';
	d->name[sizeof d->name - 1] = '\0';
	if (d->name[0]) {
		snprintf(key, sizeof key, "gpu.%u.name", i);
		fs_sink_meta(ctx->sink, key, d->name);
	}
	uint64_t total, used;
	if (fs_nvml_memory(&s->nvml, d->h, &total, &used) == FS_NVML_SUCCESS) {
		snprintf(key, sizeof key, "gpu.%u.mem_total_bytes", i);
		fs_sink_metaf(ctx->sink, key, "%llu", (unsigned long long)total);
	}
	return true;
}

/* Load, init, count. Returns FS_SOURCE_OK or UNAVAILABLE with why. */
static int nvml_start(struct gpu_state *s, unsigned int *count, char *why, size_t whylen)
{
	char eb[64];
	if (fs_nvml_load(&s->nvml, why, whylen) < 0)
		return FS_SOURCE_UNAVAILABLE;
	fs_nvml_ret r = s->nvml.init();
	if (r != FS_NVML_SUCCESS) {
		snprintf(why, whylen, "nvmlInit failed: %s",
			 fs_nvml_strerror(&s->nvml, r, eb, sizeof eb));
		return FS_SOURCE_UNAVAILABLE;
	}
	s->inited = true;
	r = s->nvml.get_count(count);
	if (r != FS_NVML_SUCCESS) {
		snprintf(why, whylen, "nvmlDeviceGetCount failed: %s",
			 fs_nvml_strerror(&s->nvml, r, eb, sizeof eb));
		return FS_SOURCE_UNAVAILABLE;
	}
	if (*count == 0) {
		snprintf(why, whylen, "no GPUs");
		return FS_SOURCE_UNAVAILABLE;
	}
	return FS_SOURCE_OK;
}

static int gpu_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct gpu_state *s = calloc(1, sizeof *s);
	unsigned int count = 0;
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	if (nvml_start(s, &count, why, whylen) != FS_SOURCE_OK) {
		gpu_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	if (!(s->dev = calloc(count, sizeof *s->dev))) {
		snprintf(why, whylen, "out of memory");
		gpu_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	for (unsigned int i = 0; i < count; i++)
		if (dev_open(s, i, &s->dev[s->ndev], ctx))
			s->ndev++;
	if (s->ndev == 0) {
		snprintf(why, whylen, "none of the %u GPUs gives a handle (see meta gpu.N.error)",
			 count);
		gpu_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	fs_sink_metaf(ctx->sink, "gpu.count", "%d", s->ndev);
	fs_sink_meta(ctx->sink, "gpu.nvml_lib", s->nvml.path);
	if (s->nvml.missing[0])
		fs_sink_meta(ctx->sink, "gpu.nvml_missing", s->nvml.missing);
	*state = s;
	return FS_SOURCE_OK;
}

/* Every cheap per-tick reading of d. Returns the utilization call's result. */
static fs_nvml_ret read_dev(struct gpu_state *s, struct gpu_dev *d, struct gpu_raw *raw)
{
	const struct fs_nvml *n = &s->nvml;
	fs_nvml_ret ur = FS_NVML_ERROR_NOT_SUPPORTED;
	memset(raw, 0, sizeof *raw);
	if (!d->off[M_UTIL])
		raw->have_util = got(d, M_UTIL, ur = n->get_utilization(d->h, &raw->util));
	if (!d->off[M_MEM] && (n->get_memory_v2 || n->get_memory))
		raw->have_mem = got(d, M_MEM, fs_nvml_memory(&s->nvml, d->h, &raw->mem_total,
							     &raw->mem_used));
	if (!d->off[M_CLOCK] && n->get_clock)
		raw->have_clock = got(d, M_CLOCK, n->get_clock(d->h, FS_NVML_CLOCK_SM, &raw->sm_mhz));
	if (!d->off[M_POWER] && n->get_power)
		raw->have_power = got(d, M_POWER, n->get_power(d->h, &raw->power_mw));
	if (!d->off[M_TEMP] && n->get_temperature)
		raw->have_temp = got(d, M_TEMP, n->get_temperature(d->h, FS_NVML_TEMPERATURE_GPU,
								   &raw->temp_c));
	return ur;
}

static bool pcie_wanted(const struct fs_nvml *n, const struct gpu_dev *d)
{
	return n->get_pcie_throughput && (!d->off[M_RX] || !d->off[M_TX]);
}

/* Measure PCIe on the next device that is due (at most one per tick). */
static void refresh_pcie(struct gpu_state *s, const struct fs_source_ctx *ctx)
{
	const struct fs_nvml *n = &s->nvml;
	for (int k = 0; k < s->ndev; k++) {
		int i = (s->pcie_next + k) % s->ndev;
		struct gpu_dev *d = &s->dev[i];
		if (!pcie_wanted(n, d) ||
		    (d->pcie_tried && ctx->now_ns - d->pcie_ns < GPU_PCIE_REFRESH_NS))
			continue;
		d->have_rx = !d->off[M_RX] &&
			     got(d, M_RX, n->get_pcie_throughput(d->h, FS_NVML_PCIE_UTIL_RX_BYTES,
								  &d->rx_kbps));
		d->have_tx = !d->off[M_TX] &&
			     got(d, M_TX, n->get_pcie_throughput(d->h, FS_NVML_PCIE_UTIL_TX_BYTES,
								  &d->tx_kbps));
		d->pcie_tried = true;
		d->pcie_ns = ctx->now_ns;
		d->pcie_t = ctx->t;
		s->pcie_next = i + 1;
		return;
	}
}

static void emit_gpu(const struct fs_source_ctx *ctx, const struct gpu_dev *d,
		     const struct gpu_raw *raw)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_GPU, ctx->t);
	fs_row_int(&r, FS_GPU_gpu, d->index);
	fs_row_text(&r, FS_GPU_name, d->name[0] ? d->name : NULL);
	if (raw->have_util) {
		fs_row_real(&r, FS_GPU_util_pct, raw->util.gpu);
		fs_row_real(&r, FS_GPU_mem_util_pct, raw->util.memory);
	}
	if (raw->have_mem) {
		fs_row_int(&r, FS_GPU_mem_used_bytes, (int64_t)raw->mem_used);
		fs_row_int(&r, FS_GPU_mem_total_bytes, (int64_t)raw->mem_total);
	}
	if (d->have_rx)
		fs_row_real(&r, FS_GPU_pcie_rx_bytes_per_s, fs_nvml_kbps_to_bytes_per_s(d->rx_kbps));
	if (d->have_tx)
		fs_row_real(&r, FS_GPU_pcie_tx_bytes_per_s, fs_nvml_kbps_to_bytes_per_s(d->tx_kbps));
	if (d->have_rx || d->have_tx)
		fs_row_real(&r, FS_GPU_pcie_age_s, ctx->t - d->pcie_t);
	if (raw->have_clock)
		fs_row_int(&r, FS_GPU_sm_clock_mhz, raw->sm_mhz);
	if (raw->have_power)
		fs_row_real(&r, FS_GPU_power_w, fs_nvml_mw_to_w(raw->power_mw));
	if (raw->have_temp)
		fs_row_int(&r, FS_GPU_temp_c, raw->temp_c);
	fs_sink_row(ctx->sink, &r);
}

/* Fetch the process samples newer than the last seen into d->procs.
 * Returns how many (0: none new, unsupported, or an error). */
static unsigned int read_procs(const struct fs_nvml *n, struct gpu_dev *d)
{
	unsigned int count = 0;
	fs_nvml_ret r = n->get_process_utilization(d->h, NULL, &count, d->proc_last_us);
	if (r == FS_NVML_ERROR_NOT_FOUND || (r == FS_NVML_SUCCESS && count == 0))
		return 0; /* nothing new: not an error */
	if (r != FS_NVML_ERROR_INSUFFICIENT_SIZE && r != FS_NVML_SUCCESS) {
		got(d, M_PROC, r);
		return 0;
	}
	if (count > d->proc_cap) {
		unsigned int cap = count + 8; /* processes may start between the two calls */
		struct fs_nvml_proc_sample *p = realloc(d->procs, cap * sizeof *p);
		if (!p)
			return 0;
		d->procs = p;
		d->proc_cap = cap;
	}
	count = d->proc_cap;
	r = n->get_process_utilization(d->h, d->procs, &count, d->proc_last_us);
	if (r != FS_NVML_SUCCESS) {
		got(d, M_PROC, r); /* INSUFFICIENT_SIZE again: a race, next tick grows */
		return 0;
	}
	return fs_nvml_proc_latest(d->procs, count < d->proc_cap ? count : d->proc_cap,
				   &d->proc_last_us);
}

static void emit_procs(struct gpu_state *s, const struct fs_source_ctx *ctx, const struct gpu_dev *d,
		       unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (ctx->job && !fs_jobtree_has(&s->tree, ctx->paths, ctx->job, (int)d->procs[i].pid))
			continue;
		struct fs_row r;
		fs_row_init(&r, FS_T_GPU_PROC, ctx->t);
		fs_row_int(&r, FS_GPU_PROC_gpu, d->index);
		fs_row_int(&r, FS_GPU_PROC_pid, d->procs[i].pid);
		fs_row_real(&r, FS_GPU_PROC_sm_util_pct, d->procs[i].sm_util);
		fs_row_real(&r, FS_GPU_PROC_mem_util_pct, d->procs[i].mem_util);
		fs_sink_row(ctx->sink, &r);
	}
}

static int gpu_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct gpu_state *s = state;
	int failed = 0;
	refresh_pcie(s, ctx);
	for (int i = 0; i < s->ndev; i++) {
		struct gpu_dev *d = &s->dev[i];
		struct gpu_raw raw;
		fs_nvml_ret r = read_dev(s, d, &raw);
		if (r != FS_NVML_SUCCESS && r != FS_NVML_ERROR_NOT_SUPPORTED && !failed++) {
			char eb[64];
			snprintf(why, whylen, "gpu %u: nvmlDeviceGetUtilizationRates: %s", d->index,
				 fs_nvml_strerror(&s->nvml, r, eb, sizeof eb));
		}
		emit_gpu(ctx, d, &raw);
		if (s->nvml.get_process_utilization && !d->off[M_PROC])
			emit_procs(s, ctx, d, read_procs(&s->nvml, d));
	}
	return failed ? FS_SOURCE_UNAVAILABLE : FS_SOURCE_OK;
}

static void gpu_close(void *state)
{
	gpu_free(state);
}

const struct fs_source_ops fs_source_gpu = {
	.abi = FS_SOURCE_ABI,
	.name = "gpu",
	.open = gpu_open,
	.sample = gpu_sample,
	.close = gpu_close,
};
