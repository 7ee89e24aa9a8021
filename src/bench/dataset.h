/* dataset.h - what `bench generate` wrote, for `bench` to read: the
 * manifest DIR/.feedscope-dataset (text, written last, atomically), and the
 * safety marker DIR/.feedscope-bench that says feedscope made DIR.
 *
 * Manifest format (one item per line, fields separated by one space):
 *   feedscope-dataset 1
 *   format FORMAT                 npz npy tfrecord tar jpeg raw indexed
 *   record_length_bytes L
 *   record_length_stdev S
 *   samples_per_file K
 *   files N
 *   file PATH SIZE NRECORDS       PATH relative to DIR; then NRECORDS lines:
 *   rec OFFSET LENGTH             the byte range of one sample in the file
 * A sample is what a loader reads for one training sample: the whole file
 * for npy/npz/jpeg/raw (one record), one record's bytes for tfrecord, tar
 * and indexed.
 */
#ifndef FS_BENCH_DATASET_H
#define FS_BENCH_DATASET_H

#include <stddef.h>
#include <stdint.h>

#define FS_DATASET_MANIFEST ".feedscope-dataset"
#define FS_DATASET_MARKER ".feedscope-bench"

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
	struct fs_dataset_file *files;
	uint32_t nfiles;
	uint64_t total_bytes, total_records;
};

/* Read DIR's manifest. Returns 0, or -1 with a reason in why (no dataset,
 * malformed line N). Free with fs_dataset_free. */
int fs_dataset_load(const char *dir, struct fs_dataset *d, char *why, size_t whylen);

/* Write d as DIR's manifest (to a temporary name, then rename). Returns 0 or -1. */
int fs_dataset_save(const char *dir, const struct fs_dataset *d, char *why, size_t whylen);

void fs_dataset_free(struct fs_dataset *d);

#endif
