/* dataset.h - what `bench generate` wrote, for `bench` to read: the
 * manifest DIR/.feedscope-dataset (text, written last, atomically), and the
 * safety marker DIR/.feedscope-bench that says feedscope made DIR.
 *
 * Manifest format (one item per line, fields separated by one space):
 *   feedscope-dataset 1
 *   format FORMAT                 a name of formats.c's table (npz, tfrecord, ...)
 *   record_length_bytes L
 *   record_length_stdev S
 *   samples_per_file K
 *   [subfolders S]                S > 1: files in train/<i mod S>/ (DLIO's num_subfolders_train)
 *   files N
 *   file PATH SIZE NRECORDS       PATH relative to DIR; then NRECORDS lines:
 *   rec OFFSET LENGTH             the byte range of one sample in the file
 * A sample is what a loader reads for one training sample: the whole file
 * for npy/npz/jpeg/png/raw (one record; npy/npz files holding K > 1 samples
 * have K records that tile the file, one array row each), one record's
 * bytes for tfrecord, tar, indexed, csv and hdf5 (a row). A file with NRECORDS 0 holds no sample (the index file of
 * an indexed dataset): readers skip it, `bench clean` removes it.
 * docs/bench-formats.md describes each format's layout.
 */
#ifndef FS_BENCH_DATASET_H
#define FS_BENCH_DATASET_H

#include <stddef.h>
#include <stdint.h>

#define FS_DATASET_MANIFEST ".feedscope-dataset"
#define FS_DATASET_MARKER ".feedscope-bench"
/* The plan `bench generate` writes before its first data file (same format),
 * so `bench clean` can remove what an interrupted generation left; and the
 * temporary name of an atomic save. */
#define FS_DATASET_PARTIAL ".feedscope-dataset.partial"
#define FS_DATASET_TMP ".feedscope-dataset.tmp"

struct fs_dataset_rec {
	uint64_t offset, length;
};

struct fs_dataset_file {
	char *path;                  /* relative to the dataset's dir */
	uint64_t size;
	struct fs_dataset_rec *recs;
	uint32_t nrecs;
};

struct fs_dataset {
	char format[16];
	uint64_t record_length_bytes, record_length_stdev;
	uint32_t samples_per_file;
	uint32_t subfolders;         /* 0, or S > 1 (the "subfolders" line) */
	struct fs_dataset_file *files;
	uint32_t nfiles;
	uint64_t total_bytes, total_records;
};

/* Read DIR's manifest. Returns 0, or -1 with a reason in why (no dataset:
 * errno ENOENT; malformed: "line N: ..."). total_bytes is the sum of the
 * files' sizes, total_records of their records. Free with fs_dataset_free
 * (also after a failure). */
int fs_dataset_load(const char *dir, struct fs_dataset *d, char *why, size_t whylen);

/* Whether every file of d that holds samples is, below DIR, a regular file
 * of the size the manifest lists, reached without a symlink (nothing is
 * opened for reading: a FIFO or device planted in the dataset cannot
 * block). Returns 0, or -1 with "DIR/PATH: reason" in why. */
int fs_dataset_check_files(const char *dir, const struct fs_dataset *d, char *why, size_t whylen);

/* Write d as DIR's manifest (to a temporary name, fsync, then rename).
 * Returns 0 or -1 with the reason in why. d->total_* are not read. */
int fs_dataset_save(const char *dir, const struct fs_dataset *d, char *why, size_t whylen);

/* The same for another file name in DIR (FS_DATASET_PARTIAL). */
int fs_dataset_load_file(const char *dir, const char *name, struct fs_dataset *d, char *why, size_t whylen);
int fs_dataset_save_file(const char *dir, const char *name, const struct fs_dataset *d, char *why, size_t whylen);

void fs_dataset_free(struct fs_dataset *d);

#endif
