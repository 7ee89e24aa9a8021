/* gen_hdf5.c - DLIO's hdf5 format for `bench generate` (gen_int.h): one
 * HDF5 file per data file with a dataset "records" of uint8, shape (K, L)
 * (row k is sample k, contiguous) and "labels" of int64, shape (K,), zeros.
 * libhdf5 (Debian's libhdf5-dev) builds the file in memory (the core
 * driver, no backing store: it writes nothing to disk itself); the bytes
 * are then written through the generator's output like every other format
 * (safety.h's rules), the records' region replaced by the random payload.
 * libhdf5's serial build is not thread-safe: one lock around its calls. */
#include <errno.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/format/gen_int.h"

#define H5_MAX_FILE_BYTES (1ull << 30) /* the image is built in memory, three times a file */

static pthread_mutex_t h5_mu = PTHREAD_MUTEX_INITIALIZER;

/* The file image of n samples of len bytes: its bytes in *img (the caller
 * frees them; NULL to only measure), its size and where the records start.
 * 0, or -1 when libhdf5 fails. */
static int h5_image(uint32_t n, uint64_t len, uint8_t **img, uint64_t *size, uint64_t *records_at)
{
	int rc = -1;
	pthread_mutex_lock(&h5_mu);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are ours to say */
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1, dcpl = -1, sp = -1, lsp = -1, d = -1, l = -1;
	if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0)
		goto out;
	f = H5Fcreate("feedscope-bench.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hsize_t dims[2] = {n, len}, ldims[1] = {n};
	sp = H5Screate_simple(2, dims, NULL);
	lsp = H5Screate_simple(1, ldims, NULL);
	if (f < 0 || dcpl < 0 || sp < 0 || lsp < 0 || H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
	    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
		goto out;
	d = H5Dcreate2(f, "records", H5T_STD_U8LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	l = H5Dcreate2(f, "labels", H5T_STD_I64LE, lsp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int64_t *zeros = calloc(n ? n : 1, sizeof *zeros);
	bool ok = d >= 0 && l >= 0 && zeros && H5Dwrite(l, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros) >= 0;
	free(zeros);
	haddr_t at = ok ? H5Dget_offset(d) : HADDR_UNDEF;
	if (at == HADDR_UNDEF || H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
		goto out;
	ssize_t bytes = H5Fget_file_image(f, NULL, 0);
	if (bytes <= 0 || (uint64_t)at + (uint64_t)n * len > (uint64_t)bytes)
		goto out;
	if (img) {
		if (!(*img = malloc((size_t)bytes)))
			goto out;
		if (H5Fget_file_image(f, *img, (size_t)bytes) != bytes) {
			free(*img);
			*img = NULL;
			goto out;
		}
	}
	*size = (uint64_t)bytes;
	*records_at = (uint64_t)at;
	rc = 0;
out:
	if (l >= 0)
		H5Dclose(l);
	if (d >= 0)
		H5Dclose(d);
	if (lsp >= 0)
		H5Sclose(lsp);
	if (sp >= 0)
		H5Sclose(sp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (f >= 0)
		H5Fclose(f);
	if (fapl >= 0)
		H5Pclose(fapl);
	pthread_mutex_unlock(&h5_mu);
	return rc;
}

/* A file too big for the image to be built in memory gets the size of a
 * plain array instead, which the measure step then refuses (max_file_bytes). */
static uint64_t h5_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	uint64_t len = sizes[0], size, at;
	if ((uint64_t)n * len >= H5_MAX_FILE_BYTES || h5_image(n, len, NULL, &size, &at) < 0)
		return H5_MAX_FILE_BYTES + (uint64_t)n * len;
	if (recs) {
		for (uint32_t i = 0; i < n; i++)
			recs[i].offset = at + (uint64_t)i * len;
		fs_gen_tile(recs, n, size); /* the first from 0 (the header), the last to the end */
	}
	return size;
}

static int h5_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	uint64_t len = sizes[0], size, at;
	uint8_t *img = NULL;
	if (h5_image(n, len, &img, &size, &at) < 0) {
		o->err = EIO;
		return -1;
	}
	uint64_t end = at + (uint64_t)n * len;
	fs_gen_out_bytes(o, img, (size_t)at);
	fs_gen_out_random(o, (uint64_t)n * len);
	fs_gen_out_bytes(o, img + end, (size_t)(size - end));
	free(img);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_hdf5 = {
	.version = FS_GEN_FORMAT_VERSION, .per_file_length = true,
	.max_file_bytes = H5_MAX_FILE_BYTES, .layout = h5_layout, .write = h5_write,
};
