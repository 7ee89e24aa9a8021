/* nodestat.c - the machine's rows folded into totals and gauges (nodestat.h). */
#include "analysis/load/nodestat.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const fs_nodestat_mode_names[FS_NODE__MODES] = {"user", "nice", "system", "iowait", "idle", "steal", "guest"};

void fs_nodestat_init(struct fs_nodestat *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; i < FS_NODE__MODES; i++)
		s->cpu_ratio[i] = NAN;
	for (int i = 0; i < FS_NODE__MEM; i++)
		s->mem[i] = NAN;
	s->majflt = s->pgpgin_bytes = s->pgpgout_bytes = s->swapin_bytes = NAN;
}

static double num(const struct fs_row *r, int col)
{
	double x;
	return fs_value_num(&r->v[col], &x) ? x : NAN;
}

/* The row's interval, or NaN (a source's first row, a zero interval). */
static double dt_of(const struct fs_row *r, int col)
{
	double dt = num(r, col);
	return dt > 0 ? dt : NAN;
}

/* *total += rate × dt × scale, rounded to a whole count: the kernel's own
 * increase (rate was increase / dt). A rate or dt unknown adds nothing; a
 * total that was unknown (NaN) starts at 0. Returns the count added. */
static double add(double *total, double rate, double dt, double scale)
{
	if (isnan(rate) || isnan(dt))
		return 0;
	double n = round(rate * dt * scale);
	*total = isnan(*total) ? n : *total + n;
	return n;
}

static void fold_cpu(struct fs_nodestat *s, const struct fs_row *r)
{
	static const int col[FS_NODE__MODES] = {FS_CPU_user_pct, FS_CPU_nice_pct, FS_CPU_system_pct, FS_CPU_iowait_pct,
						FS_CPU_idle_pct, FS_CPU_steal_pct, FS_CPU_guest_pct};
	double dt = dt_of(r, FS_CPU_dt_s), ncpu = num(r, FS_CPU_ncpu);
	s->have_cpu = true;
	s->ncpu = ncpu > 0 ? (int)ncpu : 0;
	for (int m = 0; m < FS_NODE__MODES; m++) {
		double share = num(r, col[m]) / 100;
		s->cpu_ratio[m] = share;
		if (!isnan(share) && !isnan(dt) && ncpu > 0)
			s->cpu_s[m] += share * ncpu * dt;
	}
}

static void fold_core(struct fs_nodestat *s, const struct fs_row *r)
{
	double n = num(r, FS_CPU_CORE_cpu);
	if (!(n >= 0 && n < FS_NODESTAT_CORES))
		return;
	if (!s->got_core) {
		for (int i = 0; i < s->ncores; i++)
			s->core_busy[i] = NAN; /* a core this sample does not list is offline */
		s->got_core = true;
	}
	int i = (int)n;
	for (; s->ncores <= i; s->ncores++)
		s->core_busy[s->ncores] = NAN;
	s->core_busy[i] = num(r, FS_CPU_CORE_busy_pct) / 100;
}

static void fold_psi(struct fs_nodestat *s, const struct fs_row *r)
{
	const struct fs_value *res = &r->v[FS_PSI_resource];
	if (res->kind != FS_V_TEXT)
		return;
	int i = 0;
	while (i < s->npsi && strcmp(s->psi[i].resource, res->s))
		i++;
	if (i == s->npsi) {
		if (s->npsi == (int)(sizeof s->psi / sizeof *s->psi))
			return;
		struct fs_nodestat_psi *p = &s->psi[s->npsi++];
		snprintf(p->resource, sizeof p->resource, "%s", res->s);
		p->some_us = p->full_us = NAN;
	}
	struct fs_nodestat_psi *p = &s->psi[i];
	double dt = dt_of(r, FS_PSI_dt_s);
	p->some_ratio = num(r, FS_PSI_some_pct) / 100;
	p->full_ratio = num(r, FS_PSI_full_pct) / 100;
	add(&p->some_us, p->some_ratio, dt, 1e6);
	add(&p->full_us, p->full_ratio, dt, 1e6);
}

static void fold_mem(struct fs_nodestat *s, const struct fs_row *r)
{
	static const int col[FS_NODE__MEM] = {FS_MEM_total_bytes, FS_MEM_free_bytes, FS_MEM_available_bytes,
					      FS_MEM_cached_bytes, FS_MEM_dirty_bytes, FS_MEM_writeback_bytes,
					      FS_MEM_shmem_bytes, FS_MEM_swap_used_bytes, FS_MEM_shm_free_bytes,
					      FS_MEM_dev_shm_bytes, FS_MEM_dentries};
	s->have_mem = true;
	for (int i = 0; i < FS_NODE__MEM; i++)
		s->mem[i] = num(r, col[i]);
	double dt = dt_of(r, FS_MEM_dt_s);
	add(&s->majflt, num(r, FS_MEM_majflt_per_s), dt, 1);
	add(&s->pgpgin_bytes, num(r, FS_MEM_pgpgin_bytes_per_s), dt, 1);
	add(&s->pgpgout_bytes, num(r, FS_MEM_pgpgout_bytes_per_s), dt, 1);
	add(&s->swapin_bytes, num(r, FS_MEM_swapin_bytes_per_s), dt, 1);
}

static void fold_tcp(struct fs_nodestat *s, const struct fs_row *r)
{
	double dt = dt_of(r, FS_TCP_dt_s);
	s->have_tcp = true;
	add(&s->tcp_in_segs, num(r, FS_TCP_in_segs_per_s), dt, 1);
	add(&s->tcp_out_segs, num(r, FS_TCP_out_segs_per_s), dt, 1);
	add(&s->tcp_retrans_segs, num(r, FS_TCP_retrans_segs_per_s), dt, 1);
}

static void fold_disk(struct fs_nodestat *s, const struct fs_row *r)
{
	const struct fs_value *name = &r->v[FS_DISK_device];
	if (name->kind != FS_V_TEXT)
		return;
	int i = 0;
	while (i < s->ndisks && strcmp(s->disks[i].device, name->s))
		i++;
	if (i == s->ndisks) {
		if (s->ndisks == FS_NODESTAT_DISKS)
			return;
		struct fs_nodestat_disk *d = &s->disks[s->ndisks++];
		memset(d, 0, sizeof *d);
		snprintf(d->device, sizeof d->device, "%s", name->s);
		d->discard_bytes = d->flushes = d->util_ratio = NAN;
	}
	struct fs_nodestat_disk *d = &s->disks[i];
	double dt = dt_of(r, FS_DISK_dt_s);
	d->seen = true;
	/* await is the mean time per completed request: × the requests = the ms */
	double nr = add(&d->reads, num(r, FS_DISK_reads_per_s), dt, 1);
	double nw = add(&d->writes, num(r, FS_DISK_writes_per_s), dt, 1);
	add(&d->read_bytes, num(r, FS_DISK_read_bytes_per_s), dt, 1);
	add(&d->write_bytes, num(r, FS_DISK_write_bytes_per_s), dt, 1);
	if (nr > 0)
		add(&d->read_ms, num(r, FS_DISK_read_await_ms), nr, 1);
	if (nw > 0)
		add(&d->write_ms, num(r, FS_DISK_write_await_ms), nw, 1);
	add(&d->io_ms, num(r, FS_DISK_util_pct) / 100, dt, 1e3);
	add(&d->weighted_ms, num(r, FS_DISK_queue_depth), dt, 1e3);
	add(&d->discard_bytes, num(r, FS_DISK_discard_bytes_per_s), dt, 1);
	add(&d->flushes, num(r, FS_DISK_flushes_per_s), dt, 1);
	d->util_ratio = num(r, FS_DISK_util_pct) / 100;
}

static void fold_net(struct fs_nodestat *s, const struct fs_row *r)
{
	const struct fs_value *name = &r->v[FS_NET_iface];
	if (name->kind != FS_V_TEXT)
		return;
	int i = 0;
	while (i < s->nifaces && strcmp(s->ifaces[i].name, name->s))
		i++;
	if (i == s->nifaces) {
		if (s->nifaces == FS_NODESTAT_IFACES)
			return;
		struct fs_nodestat_iface *f = &s->ifaces[s->nifaces++];
		memset(f, 0, sizeof *f);
		snprintf(f->name, sizeof f->name, "%s", name->s);
	}
	struct fs_nodestat_iface *f = &s->ifaces[i];
	double dt = dt_of(r, FS_NET_dt_s);
	f->seen = true;
	add(&f->rx_bytes, num(r, FS_NET_rx_bytes_per_s), dt, 1);
	add(&f->rx_packets, num(r, FS_NET_rx_packets_per_s), dt, 1);
	add(&f->rx_errs, num(r, FS_NET_rx_errs_per_s), dt, 1);
	add(&f->rx_drops, num(r, FS_NET_rx_drops_per_s), dt, 1);
	add(&f->tx_bytes, num(r, FS_NET_tx_bytes_per_s), dt, 1);
	add(&f->tx_packets, num(r, FS_NET_tx_packets_per_s), dt, 1);
	add(&f->tx_errs, num(r, FS_NET_tx_errs_per_s), dt, 1);
	add(&f->tx_drops, num(r, FS_NET_tx_drops_per_s), dt, 1);
	f->speed_bytes_per_s = num(r, FS_NET_speed_mbps) * 1e6 / 8;
}

void fs_nodestat_row(struct fs_nodestat *s, const struct fs_row *r)
{
	switch (r->table) {
	case FS_T_CPU: fold_cpu(s, r); break;
	case FS_T_CPU_CORE: fold_core(s, r); break;
	case FS_T_PSI: fold_psi(s, r); break;
	case FS_T_MEM: fold_mem(s, r); break;
	case FS_T_TCP: fold_tcp(s, r); break;
	case FS_T_DISK: fold_disk(s, r); break;
	case FS_T_NET: fold_net(s, r); break;
	default: break;
	}
}

void fs_nodestat_meta(struct fs_nodestat *s, const char *key, const char *value)
{
	if (strncmp(key, "source.", 7) || !strncmp(value, "disabled", 8))
		return;
	int i = 0;
	while (i < s->nsources && strcmp(s->sources[i].name, key + 7))
		i++;
	if (i == s->nsources) {
		if (s->nsources == FS_NODESTAT_SOURCES)
			return;
		snprintf(s->sources[s->nsources++].name, sizeof s->sources[i].name, "%s", key + 7);
	}
	s->sources[i].up = !strcmp(value, "ok");
}

void fs_nodestat_end(struct fs_nodestat *s)
{
	/* the disk and net sources write a row for every device they follow at
	 * every sample: one without a row has gone (a failed read of the whole
	 * file too: its totals start again, a counter reset) */
	int n = 0;
	for (int i = 0; i < s->ndisks; i++)
		if (s->disks[i].seen) {
			s->disks[n] = s->disks[i];
			s->disks[n++].seen = false;
		}
	s->ndisks = n;
	n = 0;
	for (int i = 0; i < s->nifaces; i++)
		if (s->ifaces[i].seen) {
			s->ifaces[n] = s->ifaces[i];
			s->ifaces[n++].seen = false;
		}
	s->nifaces = n;
	s->got_core = false;
	s->samples++;
}
