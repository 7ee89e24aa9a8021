/* schema.h - the run file's tables, defined once.
 *
 * Each table is an X-macro list of (TABLE, column, SQL type). From it come the
 * column-index enums sources fill (FS_CPU_user_pct, ...), the CREATE TABLE
 * statements and the prepared INSERTs. These names are a public interface
 * (docs/schema.md): add columns freely, rename none. A column whose value the
 * machine does not report holds NULL, never 0.
 *
 * Sampled tables start with `t`: seconds since the run started (monotonic),
 * the end of the interval the rates in the row cover. The machine-wide
 * tables (cpu, cpu_core, psi, mem, disk, net, tcp, nfs) are sampled at their
 * own interval, not every tick, and say its length in their own `dt_s`;
 * the others cover the tick's (ticks.dt_s).
 */
#ifndef FS_SCHEMA_H
#define FS_SCHEMA_H

#define FS_COLS_TICKS(X)                                                        \
	X(TICKS, t, REAL) X(TICKS, dt_s, REAL) X(TICKS, sample_us, REAL)         \
	X(TICKS, missed, INTEGER) X(TICKS, cpu_us, REAL)

#define FS_COLS_CPU(X)                                                          \
	X(CPU, t, REAL) X(CPU, user_pct, REAL) X(CPU, system_pct, REAL)          \
	X(CPU, iowait_pct, REAL) X(CPU, idle_pct, REAL) X(CPU, steal_pct, REAL)  \
	X(CPU, nice_pct, REAL) X(CPU, guest_pct, REAL) X(CPU, ncpu, INTEGER)   \
	X(CPU, dt_s, REAL)

#define FS_COLS_CPU_CORE(X)                                                     \
	X(CPU_CORE, t, REAL) X(CPU_CORE, cpu, INTEGER)                           \
	X(CPU_CORE, busy_pct, REAL) X(CPU_CORE, iowait_pct, REAL)               \
	X(CPU_CORE, dt_s, REAL)

#define FS_COLS_PSI(X)                                                          \
	X(PSI, t, REAL) X(PSI, resource, TEXT) X(PSI, some_pct, REAL)            \
	X(PSI, full_pct, REAL) X(PSI, dt_s, REAL)

#define FS_COLS_MEM(X)                                                          \
	X(MEM, t, REAL) X(MEM, available_bytes, INTEGER)                         \
	X(MEM, cached_bytes, INTEGER) X(MEM, dirty_bytes, INTEGER)               \
	X(MEM, writeback_bytes, INTEGER) X(MEM, shmem_bytes, INTEGER)            \
	X(MEM, swap_used_bytes, INTEGER) X(MEM, majflt_per_s, REAL)              \
	X(MEM, total_bytes, INTEGER) X(MEM, free_bytes, INTEGER)                 \
	X(MEM, pgpgin_bytes_per_s, REAL) X(MEM, pgpgout_bytes_per_s, REAL)       \
	X(MEM, swapin_bytes_per_s, REAL) X(MEM, shm_free_bytes, INTEGER)        \
	X(MEM, dentries, INTEGER) X(MEM, dev_shm_bytes, INTEGER)               \
	X(MEM, dt_s, REAL) X(MEM, dev_shm_size_bytes, INTEGER)

#define FS_COLS_DISK(X)                                                         \
	X(DISK, t, REAL) X(DISK, device, TEXT) X(DISK, reads_per_s, REAL)        \
	X(DISK, read_bytes_per_s, REAL) X(DISK, writes_per_s, REAL)              \
	X(DISK, write_bytes_per_s, REAL) X(DISK, read_await_ms, REAL)            \
	X(DISK, write_await_ms, REAL) X(DISK, queue_depth, REAL)                 \
	X(DISK, util_pct, REAL) X(DISK, read_req_bytes, REAL)                    \
	X(DISK, write_req_bytes, REAL) X(DISK, discard_bytes_per_s, REAL)        \
	X(DISK, flushes_per_s, REAL) X(DISK, dt_s, REAL)

#define FS_COLS_MOUNTS(X)                                                       \
	X(MOUNTS, mount, TEXT) X(MOUNTS, device, TEXT) X(MOUNTS, fstype, TEXT)   \
	X(MOUNTS, source, TEXT) X(MOUNTS, majmin, TEXT) X(MOUNTS, root, TEXT)     \
	X(MOUNTS, disks, TEXT) X(MOUNTS, hidden, INTEGER)

#define FS_COLS_NET(X)                                                          \
	X(NET, t, REAL) X(NET, iface, TEXT) X(NET, rx_bytes_per_s, REAL)         \
	X(NET, tx_bytes_per_s, REAL) X(NET, rx_errs_per_s, REAL)                 \
	X(NET, rx_drops_per_s, REAL) X(NET, tx_errs_per_s, REAL)                 \
	X(NET, tx_drops_per_s, REAL) X(NET, rx_packets_per_s, REAL)              \
	X(NET, tx_packets_per_s, REAL) X(NET, speed_mbps, INTEGER)              \
	X(NET, dt_s, REAL)

#define FS_COLS_TCP(X)                                                          \
	X(TCP, t, REAL) X(TCP, retrans_segs_per_s, REAL)                         \
	X(TCP, out_segs_per_s, REAL) X(TCP, in_segs_per_s, REAL)                 \
	X(TCP, dt_s, REAL)

#define FS_COLS_NFS(X)                                                          \
	X(NFS, t, REAL) X(NFS, mount, TEXT) X(NFS, server, TEXT)                 \
	X(NFS, read_ops_per_s, REAL) X(NFS, read_bytes_per_s, REAL)              \
	X(NFS, read_rtt_ms, REAL) X(NFS, read_exe_ms, REAL)                      \
	X(NFS, write_ops_per_s, REAL) X(NFS, dt_s, REAL)

#define FS_COLS_PROC(X)                                                         \
	X(PROC, t, REAL) X(PROC, pid, INTEGER) X(PROC, ppid, INTEGER)            \
	X(PROC, role, TEXT) X(PROC, comm, TEXT) X(PROC, threads, INTEGER)        \
	X(PROC, running, INTEGER) X(PROC, blocked_io, INTEGER)                   \
	X(PROC, sleeping, INTEGER) X(PROC, cpu_pct, REAL)                        \
	X(PROC, rchar_per_s, REAL) X(PROC, read_bytes_per_s, REAL)               \
	X(PROC, write_bytes_per_s, REAL) X(PROC, rss_bytes, INTEGER)             \
	X(PROC, other, INTEGER) X(PROC, run_wait_pct, REAL)                      \
	X(PROC, majflt_per_s, REAL) X(PROC, blkio_delay_pct, REAL)               \
	X(PROC, wchar_per_s, REAL) X(PROC, pss_bytes, INTEGER)                   \
	X(PROC, shared_bytes, INTEGER) X(PROC, blocked_meta, INTEGER)            \
	X(PROC, minflt_per_s, REAL) X(PROC, system_pct, REAL)                    \
	X(PROC, uss_bytes, INTEGER) X(PROC, swap_bytes, INTEGER)                 \
	X(PROC, shmem_pss_bytes, INTEGER)

#define FS_COLS_CGROUP(X)                                                       \
	X(CGROUP, t, REAL) X(CGROUP, path, TEXT) X(CGROUP, version, INTEGER)     \
	X(CGROUP, cpu_quota_cores, REAL) X(CGROUP, nr_periods_per_s, REAL)       \
	X(CGROUP, nr_throttled_per_s, REAL) X(CGROUP, throttled_pct, REAL)       \
	X(CGROUP, mem_limit_bytes, INTEGER) X(CGROUP, mem_usage_bytes, INTEGER)  \
	X(CGROUP, mem_peak_bytes, INTEGER)

/* The job's threads by pool, per process, once a second or so (the
 * threads source; docs/schema.md). */
#define FS_COLS_THREAD_POOLS(X)                                                 \
	X(THREAD_POOLS, t, REAL) X(THREAD_POOLS, pid, INTEGER)                   \
	X(THREAD_POOLS, pool, TEXT) X(THREAD_POOLS, threads, INTEGER)            \
	X(THREAD_POOLS, active, INTEGER) X(THREAD_POOLS, cpu_pct, REAL)          \
	X(THREAD_POOLS, run_wait_pct, REAL) X(THREAD_POOLS, dt_s, REAL)          \
	X(THREAD_POOLS, cpus_allowed, INTEGER) X(THREAD_POOLS, cpuset_cpus, INTEGER) \
	X(THREAD_POOLS, libs, TEXT)

#define FS_COLS_GPU(X)                                                          \
	X(GPU, t, REAL) X(GPU, gpu, INTEGER) X(GPU, name, TEXT)                  \
	X(GPU, util_pct, REAL) X(GPU, mem_util_pct, REAL)                        \
	X(GPU, mem_used_bytes, INTEGER) X(GPU, mem_total_bytes, INTEGER)         \
	X(GPU, pcie_rx_bytes_per_s, REAL) X(GPU, pcie_tx_bytes_per_s, REAL)      \
	X(GPU, sm_clock_mhz, INTEGER) X(GPU, power_w, REAL) X(GPU, temp_c, INTEGER) \
	X(GPU, pcie_age_s, REAL)

#define FS_COLS_GPU_PROC(X)                                                     \
	X(GPU_PROC, t, REAL) X(GPU_PROC, gpu, INTEGER) X(GPU_PROC, pid, INTEGER) \
	X(GPU_PROC, sm_util_pct, REAL) X(GPU_PROC, mem_util_pct, REAL)

#define FS_COLS_RANKS(X)                                                        \
	X(RANKS, pid, INTEGER) X(RANKS, ppid, INTEGER) X(RANKS, rank, INTEGER)   \
	X(RANKS, local_rank, INTEGER) X(RANKS, world_size, INTEGER)              \
	X(RANKS, node_rank, INTEGER) X(RANKS, var, TEXT) X(RANKS, t, REAL)

#define FS_COLS_STEPS(X)                                                        \
	X(STEPS, t, REAL) X(STEPS, pid, INTEGER) X(STEPS, loader, TEXT)          \
	X(STEPS, epoch, INTEGER) X(STEPS, step, INTEGER) X(STEPS, wait_s, REAL)  \
	X(STEPS, compute_s, REAL) X(STEPS, device_idle_s, REAL)                   \
	X(STEPS, index_s, REAL) X(STEPS, get_s, REAL) X(STEPS, get_cpu_s, REAL)   \
	X(STEPS, pin_cpu_s, REAL)

/* The DataLoader workers' time per stage of their pipeline, from the
 * zero-code hook (G1 records, docs/markers.md "Stages"): per worker
 * process and flush (about a second), each stage's calls, wall and thread
 * CPU time in that interval; t is the end of the interval, dt_s its
 * length (the worker's, not a tick's: fs_table_own_dt does not apply). */
#define FS_COLS_LOADER_STAGES(X)                                                \
	X(LOADER_STAGES, t, REAL) X(LOADER_STAGES, dt_s, REAL)                   \
	X(LOADER_STAGES, pid, INTEGER)                                           \
	X(LOADER_STAGES, loader, TEXT) X(LOADER_STAGES, kind, TEXT)              \
	X(LOADER_STAGES, stage, TEXT) X(LOADER_STAGES, calls, INTEGER)           \
	X(LOADER_STAGES, wall_s, REAL) X(LOADER_STAGES, cpu_s, REAL)

#define FS_COLS_PHASES(X)                                                       \
	X(PHASES, t_start, REAL) X(PHASES, t_end, REAL) X(PHASES, pid, INTEGER)  \
	X(PHASES, name, TEXT)

#define FS_COLS_FILES(X)                                                        \
	X(FILES, pid, INTEGER) X(FILES, path, TEXT) X(FILES, opens, INTEGER)     \
	X(FILES, reads, INTEGER) X(FILES, read_bytes, INTEGER)                   \
	X(FILES, writes, INTEGER) X(FILES, write_bytes, INTEGER)                 \
	X(FILES, seq_reads, INTEGER) X(FILES, consec_reads, INTEGER)             \
	X(FILES, meta_ops, INTEGER) X(FILES, read_time_s, REAL)                  \
	X(FILES, write_time_s, REAL) X(FILES, meta_time_s, REAL)                 \
	X(FILES, size_hist, TEXT) X(FILES, first_t, REAL) X(FILES, last_t, REAL) \
	X(FILES, seeks, INTEGER) X(FILES, stats, INTEGER) X(FILES, mmaps, INTEGER) \
	X(FILES, fsyncs, INTEGER) X(FILES, max_offset, INTEGER)                  \
	X(FILES, stdio_ops, INTEGER) X(FILES, path_hash, TEXT)                   \
	X(FILES, sync_time_s, REAL) X(FILES, main_write_time_s, REAL)            \
	X(FILES, main_sync_time_s, REAL) X(FILES, main_meta_time_s, REAL)

#define FS_COLS_IO_INTERVALS(X)                                                 \
	X(IO_INTERVALS, t, REAL) X(IO_INTERVALS, pid, INTEGER)                   \
	X(IO_INTERVALS, io_time_s, REAL) X(IO_INTERVALS, read_bytes, INTEGER)    \
	X(IO_INTERVALS, write_bytes, INTEGER) X(IO_INTERVALS, ops, INTEGER)      \
	X(IO_INTERVALS, meta_ops, INTEGER)

#define FS_COLS_IO_CLASSES(X)                                                   \
	X(IO_CLASSES, t, REAL) X(IO_CLASSES, pid, INTEGER)                       \
	X(IO_CLASSES, class, TEXT) X(IO_CLASSES, thread, TEXT)                   \
	X(IO_CLASSES, read_s, REAL) X(IO_CLASSES, read_bytes, INTEGER)           \
	X(IO_CLASSES, write_s, REAL) X(IO_CLASSES, write_bytes, INTEGER)         \
	X(IO_CLASSES, sync_s, REAL) X(IO_CLASSES, meta_s, REAL)                  \
	X(IO_CLASSES, calls, INTEGER)

/* Per (process image, thread kind, local endpoint, peer endpoint) of its
 * sockets, from the tracer: written when the process is gone. */
#define FS_COLS_PEERS(X)                                                        \
	X(PEERS, pid, INTEGER) X(PEERS, thread, TEXT) X(PEERS, kind, TEXT)       \
	X(PEERS, family, TEXT) X(PEERS, local_addr, TEXT)                        \
	X(PEERS, local_port, INTEGER) X(PEERS, peer_addr, TEXT)                  \
	X(PEERS, peer_port, INTEGER) X(PEERS, read_bytes, INTEGER)               \
	X(PEERS, write_bytes, INTEGER) X(PEERS, read_s, REAL)                    \
	X(PEERS, write_s, REAL) X(PEERS, calls, INTEGER)                         \
	X(PEERS, first_t, REAL) X(PEERS, last_t, REAL)

#define FS_COLS_OPS(X)                                                          \
	X(OPS, t, REAL) X(OPS, pid, INTEGER) X(OPS, tid, INTEGER)                \
	X(OPS, path, TEXT) X(OPS, op, TEXT) X(OPS, offset, INTEGER)              \
	X(OPS, length, INTEGER) X(OPS, duration_s, REAL) X(OPS, result, INTEGER) \
	X(OPS, layer, TEXT)

#define FS_COLS_BENCH(X)                                                        \
	X(BENCH, workload, TEXT) X(BENCH, epoch, INTEGER)                        \
	X(BENCH, accelerators, INTEGER) X(BENCH, au, REAL)                       \
	X(BENCH, au_threshold, REAL) X(BENCH, passed, INTEGER)                   \
	X(BENCH, samples_per_s, REAL) X(BENCH, read_bytes_per_s, REAL)           \
	X(BENCH, nominal_bytes_per_s, REAL) X(BENCH, reads, INTEGER)             \
	X(BENCH, read_p50_us, REAL) X(BENCH, read_p90_us, REAL)                  \
	X(BENCH, read_p99_us, REAL) X(BENCH, read_p999_us, REAL)                 \
	X(BENCH, duration_s, REAL) X(BENCH, engine, TEXT) X(BENCH, direct, INTEGER) \
	X(BENCH, threads, INTEGER) X(BENCH, queue_depth, INTEGER)                \
	X(BENCH, ranks, INTEGER) X(BENCH, dir, TEXT)

#define FS_COLS_BENCH_CKPT(X)                                                   \
	X(BENCH_CKPT, workload, TEXT) X(BENCH_CKPT, bytes, INTEGER)              \
	X(BENCH_CKPT, files, INTEGER) X(BENCH_CKPT, write_s, REAL)               \
	X(BENCH_CKPT, write_bytes_per_s, REAL) X(BENCH_CKPT, read_s, REAL)       \
	X(BENCH_CKPT, read_bytes_per_s, REAL) X(BENCH_CKPT, ranks, INTEGER)

/* Stalls (record/stall.h, docs/schema.md "stalls"): a stall's start, once
 * what each process was blocked on is read, and its end, each a row. */
#define FS_COLS_STALLS(X)                                                       \
	X(STALLS, stall, INTEGER) X(STALLS, event, TEXT) X(STALLS, t, REAL)      \
	X(STALLS, t_start, REAL) X(STALLS, bound_s, REAL) X(STALLS, basis, TEXT) \
	X(STALLS, procs, INTEGER)

/* What each process of the job was doing when a stall was found. */
#define FS_COLS_STALL_PROCS(X)                                                  \
	X(STALL_PROCS, stall, INTEGER) X(STALL_PROCS, pid, INTEGER)              \
	X(STALL_PROCS, ppid, INTEGER) X(STALL_PROCS, role, TEXT)                 \
	X(STALL_PROCS, comm, TEXT) X(STALL_PROCS, state, TEXT)                   \
	X(STALL_PROCS, syscall, TEXT) X(STALL_PROCS, syscall_nr, INTEGER)        \
	X(STALL_PROCS, args, TEXT) X(STALL_PROCS, fd, INTEGER)                   \
	X(STALL_PROCS, target, TEXT) X(STALL_PROCS, target_kind, TEXT)           \
	X(STALL_PROCS, peer, TEXT) X(STALL_PROCS, wchan, TEXT)                   \
	X(STALL_PROCS, kernel_stack, TEXT) X(STALL_PROCS, python_stack, TEXT)    \
	X(STALL_PROCS, python, TEXT)

/* (ID, SQL name, column list, sampled) */
#define FS_TABLES(X)                                                            \
	X(TICKS, ticks, FS_COLS_TICKS, 1)                                        \
	X(CPU, cpu, FS_COLS_CPU, 1)                                              \
	X(CPU_CORE, cpu_core, FS_COLS_CPU_CORE, 1)                               \
	X(PSI, psi, FS_COLS_PSI, 1)                                              \
	X(MEM, mem, FS_COLS_MEM, 1)                                              \
	X(DISK, disk, FS_COLS_DISK, 1)                                           \
	X(MOUNTS, mounts, FS_COLS_MOUNTS, 0)                                     \
	X(NET, net, FS_COLS_NET, 1)                                              \
	X(TCP, tcp, FS_COLS_TCP, 1)                                              \
	X(NFS, nfs, FS_COLS_NFS, 1)                                              \
	X(PROC, proc, FS_COLS_PROC, 1)                                           \
	X(CGROUP, cgroup, FS_COLS_CGROUP, 1)                                     \
	X(THREAD_POOLS, thread_pools, FS_COLS_THREAD_POOLS, 1)                   \
	X(GPU, gpu, FS_COLS_GPU, 1)                                              \
	X(GPU_PROC, gpu_proc, FS_COLS_GPU_PROC, 1)                               \
	X(RANKS, ranks, FS_COLS_RANKS, 0)                                        \
	X(STEPS, steps, FS_COLS_STEPS, 1)                                        \
	X(PHASES, phases, FS_COLS_PHASES, 0)                                     \
	X(LOADER_STAGES, loader_stages, FS_COLS_LOADER_STAGES, 1)                \
	X(FILES, files, FS_COLS_FILES, 0)                                        \
	X(IO_INTERVALS, io_intervals, FS_COLS_IO_INTERVALS, 1)                   \
	X(IO_CLASSES, io_classes, FS_COLS_IO_CLASSES, 1)                         \
	X(PEERS, peers, FS_COLS_PEERS, 0)                                        \
	X(OPS, ops, FS_COLS_OPS, 1)                                              \
	X(BENCH, bench, FS_COLS_BENCH, 0)                                        \
	X(BENCH_CKPT, bench_checkpoint, FS_COLS_BENCH_CKPT, 0)                   \
	X(STALLS, stalls, FS_COLS_STALLS, 0)                                     \
	X(STALL_PROCS, stall_procs, FS_COLS_STALL_PROCS, 0)

enum fs_table_id {
#define FS_TABLE_ENUM(id, name, cols, sampled) FS_T_##id,
	FS_TABLES(FS_TABLE_ENUM)
#undef FS_TABLE_ENUM
	FS_T__COUNT
};

/* Column indexes: FS_<TABLE>_<column>, and FS_<TABLE>__N the column count. */
#define FS_COL_ENUM(tbl, name, type) FS_##tbl##_##name,
#define FS_TABLE_COLS_ENUM(id, name, cols, sampled) enum { cols(FS_COL_ENUM) FS_##id##__N };
FS_TABLES(FS_TABLE_COLS_ENUM)
#undef FS_TABLE_COLS_ENUM
#undef FS_COL_ENUM

#define FS_MAX_COLS 32

struct fs_column {
	const char *name;
	const char *type; /* "REAL", "INTEGER" or "TEXT" */
};

struct fs_table {
	const char *name;
	int ncols;
	const struct fs_column *cols;
	int sampled; /* 1: first column is t */
};

/* Indexed by enum fs_table_id. */
extern const struct fs_table fs_tables[FS_T__COUNT];

/* A machine-wide table's own interval column (its dt_s: FS_CPU_dt_s, ...),
 * or 0 for a table whose rows cover their tick's (ticks.dt_s). */
int fs_table_own_dt(enum fs_table_id t);

/* Bumped when a column is added; stored in PRAGMA user_version and meta. */
#define FS_SCHEMA_VERSION 14

#endif
