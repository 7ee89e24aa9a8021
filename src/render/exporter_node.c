/* exporter_node.c - the feedscope_node_* families (exporter_node.h). */
#include "render/exporter_node.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#define L(n, v) ((struct fs_om_label){n, v})

/* A family, then its one unlabelled sample (none when v is NaN). */
static void single(struct fs_om *o, const char *name, enum fs_om_type type, const char *unit, const char *help, double v)
{
	fs_om_family(o, name, type, unit, help);
	if (!isnan(v))
		fs_om_sample(o, NULL, 0, v);
}

static void cpu_families(struct fs_om *o, const struct fs_nodestat *s)
{
	single(o, "feedscope_node_cpus", FS_OM_GAUGE, NULL, "CPUs online (/proc/stat), the latest sample.",
	       s->have_cpu ? s->ncpu : NAN);
	double idle = s->cpu_ratio[FS_NODE_IDLE], iowait = s->cpu_ratio[FS_NODE_IOWAIT];
	single(o, "feedscope_node_cpu_busy_ratio", FS_OM_GAUGE, "ratio",
	       "Share of the CPUs' time neither idle nor in iowait over the latest interval (1 s), 0..1.",
	       s->have_cpu ? 1 - idle - iowait : NAN);
	fs_om_family(o, "feedscope_node_cpu_ratio", FS_OM_GAUGE, "ratio",
		     "Share of the CPUs' time by mode over the latest interval (1 s); the modes add up to 1.");
	for (int m = 0; s->have_cpu && m < FS_NODE__MODES; m++)
		if (!isnan(s->cpu_ratio[m]))
			fs_om_sample(o, &L("mode", fs_nodestat_mode_names[m]), 1, s->cpu_ratio[m]);
	fs_om_family(o, "feedscope_node_cpu_seconds", FS_OM_COUNTER, "seconds",
		     "CPU seconds by mode since the exporter started: each interval's share x CPUs online x its length.");
	for (int m = 0; s->have_cpu && m < FS_NODE__MODES; m++)
		fs_om_sample(o, &L("mode", fs_nodestat_mode_names[m]), 1, s->cpu_s[m]);
	fs_om_family(o, "feedscope_node_cpu_core_busy_ratio", FS_OM_GAUGE, "ratio",
		     "Share of one CPU's time neither idle nor in iowait over the latest interval (1 s).");
	for (int i = 0; i < s->ncores; i++) {
		char cpu[16];
		snprintf(cpu, sizeof cpu, "%d", i);
		if (!isnan(s->core_busy[i]))
			fs_om_sample(o, &L("cpu", cpu), 1, s->core_busy[i]);
	}
}

static void psi_families(struct fs_om *o, const struct fs_nodestat *s)
{
	static const char *const kind[2] = {"some", "full"};
	fs_om_family(o, "feedscope_node_pressure_stalled_seconds", FS_OM_COUNTER, "seconds",
		     "Seconds in which some (or all) runnable tasks stalled on the resource since the exporter started "
		     "(/proc/pressure: the increase of total=).");
	for (int i = 0; i < s->npsi; i++)
		for (int k = 0; k < 2; k++) {
			double us = k ? s->psi[i].full_us : s->psi[i].some_us;
			if (!isnan(us))
				fs_om_sample(o, (struct fs_om_label[]){L("resource", s->psi[i].resource), L("kind", kind[k])}, 2,
					     us / 1e6);
		}
	fs_om_family(o, "feedscope_node_pressure_ratio", FS_OM_GAUGE, "ratio",
		     "Share of the latest interval (1 s) in which some (or all) runnable tasks stalled on the resource.");
	for (int i = 0; i < s->npsi; i++)
		for (int k = 0; k < 2; k++) {
			double r = k ? s->psi[i].full_ratio : s->psi[i].some_ratio;
			if (!isnan(r))
				fs_om_sample(o, (struct fs_om_label[]){L("resource", s->psi[i].resource), L("kind", kind[k])}, 2, r);
		}
}

static void mem_families(struct fs_om *o, const struct fs_nodestat *s)
{
	static const struct {
		const char *name, *unit, *help;
	} g[FS_NODE__MEM] = {
		{"feedscope_node_memory_total_bytes", "bytes", "MemTotal (/proc/meminfo)."},
		{"feedscope_node_memory_free_bytes", "bytes", "MemFree."},
		{"feedscope_node_memory_available_bytes", "bytes", "MemAvailable."},
		{"feedscope_node_memory_cached_bytes", "bytes", "Cached: the page cache."},
		{"feedscope_node_memory_dirty_bytes", "bytes", "Dirty: data waiting to be written back."},
		{"feedscope_node_memory_writeback_bytes", "bytes", "Writeback: data being written back."},
		{"feedscope_node_memory_shmem_bytes", "bytes", "Shmem: shared memory and tmpfs."},
		{"feedscope_node_memory_swap_used_bytes", "bytes", "SwapTotal - SwapFree."},
		{"feedscope_node_shm_free_bytes", "bytes", "Free space of /dev/shm (DataLoader workers pass batches through it)."},
		{"feedscope_node_shm_used_bytes", "bytes", "Bytes used on the file system mounted at /dev/shm."},
		{"feedscope_node_dentries", NULL, "Dentries in the kernel's cache (/proc/sys/fs/dentry-state)."},
	};
	for (int i = 0; i < FS_NODE__MEM; i++)
		single(o, g[i].name, FS_OM_GAUGE, g[i].unit, g[i].help, s->mem[i]);
	single(o, "feedscope_node_major_faults", FS_OM_COUNTER, NULL,
	       "Major page faults since the exporter started (/proc/vmstat pgmajfault).", s->majflt);
	single(o, "feedscope_node_paged_in_bytes", FS_OM_COUNTER, "bytes", "Bytes paged in from storage (pgpgin).", s->pgpgin_bytes);
	single(o, "feedscope_node_paged_out_bytes", FS_OM_COUNTER, "bytes", "Bytes paged out to storage (pgpgout).", s->pgpgout_bytes);
	single(o, "feedscope_node_swapped_in_bytes", FS_OM_COUNTER, "bytes", "Bytes swapped in (pswpin).", s->swapin_bytes);
	single(o, "feedscope_node_tcp_in_segments", FS_OM_COUNTER, NULL, "TCP segments received (/proc/net/snmp InSegs).",
	       s->have_tcp ? s->tcp_in_segs : NAN);
	single(o, "feedscope_node_tcp_out_segments", FS_OM_COUNTER, NULL, "TCP segments sent (OutSegs).",
	       s->have_tcp ? s->tcp_out_segs : NAN);
	single(o, "feedscope_node_tcp_retransmitted_segments", FS_OM_COUNTER, NULL, "TCP segments retransmitted (RetransSegs).",
	       s->have_tcp ? s->tcp_retrans_segs : NAN);
}

static void disk_families(struct fs_om *o, const struct fs_nodestat *s)
{
	static const struct {
		const char *name, *unit, *help;
		size_t off;
		double scale;
	} c[] = {
		{"feedscope_node_disk_reads_completed", NULL, "Reads completed (/proc/diskstats), whole disks only.",
		 offsetof(struct fs_nodestat_disk, reads), 1},
		{"feedscope_node_disk_read_bytes", "bytes", "Bytes read (sectors x 512).", offsetof(struct fs_nodestat_disk, read_bytes), 1},
		{"feedscope_node_disk_read_time_seconds", "seconds", "Seconds the reads completed took, summed.",
		 offsetof(struct fs_nodestat_disk, read_ms), 1e-3},
		{"feedscope_node_disk_writes_completed", NULL, "Writes completed.", offsetof(struct fs_nodestat_disk, writes), 1},
		{"feedscope_node_disk_written_bytes", "bytes", "Bytes written (sectors x 512).", offsetof(struct fs_nodestat_disk, write_bytes), 1},
		{"feedscope_node_disk_write_time_seconds", "seconds", "Seconds the writes completed took, summed.",
		 offsetof(struct fs_nodestat_disk, write_ms), 1e-3},
		{"feedscope_node_disk_io_time_seconds", "seconds", "Seconds the disk had requests in flight (iostat's %util x time).",
		 offsetof(struct fs_nodestat_disk, io_ms), 1e-3},
		{"feedscope_node_disk_io_time_weighted_seconds", "seconds", "Requests in flight x seconds (iostat's aqu-sz x time).",
		 offsetof(struct fs_nodestat_disk, weighted_ms), 1e-3},
		{"feedscope_node_disk_discarded_bytes", "bytes", "Bytes discarded (kernel 4.18 and later).",
		 offsetof(struct fs_nodestat_disk, discard_bytes), 1},
		{"feedscope_node_disk_flush_requests", NULL, "Flush requests completed (kernel 5.5 and later).",
		 offsetof(struct fs_nodestat_disk, flushes), 1},
	};
	for (size_t f = 0; f < sizeof c / sizeof *c; f++) {
		fs_om_family(o, c[f].name, FS_OM_COUNTER, c[f].unit, c[f].help);
		for (int i = 0; i < s->ndisks; i++) {
			double v = *(const double *)((const char *)&s->disks[i] + c[f].off);
			if (!isnan(v))
				fs_om_sample(o, &L("device", s->disks[i].device), 1, v * c[f].scale);
		}
	}
	fs_om_family(o, "feedscope_node_disk_utilization_ratio", FS_OM_GAUGE, "ratio",
		     "Share of the latest interval (1 s) the disk had requests in flight (iostat's %util / 100).");
	for (int i = 0; i < s->ndisks; i++)
		if (!isnan(s->disks[i].util_ratio))
			fs_om_sample(o, &L("device", s->disks[i].device), 1, s->disks[i].util_ratio);
}

static void net_families(struct fs_om *o, const struct fs_nodestat *s)
{
	static const struct {
		const char *name, *unit, *help;
		size_t off;
	} c[] = {
		{"feedscope_node_network_receive_bytes", "bytes", "Bytes received (/proc/net/dev).", offsetof(struct fs_nodestat_iface, rx_bytes)},
		{"feedscope_node_network_receive_packets", NULL, "Packets received.", offsetof(struct fs_nodestat_iface, rx_packets)},
		{"feedscope_node_network_receive_errors", NULL, "Receive errors.", offsetof(struct fs_nodestat_iface, rx_errs)},
		{"feedscope_node_network_receive_drops", NULL, "Received packets dropped.", offsetof(struct fs_nodestat_iface, rx_drops)},
		{"feedscope_node_network_transmit_bytes", "bytes", "Bytes sent.", offsetof(struct fs_nodestat_iface, tx_bytes)},
		{"feedscope_node_network_transmit_packets", NULL, "Packets sent.", offsetof(struct fs_nodestat_iface, tx_packets)},
		{"feedscope_node_network_transmit_errors", NULL, "Transmit errors.", offsetof(struct fs_nodestat_iface, tx_errs)},
		{"feedscope_node_network_transmit_drops", NULL, "Packets dropped on sending.", offsetof(struct fs_nodestat_iface, tx_drops)},
	};
	for (size_t f = 0; f < sizeof c / sizeof *c; f++) {
		fs_om_family(o, c[f].name, FS_OM_COUNTER, c[f].unit, c[f].help);
		for (int i = 0; i < s->nifaces; i++)
			fs_om_sample(o, &L("device", s->ifaces[i].name), 1,
				     *(const double *)((const char *)&s->ifaces[i] + c[f].off));
	}
	fs_om_family(o, "feedscope_node_network_speed_bytes_per_second", FS_OM_GAUGE, "bytes_per_second",
		     "The link's speed (/sys/class/net/IF/speed), when the interface reports one.");
	for (int i = 0; i < s->nifaces; i++)
		if (!isnan(s->ifaces[i].speed_bytes_per_s))
			fs_om_sample(o, &L("device", s->ifaces[i].name), 1, s->ifaces[i].speed_bytes_per_s);
}

void fs_exporter_node_page(struct fs_om *o, const struct fs_nodestat *s)
{
	single(o, "feedscope_node_samples", FS_OM_COUNTER, NULL,
	       "Samples of the machine's counters taken (one a second); the figures below are of the latest.",
	       (double)s->samples);
	fs_om_family(o, "feedscope_node_source_up", FS_OM_GAUGE, NULL,
		     "1 when the machine-wide source (cpu, psi, mem, disk, net) could be opened, else 0 (said once on stderr).");
	for (int i = 0; i < s->nsources; i++)
		fs_om_sample(o, &L("source", s->sources[i].name), 1, s->sources[i].up);
	cpu_families(o, s);
	psi_families(o, s);
	mem_families(o, s);
	disk_families(o, s);
	net_families(o, s);
}
