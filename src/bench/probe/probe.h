/* probe.h - `feedscope probe`: the raw ceilings of the storage under a
 * directory (docs/probe.md), and the per-device record of them that lets a
 * diagnosis say "210 MB/s = 97% of this device's probed ceiling".
 *
 * Measured in a directory of its own inside DIR, under the rules of
 * safety.h, and removed at the end (DIR is left as it was):
 *   - sequential read: 1 MiB requests, O_DIRECT, io_uring at queue depth 16;
 *   - random read: 4 KiB requests, O_DIRECT, io_uring at QD 1 and QD 32;
 *   - metadata: create (with 4 KiB of data), stat, open, close of small files;
 *   - fsync: a 4 KiB write then fsync, over and over.
 * Each for a fixed time (the metadata test for a fixed number of files),
 * each with its latency percentiles (log-linear histograms, util/hist.h). */
#ifndef FS_BENCH_PROBE_H
#define FS_BENCH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hist.h"

#define FS_PROBE_DEFAULT_BYTES (1ull << 30)  /* the test file, scaled down to the free space */
#define FS_PROBE_MIN_BYTES (16ull << 20)     /* 16 requests of 1 MiB */
#define FS_PROBE_DEFAULT_RUNTIME_S 3.0       /* per timed test */
#define FS_PROBE_DEFAULT_META_FILES 2000

/* Return values of fs_probe_run (as safety.h's). */
#define FS_PROBE_OK 0
#define FS_PROBE_REFUSED (-1) /* a safety rule said no; nothing written: exit 2 */
#define FS_PROBE_FAILED (-2)  /* the system said no, or interrupted: exit 1 */

/* The tests (fs_probe_opts.tests, fs_probe_result.tests): the five
 * ceilings, and RANDREAD, a 4 KiB random read at opts.qd (for comparisons,
 * e.g. psync QD 1 from the page cache against fio). */
#define FS_PROBE_SEQ 0x01u
#define FS_PROBE_QD1 0x02u
#define FS_PROBE_QD32 0x04u
#define FS_PROBE_META 0x08u
#define FS_PROBE_FSYNC 0x10u
#define FS_PROBE_RANDREAD 0x20u
#define FS_PROBE_CEILINGS 0x1fu
#define FS_PROBE_READS (FS_PROBE_SEQ | FS_PROBE_QD1 | FS_PROBE_QD32 | FS_PROBE_RANDREAD)

struct fs_probe_opts {
	const char *dir;
	uint64_t size_bytes;   /* the test file; 0: the default, scaled down to fit */
	double runtime_s;      /* per timed test; 0: the default */
	uint32_t meta_files;   /* 0: the default */
	bool progress;         /* one updating line on stderr */
	unsigned tests;        /* FS_PROBE_* bits; 0: FS_PROBE_CEILINGS */
	const char *engine;    /* the read tests' engine (engine.h); NULL: io_uring, psync where it is unavailable */
	bool buffered;         /* read tests through the page cache, the file read once first (no O_DIRECT) */
	unsigned qd;           /* queue depth of FS_PROBE_RANDREAD; 0: 1 */
	struct fs_probe_kept *keep; /* NULL, or where each read test's raw figures are kept (fio's shape) */
};

/* The raw figures of the read tests, index FS_PROBE_KEPT_SEQ.. (the order
 * of FS_PROBE_SEQ, QD1, QD32, RANDREAD): requests, bytes, the timed span
 * and the latency histogram (ns). ran[i] is false for a test not run. */
enum { FS_PROBE_KEPT_SEQ, FS_PROBE_KEPT_QD1, FS_PROBE_KEPT_QD32, FS_PROBE_KEPT_RANDREAD, FS_PROBE_KEPT_N };
struct fs_probe_kept {
	bool ran[FS_PROBE_KEPT_N];
	uint64_t ops[FS_PROBE_KEPT_N], bytes[FS_PROBE_KEPT_N];
	double elapsed_s[FS_PROBE_KEPT_N];
	unsigned qd[FS_PROBE_KEPT_N];
	uint32_t block_bytes[FS_PROBE_KEPT_N];
	struct fs_hist lat[FS_PROBE_KEPT_N];
};

/* Latency percentiles of one test, in microseconds (NAN when not measured). */
struct fs_probe_lat {
	double p50_us, p90_us, p99_us, p999_us, max_us;
	uint64_t count;
};

struct fs_probe_result {
	/* where */
	char dir[1024];
	char device[64];   /* the whole disk under dir ("vda", "loop0"); "" when none (tmpfs, nfs) */
	char majmin[32];   /* the file system's device number, as mountinfo shows it ("254:1") */
	char fs_type[32];  /* "ext4", "tmpfs", ... ("" when unknown) */
	int64_t time_unix;

	/* how */
	uint64_t file_bytes;
	double runtime_s;
	bool direct;       /* the read tests used O_DIRECT (false: the file system has none, or opts.buffered) */
	char engine[16];   /* "io_uring", or "psync" where io_uring is unavailable */
	uint32_t meta_files;
	unsigned tests;    /* FS_PROBE_* bits that ran */
	unsigned randread_qd;

	/* the ceilings (NAN when not measured; the only fields fs_probe_lookup fills) */
	double seq_read_bytes_per_s;
	double randread_iops_qd1, randread_iops_qd32;
	double meta_ops_per_s;
	double fsync_p50_ms, fsync_p99_ms;

	/* detail */
	double randread_iops;          /* FS_PROBE_RANDREAD */
	struct fs_probe_lat seq_lat, qd1_lat, qd32_lat, meta_lat, fsync_lat, randread_lat;
	double create_per_s, stat_per_s, open_per_s, close_per_s, unlink_per_s;
	double fsync_per_s;
	double prep_write_bytes_per_s; /* writing the test file: buffered writes + fsync */
};

/* Measure the storage under o->dir into out. Returns FS_PROBE_OK, or
 * FS_PROBE_REFUSED / FS_PROBE_FAILED with a one-line reason in why. Every
 * file it made is removed on every return (SIGINT, SIGTERM and SIGHUP stop
 * the tests early and return FS_PROBE_FAILED after the clean-up). */
int fs_probe_run(const struct fs_probe_opts *o, struct fs_probe_result *out, char *why, size_t whylen);

/* The probes database: $FEEDSCOPE_PROBE_DB; else probes.db in feedscope's
 * state directory (util/paths.h: $FEEDSCOPE_STATE_DIR, /var/lib/feedscope
 * for root, $XDG_STATE_HOME/feedscope or ~/.local/state/feedscope). Writes it into out[cap] and returns
 * out, or NULL when none can be named (no HOME). */
char *fs_probe_db_path(char *out, size_t cap);

/* Append r to the probes database (created, with its parent directories,
 * when missing; table probes, docs/probe.md). Returns 0, or -1 with the
 * reason in why. */
int fs_probe_save(const char *db_path, const struct fs_probe_result *r, char *why, size_t whylen);

/* The latest probe of device (the whole disk's name, as in the run file's
 * disk table; NULL: the latest probe of a directory on no block device) from
 * the database fs_probe_db_path names. Fills out's where-fields, engine,
 * direct, file_bytes, runtime_s and the ceilings (a ceiling that probe could
 * not measure: NAN; everything else NAN or 0). Only full probes are saved
 * (docs/probe.md), so the latest row holds every ceiling. Returns 0, or -1
 * when there is none (no database, no row for device, an unreadable file). */
int fs_probe_lookup(const char *device, struct fs_probe_result *out);

/* Same, from the database at db_path. */
int fs_probe_lookup_in(const char *db_path, const char *device, struct fs_probe_result *out);

/* Clear r: strings empty, figures NAN, counts 0. */
void fs_probe_result_init(struct fs_probe_result *r);

#endif
