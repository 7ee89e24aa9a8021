/* gen_int.h - the dataset formats of `bench generate` (gen.h), one ops
 * struct per format (gen_formats.c, gen_numpy.c, gen_image.c, gen_hdf5.c),
 * listed in the one table of formats (formats.c).
 * Each format says how a file of n samples of given sizes is laid out (its
 * size and the byte range of each sample: records that tile the file, see
 * docs/bench-formats.md) and writes exactly that layout. */
#ifndef FS_BENCH_GEN_INT_H
#define FS_BENCH_GEN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench/format/dataset.h"
#include "bench/format/formats.h"
#include "bench/format/gen_io.h"

#define FS_GEN_FORMAT_VERSION 1
#define FS_GEN_MAX_THREADS 256

/* Set (by src/cmd/bench_gen.c's signal handler) to stop the writers after their
 * current file; fs_bench_generate then fails with the plan left in place. */
extern volatile sig_atomic_t fs_gen_interrupted;

/* How one format lays out and writes its files. The format's name, its
 * DLIO names and its file extension are in the one table of formats
 * (formats.h), which points at these. */
struct fs_gen_ops {
	int version;               /* FS_GEN_FORMAT_VERSION */
	bool one_sample_per_file;  /* jpeg, raw: a workload's K samples per file become K files */
	bool per_file_length;      /* npy, npz: every sample of a file has the file's one length */
	bool has_index;            /* indexed: an index file (NRECORDS 0) after each data file */
	uint64_t max_sample_bytes; /* what the format can frame (0: no limit) */
	uint64_t max_file_bytes;   /* (0: no limit) */

	/* The size of a file holding n samples of sizes[i] payload bytes; when
	 * recs is not NULL, the byte range of each sample (recs[n], tiling the
	 * file). Pure. */
	uint64_t (*layout)(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs);

	/* Write that file through o (at position 0; the payload from o's random
	 * stream). sample0 is the dataset-wide number of the first sample (tar
	 * member names). Returns 0, or -1 with o->err set. */
	int (*write)(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0);
};

/* The path (relative to DIR) of manifest entry e of a dataset of nlogical
 * data files in fmt: train/[K/|NNNN/]img_<i>_of_<N>.<ext> (DLIO's names; K =
 * i mod subfolders when subfolders > 1, NNNN above 10 000 files; the
 * index file of an indexed data file follows it with .idx). The one place
 * that names the generator's files: `bench clean` removes only these. */
void fs_gen_entry_name(const struct fs_gen_format *fmt, uint32_t nlogical, uint32_t subfolders, uint32_t e,
		       char *out, size_t cap);

/* The index file of an indexed data file: n pairs of little-endian uint64
 * (offset, length) of its samples. Size 16 n. */
uint64_t fs_gen_index_size(uint32_t n);
int fs_gen_index_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n);

/* The formats' ops, defined in gen_numpy.c, gen_formats.c, gen_image.c and
 * gen_hdf5.c, and named only in formats.c's table. */
extern const struct fs_gen_ops fs_gen_npy, fs_gen_npz, fs_gen_tfrecord, fs_gen_tar, fs_gen_jpeg,
	fs_gen_raw, fs_gen_indexed, fs_gen_png, fs_gen_csv, fs_gen_hdf5;

/* Make recs[n], whose offsets hold where each sample's bytes start, tile a
 * file of total bytes: the first starts at 0, each runs to the next one's
 * start, the last to total. */
void fs_gen_tile(struct fs_dataset_rec *recs, uint32_t n, uint64_t total);

/* The layout of csv and indexed: the samples back to back, nothing between
 * them (sample i at the sum of the sizes before it). */
uint64_t fs_gen_layout_back_to_back(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs);

#endif
