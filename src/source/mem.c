/* mem - /proc/meminfo, /proc/vmstat and the use of /dev/shm: page cache
 * size, dirty data, swap, major faults and paging rates, and the shared
 * memory DataLoader workers pass batches through. Table: mem.
 *
 * One row a second, not one per tick: /proc/vmstat alone costs ~20 us to read
 * (the kernel sums every counter over every CPU) and meminfo ~5 us, and page
 * cache and fault rates are second-scale signals. The rates are over the
 * interval since the previous row. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "source/source.h"
#include "util/parse.h"
#include "util/pfile.h"

enum { MI_TOTAL, MI_FREE, MI_AVAIL, MI_CACHED, MI_DIRTY, MI_WB, MI_SHMEM, MI_SWTOT, MI_SWFREE, MI_N };
static const char *const mi_keys[MI_N] = {"MemTotal", "MemFree", "MemAvailable",
					  "Cached",   "Dirty",   "Writeback",
					  "Shmem",    "SwapTotal", "SwapFree"};

enum { VM_MAJFLT, VM_PGPGIN, VM_PGPGOUT, VM_PSWPIN, VM_N };
static const char *const vm_keys[VM_N] = {"pgmajfault", "pgpgin", "pgpgout", "pswpin"};

struct mem_state {
	struct fs_pfile meminfo, vmstat, dentry;
	struct fs_buf buf;
	bool have_vm, have_prev_vm;
	uint64_t prev_vm[VM_N];
	bool prev_found[VM_N];
	uint64_t prev_vm_ns; /* time of the previous row */
	bool have_row;
	uint64_t page_bytes;
	char shm[256];
};

static int mem_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct mem_state *s = calloc(1, sizeof *s);
	char path[512];
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	fs_pfile_init(&s->meminfo, fs_proc_path(path, sizeof path, ctx->paths, "meminfo"));
	fs_pfile_init(&s->vmstat, fs_proc_path(path, sizeof path, ctx->paths, "vmstat"));
	fs_pfile_init(&s->dentry, fs_proc_path(path, sizeof path, ctx->paths, "sys/fs/dentry-state"));
	if (fs_pfile_read_one(&s->meminfo, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->meminfo.path, strerror(errno));
		fs_pfile_close(&s->meminfo);
		fs_pfile_close(&s->vmstat);
		fs_pfile_close(&s->dentry);
		fs_buf_free(&s->buf);
		free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	s->have_vm = fs_pfile_read(&s->vmstat, &s->buf) >= 0;
	long pg = sysconf(_SC_PAGESIZE);
	s->page_bytes = pg > 0 ? (uint64_t)pg : 4096;
	snprintf(s->shm, sizeof s->shm, "%s", ctx->paths->shm);
	*state = s;
	return FS_SOURCE_OK;
}

static void set_kib(struct fs_row *r, int col, const uint64_t *v, const bool *found, int i)
{
	if (found[i])
		fs_row_int(r, col, (int64_t)(v[i] * 1024));
}

#define MEM_PERIOD_NS 1000000000ull

static double vm_rate(const struct mem_state *s, const uint64_t *vm, const bool *vf, int i,
		      double dt_s)
{
	static const double kib = 1024; /* pgpgin/pgpgout count KiB, pswpin pages */
	double scale = i == VM_PSWPIN ? (double)s->page_bytes : (i == VM_MAJFLT ? 1 : kib);
	if (!s->have_prev_vm || !vf[i] || !s->prev_found[i] || dt_s <= 0)
		return NAN;
	return (double)fs_counter_delta(s->prev_vm[i], vm[i]) * scale / dt_s;
}

/* Whether a file system is mounted at path: its mount differs from its
 * parent directory's (statx's mount id; the device where the kernel gives
 * no mount id). A plain directory there (a chroot or container without the
 * mount) would report the use of the file system that holds it. */
static bool is_mount_point(const char *path)
{
	char parent[300];
	struct statx a, b;
	if (snprintf(parent, sizeof parent, "%s/..", path) >= (int)sizeof parent ||
	    statx(AT_FDCWD, path, 0, STATX_MNT_ID, &a) < 0 || statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &b) < 0)
		return false;
	if ((a.stx_mask & b.stx_mask & STATX_MNT_ID) && a.stx_mnt_id != b.stx_mnt_id)
		return true;
	return a.stx_dev_major != b.stx_dev_major || a.stx_dev_minor != b.stx_dev_minor;
}

/* The free space of the shared-memory path (whatever holds it: a job whose
 * /dev/shm is a plain directory writes there too) and, when a file system
 * is mounted there, the bytes used on it. */
static void shm_columns(const struct mem_state *s, struct fs_row *r)
{
	struct statvfs sv;
	if (statvfs(s->shm, &sv) != 0)
		return;
	fs_row_int(r, FS_MEM_shm_free_bytes, (int64_t)((uint64_t)sv.f_bavail * sv.f_frsize));
	if (sv.f_blocks >= sv.f_bfree && is_mount_point(s->shm)) {
		fs_row_int(r, FS_MEM_dev_shm_bytes, (int64_t)((uint64_t)(sv.f_blocks - sv.f_bfree) * sv.f_frsize));
		fs_row_int(r, FS_MEM_dev_shm_size_bytes, (int64_t)((uint64_t)sv.f_blocks * sv.f_frsize));
	}
}

static int mem_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct mem_state *s = state;
	/* one row a second: a tick that comes a little early (5%) still counts
	 * as a second's, not waits a whole tick more */
	if (s->have_row && !ctx->final && ctx->now_ns - s->prev_vm_ns < MEM_PERIOD_NS - MEM_PERIOD_NS / 20)
		return FS_SOURCE_OK;
	uint64_t mi[MI_N];
	bool mf[MI_N];
	if (fs_pfile_read_one(&s->meminfo, &s->buf) < 0) {
		snprintf(why, whylen, "cannot read %s: %s", s->meminfo.path, strerror(errno));
		return FS_SOURCE_UNAVAILABLE;
	}
	fs_scan_keyed(s->buf.data, mi_keys, MI_N, mi, mf);

	uint64_t vm[VM_N];
	bool vf[VM_N] = {false};
	bool vm_ok = s->have_vm && fs_pfile_read(&s->vmstat, &s->buf) >= 0;
	if (vm_ok)
		fs_scan_keyed(s->buf.data, vm_keys, VM_N, vm, vf);
	double dt_s = (double)(ctx->now_ns - s->prev_vm_ns) / 1e9;

	struct fs_row r;
	fs_row_init(&r, FS_T_MEM, ctx->t);
	set_kib(&r, FS_MEM_total_bytes, mi, mf, MI_TOTAL);
	set_kib(&r, FS_MEM_free_bytes, mi, mf, MI_FREE);
	set_kib(&r, FS_MEM_available_bytes, mi, mf, MI_AVAIL);
	set_kib(&r, FS_MEM_cached_bytes, mi, mf, MI_CACHED);
	set_kib(&r, FS_MEM_dirty_bytes, mi, mf, MI_DIRTY);
	set_kib(&r, FS_MEM_writeback_bytes, mi, mf, MI_WB);
	set_kib(&r, FS_MEM_shmem_bytes, mi, mf, MI_SHMEM);
	if (mf[MI_SWTOT] && mf[MI_SWFREE])
		fs_row_int(&r, FS_MEM_swap_used_bytes,
			   (int64_t)((mi[MI_SWTOT] > mi[MI_SWFREE] ? mi[MI_SWTOT] - mi[MI_SWFREE] : 0) * 1024));
	fs_row_real(&r, FS_MEM_majflt_per_s, vm_rate(s, vm, vf, VM_MAJFLT, dt_s));
	fs_row_real(&r, FS_MEM_pgpgin_bytes_per_s, vm_rate(s, vm, vf, VM_PGPGIN, dt_s));
	fs_row_real(&r, FS_MEM_pgpgout_bytes_per_s, vm_rate(s, vm, vf, VM_PGPGOUT, dt_s));
	fs_row_real(&r, FS_MEM_swapin_bytes_per_s, vm_rate(s, vm, vf, VM_PSWPIN, dt_s));
	shm_columns(s, &r);
	if (s->have_row)
		fs_row_real(&r, FS_MEM_dt_s, dt_s);
	/* Dentries in the kernel's cache: it grows by one for each file name
	 * looked up for the first time (many tiny files: metadata-bound). */
	uint64_t dentries;
	if (fs_pfile_read(&s->dentry, &s->buf) > 0) {
		const char *d = s->buf.data;
		if (fs_scan_u64(&d, &dentries))
			fs_row_int(&r, FS_MEM_dentries, (int64_t)dentries);
	}
	fs_sink_row(ctx->sink, &r);

	if (vm_ok) {
		memcpy(s->prev_vm, vm, sizeof vm);
		memcpy(s->prev_found, vf, sizeof vf);
	}
	s->have_prev_vm = vm_ok;
	s->prev_vm_ns = ctx->now_ns;
	s->have_row = true;
	return FS_SOURCE_OK;
}

static void mem_close(void *state)
{
	struct mem_state *s = state;
	fs_pfile_close(&s->meminfo);
	fs_pfile_close(&s->vmstat);
	fs_pfile_close(&s->dentry);
	fs_buf_free(&s->buf);
	free(s);
}

const struct fs_source_ops fs_source_mem = {
	.abi = FS_SOURCE_ABI,
	.name = "mem",
	.machine = true,
	.open = mem_open,
	.sample = mem_sample,
	.close = mem_close,
};
