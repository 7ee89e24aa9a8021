/* synth_run - write a run file the shape of a long real one, fast, for
 * timing `feedscope report` (make bench): SECONDS of recording at 0.1 s
 * with 2 cores, 4 PSI rows, 4 disks, 4 NICs (those and memory once a
 * second, as the recorder samples them), a main process and 4 workers,
 * 2 cgroups, 1 GPU, a step every 50 ms and a checkpoint every 100 s.
 * With HOST and RANK, one node of a distributed job for timing a merged
 * report (feedscope report A.db B.db ...): meta hostname HOST and a
 * start_unix RANK × 0.25 s after rank 0's (the job's steps in its own
 * seconds, those before it began left out), the main process as rank RANK
 * (table ranks, its workers inheriting it), and each step's last 10 ms in
 * an all_reduce (a collective phase).
 *
 * With --change-at S, the job's bottleneck changes S seconds in: from
 * then on its workers' busy thread always runs (it never waits for a
 * read) and the steps wait three times as long (a run with two phases,
 * for timing a report that splits it).
 *
 * With --epochs S, a job without step timing (no steps, no collectives)
 * whose non-persistent DataLoader workers are started again every S
 * seconds (new pids), the GPU idle from 4 s before each restart to 2 s
 * after (the epoch boundary analysis/load/epochs.c finds from the restarts).
 *
 *   synth_run [--keep-all] [--epochs S] [--change-at S] OUT.db [SECONDS [HOST RANK]]
 *   (default 3600 s, no rank) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "store/store.h"

int main(int argc, char **argv)
{
	/* --keep-all: every raw row (feedscope run --keep-all), else the
	 * recorder's retention (store/retain.h) */
	bool keep_all = false;
	long epoch_ticks = 0; /* --epochs S: S seconds in ticks; 0: steps */
	long change_ticks = 0; /* --change-at S: S seconds in ticks; 0: none */
	while (argc > 1 && !strncmp(argv[1], "--", 2)) {
		if (!strcmp(argv[1], "--keep-all")) {
			keep_all = true;
		} else if (!strcmp(argv[1], "--change-at") && argc > 2 && atof(argv[2]) > 0) {
			change_ticks = (long)(atof(argv[2]) * 10);
			argv++;
			argc--;
		} else if (!strcmp(argv[1], "--epochs") && argc > 2 && atof(argv[2]) >= 10) {
			epoch_ticks = (long)(atof(argv[2]) * 10);
			argv++;
			argc--;
		} else {
			fprintf(stderr, "synth_run: unknown option or bad value '%s' (--epochs takes seconds, at least 10)\n",
				argv[1]);
			return 2;
		}
		argv++;
		argc--;
	}
	if (argc < 2 || argc == 4 || argc > 5) {
		fprintf(stderr, "usage: synth_run [--keep-all] [--epochs S] OUT.db [SECONDS [HOST RANK]]\n");
		return 2;
	}
	double seconds = argc > 2 ? atof(argv[2]) : 3600;
	bool node = argc == 5;
	int rank = node ? atoi(argv[4]) : 0;
	char err[512];
	struct fs_store *st = fs_store_create(argv[1], true, err, sizeof err);
	if (!st) {
		fprintf(stderr, "synth_run: %s\n", err);
		return 1;
	}
	if (keep_all)
		fs_store_keep_all(st);
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "retention", keep_all ? "all" : "first 3600 s, latest 3600 s, stalls");
	fs_sink_meta(s, "interval_s", "0.1");
	fs_sink_meta(s, "ncpu", "2");
	fs_sink_meta(s, "mem_bytes", "25000000000");
	fs_sink_meta(s, "pid", "100");
	fs_sink_meta(s, "loader.train.num_workers", "4");
	fs_sink_meta(s, "loader.train.batch_size", "32");
	if (node) {
		fs_sink_meta(s, "hostname", argv[3]);
		fs_sink_metaf(s, "start_unix", "%.6f", 1700000000.0 + 0.25 * rank);
		for (int p = 0; p < 5; p++) {
			struct fs_row r;
			fs_row_init(&r, FS_T_RANKS, 0);
			fs_row_int(&r, FS_RANKS_pid, 100 + p);
			fs_row_int(&r, FS_RANKS_ppid, p ? 100 : 1);
			fs_row_int(&r, FS_RANKS_rank, rank);
			fs_row_int(&r, FS_RANKS_local_rank, 0);
			fs_row_text(&r, FS_RANKS_var, "RANK");
			fs_row_real(&r, FS_RANKS_t, 0.1);
			fs_sink_row(s, &r);
		}
	}
	/* the data set's file system: an image on loop0, its file on vda */
	struct fs_row mnt;
	fs_row_init(&mnt, FS_T_MOUNTS, 0);
	fs_row_text(&mnt, FS_MOUNTS_mount, "/mnt/data");
	fs_row_text(&mnt, FS_MOUNTS_device, "loop0");
	fs_row_text(&mnt, FS_MOUNTS_fstype, "ext4");
	fs_row_text(&mnt, FS_MOUNTS_majmin, "7:0");
	fs_row_text(&mnt, FS_MOUNTS_disks, "vda");
	fs_row_int(&mnt, FS_MOUNTS_hidden, 0);
	fs_sink_row(s, &mnt);
	srand(1);
	long ticks = (long)(seconds * 10), step = 0;
	const char *disks[] = {"vda", "loop0", "loop1", "nvme0n1"};
	const char *nics[] = {"lo", "eth0", "ifb0", "ifb1"};
	const char *res[] = {"cpu", "io", "memory", "irq"};
	for (long k = 0; k < ticks; k++) {
		double t = (double)k / 10, noise = (rand() % 100) / 100.0;
		struct fs_row r;
		fs_row_init(&r, FS_T_TICKS, t);
		fs_row_real(&r, FS_TICKS_dt_s, 0.1);
		fs_row_real(&r, FS_TICKS_sample_us, 300);
		fs_row_real(&r, FS_TICKS_cpu_us, 250);
		fs_row_int(&r, FS_TICKS_missed, 0);
		fs_sink_row(s, &r);
		/* the machine-wide tables once a second (the recorder's
		 * default --system-interval) */
		bool second = k > 0 && k % 10 == 0;
		if (second) {
			/* user + system + iowait + idle = 100, iowait 0-20 */
			fs_row_init(&r, FS_T_CPU, t);
			fs_row_real(&r, FS_CPU_user_pct, 40);
			fs_row_real(&r, FS_CPU_system_pct, 10);
			fs_row_real(&r, FS_CPU_iowait_pct, 20 * noise);
			fs_row_real(&r, FS_CPU_idle_pct, 50 - 20 * noise);
			fs_row_real(&r, FS_CPU_steal_pct, 0);
			fs_row_real(&r, FS_CPU_dt_s, 1);
			fs_sink_row(s, &r);
		}
		for (int c = 0; c < 2 && second; c++) {
			fs_row_init(&r, FS_T_CPU_CORE, t);
			fs_row_int(&r, FS_CPU_CORE_cpu, c);
			fs_row_real(&r, FS_CPU_CORE_busy_pct, 50 + 40 * noise);
			fs_row_real(&r, FS_CPU_CORE_dt_s, 1);
			fs_sink_row(s, &r);
		}
		for (int i = 0; i < 4 && second; i++) {
			fs_row_init(&r, FS_T_PSI, t);
			fs_row_text(&r, FS_PSI_resource, res[i]);
			/* CPU and I/O pressure from the job, none on memory or irq */
			fs_row_real(&r, FS_PSI_some_pct, i == 0 ? 30 * noise : i == 1 ? 10 * noise : 0);
			if (i != 0)
				fs_row_real(&r, FS_PSI_full_pct, i == 1 ? 4 * noise : 0);
			fs_row_real(&r, FS_PSI_dt_s, 1);
			fs_sink_row(s, &r);
		}
		if (second) {
			fs_row_init(&r, FS_T_MEM, t);
			fs_row_real(&r, FS_MEM_dt_s, 1);
			fs_row_int(&r, FS_MEM_available_bytes, 20000000000);
			fs_row_int(&r, FS_MEM_cached_bytes, 3000000000);
			fs_row_int(&r, FS_MEM_dentries, 100000 + k / 10);
			fs_row_int(&r, FS_MEM_total_bytes, 25000000000);
			fs_row_int(&r, FS_MEM_free_bytes, 1000000000);
			fs_row_int(&r, FS_MEM_dirty_bytes, 1000000);
			fs_row_int(&r, FS_MEM_shmem_bytes, 500000000);
			fs_row_int(&r, FS_MEM_swap_used_bytes, 0);
			fs_row_real(&r, FS_MEM_majflt_per_s, 0);
			fs_sink_row(s, &r);
		}
		for (int i = 0; i < 4 && second; i++) {
			/* loop0 (the data set) reads at 60-120 MB/s in 128 KiB
			 * requests, vda under it the same; the others idle */
			bool busy = i < 2;
			double rps = busy ? 450 + 450 * noise : 0, req = 131072;
			fs_row_init(&r, FS_T_DISK, t);
			fs_row_text(&r, FS_DISK_device, disks[i]);
			fs_row_real(&r, FS_DISK_reads_per_s, rps);
			fs_row_real(&r, FS_DISK_read_bytes_per_s, rps * req);
			fs_row_real(&r, FS_DISK_writes_per_s, busy ? 2 : 0);
			fs_row_real(&r, FS_DISK_write_bytes_per_s, busy ? 2 * 4096 : 0);
			if (busy) {
				fs_row_real(&r, FS_DISK_read_await_ms, 0.4 + 0.6 * noise);
				fs_row_real(&r, FS_DISK_write_await_ms, 1.5);
				fs_row_real(&r, FS_DISK_read_req_bytes, req);
				fs_row_real(&r, FS_DISK_write_req_bytes, 4096);
			}
			fs_row_real(&r, FS_DISK_queue_depth, busy ? rps * (0.4 + 0.6 * noise) / 1000 : 0);
			fs_row_real(&r, FS_DISK_util_pct, busy ? 30 + 40 * noise : 0);
			fs_row_real(&r, FS_DISK_discard_bytes_per_s, 0);
			fs_row_real(&r, FS_DISK_flushes_per_s, busy ? 0.5 : 0);
			fs_row_real(&r, FS_DISK_dt_s, 1);
			fs_sink_row(s, &r);
			/* eth0 carries 1-3 MB/s in 1500-byte packets, lo a little */
			double rx = i == 1 ? 1e6 + 2e6 * noise : i == 0 ? 2e4 : 0;
			fs_row_init(&r, FS_T_NET, t);
			fs_row_text(&r, FS_NET_iface, nics[i]);
			fs_row_real(&r, FS_NET_rx_bytes_per_s, rx);
			fs_row_real(&r, FS_NET_tx_bytes_per_s, rx / 20);
			fs_row_real(&r, FS_NET_rx_packets_per_s, rx / 1500);
			fs_row_real(&r, FS_NET_tx_packets_per_s, rx / 20 / 100);
			fs_row_real(&r, FS_NET_rx_errs_per_s, 0);
			fs_row_real(&r, FS_NET_tx_errs_per_s, 0);
			fs_row_real(&r, FS_NET_rx_drops_per_s, 0);
			fs_row_real(&r, FS_NET_tx_drops_per_s, 0);
			if (i == 1)
				fs_row_int(&r, FS_NET_speed_mbps, 10000);
			fs_row_real(&r, FS_NET_dt_s, 1);
			fs_sink_row(s, &r);
		}
		/* --epochs: the workers of epoch g are pids 1000 + 10 g + p; the GPU
		 * idle 4 s before and 2 s after each restart */
		long gen = epoch_ticks ? k / epoch_ticks : 0, into = epoch_ticks ? k % epoch_ticks : 0;
		bool boundary = epoch_ticks && ((gen > 0 && into < 20) || epoch_ticks - into <= 40);
		for (int p = 0; p < 5; p++) {
			fs_row_init(&r, FS_T_PROC, t);
			fs_row_int(&r, FS_PROC_pid, p && epoch_ticks ? 1000 + 10 * gen + p : 100 + p);
			fs_row_int(&r, FS_PROC_ppid, p ? 100 : 1);
			fs_row_text(&r, FS_PROC_role, p ? "worker" : "main");
			fs_row_text(&r, FS_PROC_comm, "python3");
			/* thread states sum to the threads read; a worker's one
			 * busy thread runs or waits for its read */
			bool changed = change_ticks && k >= change_ticks;
			int threads = p ? 3 : 30, run = changed && p ? 1 : rand() % 2, blk = p && !run && noise > 0.5;
			fs_row_int(&r, FS_PROC_threads, threads);
			fs_row_int(&r, FS_PROC_running, run);
			fs_row_int(&r, FS_PROC_blocked_io, blk);
			fs_row_int(&r, FS_PROC_sleeping, threads - run - blk);
			fs_row_int(&r, FS_PROC_other, 0);
			fs_row_real(&r, FS_PROC_cpu_pct, run ? 60 + 40 * noise : 10 * noise);
			fs_row_real(&r, FS_PROC_run_wait_pct, 5 * noise);
			fs_row_real(&r, FS_PROC_rchar_per_s, p ? 2.5e7 * noise : 1e5);
			fs_row_real(&r, FS_PROC_read_bytes_per_s, p ? 2.5e7 * noise : 0);
			fs_row_real(&r, FS_PROC_write_bytes_per_s, 0);
			fs_row_int(&r, FS_PROC_rss_bytes, p ? 300000000 : 2000000000);
			fs_row_real(&r, FS_PROC_majflt_per_s, 0);
			fs_sink_row(s, &r);
		}
		for (int c = 0; c < 2; c++) {
			fs_row_init(&r, FS_T_CGROUP, t);
			fs_row_text(&r, FS_CGROUP_path, c ? "/train" : "/");
			fs_row_int(&r, FS_CGROUP_version, 1);
			fs_row_real(&r, FS_CGROUP_throttled_pct, 0);
			fs_row_real(&r, FS_CGROUP_nr_periods_per_s, 0);
			fs_row_int(&r, FS_CGROUP_mem_usage_bytes, 4000000000);
			fs_sink_row(s, &r);
		}
		fs_row_init(&r, FS_T_GPU, t);
		fs_row_int(&r, FS_GPU_gpu, 0);
		fs_row_text(&r, FS_GPU_name, "NVIDIA H200");
		fs_row_real(&r, FS_GPU_util_pct, boundary ? 0 : 60 + 40 * noise);
		fs_row_real(&r, FS_GPU_mem_util_pct, 30 + 20 * noise);
		fs_row_int(&r, FS_GPU_mem_used_bytes, 60000000000);
		fs_row_int(&r, FS_GPU_mem_total_bytes, 150000000000);
		fs_row_int(&r, FS_GPU_sm_clock_mhz, 1980);
		fs_row_real(&r, FS_GPU_power_w, 400 + 200 * noise);
		fs_row_int(&r, FS_GPU_temp_c, 55);
		fs_sink_row(s, &r);
		for (int i = 0; i < 2 && !epoch_ticks; i++, step++) {
			/* a node's steps are the job's, in its own seconds: it began
			 * recording 0.25 s × RANK after rank 0's node (none before) */
			double at = t + 0.05 * i - 0.25 * rank;
			if (at < 0)
				continue;
			fs_row_init(&r, FS_T_STEPS, at);
			fs_row_int(&r, FS_STEPS_pid, 100);
			fs_row_text(&r, FS_STEPS_loader, "train");
			fs_row_int(&r, FS_STEPS_epoch, step / 10000);
			fs_row_int(&r, FS_STEPS_step, step % 10000);
			fs_row_real(&r, FS_STEPS_wait_s, (change_ticks && k >= change_ticks ? 0.06 : 0.02) * noise);
			fs_row_real(&r, FS_STEPS_compute_s, 0.03);
			fs_sink_row(s, &r);
			if (node) {
				/* every rank leaves it at the same instant, the step's end */
				double end = at + 0.03;
				fs_row_init(&r, FS_T_PHASES, 0);
				fs_row_real(&r, FS_PHASES_t_start, end - 0.01);
				fs_row_real(&r, FS_PHASES_t_end, end);
				fs_row_int(&r, FS_PHASES_pid, 100);
				fs_row_text(&r, FS_PHASES_name, "collective");
				fs_sink_row(s, &r);
			}
		}
		if (k % 1000 == 999) {
			fs_row_init(&r, FS_T_PHASES, 0);
			fs_row_real(&r, FS_PHASES_t_start, t - 1);
			fs_row_real(&r, FS_PHASES_t_end, t);
			fs_row_int(&r, FS_PHASES_pid, 100);
			fs_row_text(&r, FS_PHASES_name, "checkpoint");
			fs_sink_row(s, &r);
		}
		if (k % 10 == 9)
			fs_store_commit(st);
	}
	fs_sink_metaf(s, "duration_s", "%g", seconds);
	printf("synth_run: %s: %llu rows, %g s at 0.1 s\n", argv[1], (unsigned long long)fs_store_rows(st), seconds);
	return fs_store_close(st) == 0 ? 0 : 1;
}
