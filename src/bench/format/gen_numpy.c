/* gen_numpy.c - the numpy formats of `bench generate`: .npy (format 1.0,
 * a uint8 array of shape (samples, record_length)) and .npz (a zip archive,
 * stored, of x.npy and y.npy as numpy.savez writes them; real CRC-32s).
 * Layouts in docs/bench-formats.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/format/gen_int.h"

#define NPY_ALIGN 64
#define NPY_HEADER_MAX 256

/* The .npy v1.0 header of an array (descr, shape (rows, cols), or (rows,)
 * when cols is 0) into buf[NPY_HEADER_MAX]: magic, version, header length,
 * the dict padded with blanks and a newline so the data starts at a
 * multiple of 64 bytes. Returns its length. */
static size_t npy_header(uint8_t *buf, const char *descr, uint64_t rows, uint64_t cols)
{
	char dict[NPY_HEADER_MAX];
	int n;
	if (cols)
		n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%" PRIu64
			     ", %" PRIu64 "), }", descr, rows, cols);
	else
		n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%" PRIu64
			     ",), }", descr, rows);
	size_t total = 10 + (size_t)n + 1;
	total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
	if (buf) {
		memcpy(buf, "\x93NUMPY\x01\x00", 8);
		fs_put_le16(buf + 8, (uint16_t)(total - 10));
		memcpy(buf + 10, dict, (size_t)n);
		memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
		buf[total - 1] = '\n';
	}
	return total;
}

/* ---- npy ---- */

static uint64_t npy_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	uint64_t len = sizes[0];
	uint64_t h = npy_header(NULL, "|u1", n, len);
	uint64_t total = h + (uint64_t)n * len;
	if (recs) {
		for (uint32_t i = 0; i < n; i++)
			recs[i].offset = h + (uint64_t)i * len;
		fs_gen_tile(recs, n, total);
	}
	return total;
}

static int npy_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	uint8_t h[NPY_HEADER_MAX];
	size_t hl = npy_header(h, "|u1", n, sizes[0]);
	fs_gen_out_bytes(o, h, hl);
	fs_gen_out_random(o, (uint64_t)n * sizes[0]);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_npy = {
	.version = FS_GEN_FORMAT_VERSION, .per_file_length = true,
	.layout = npy_layout, .write = npy_write,
};

/* ---- npz: a zip of stored (uncompressed) members ---- */

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP_LOCAL_BYTES 30
#define ZIP_CENTRAL_BYTES 46
#define ZIP_END_BYTES 22
#define ZIP_VERSION 20              /* 2.0: what a stored member needs */
#define ZIP_MADE_BY ((3 << 8) | 20) /* Unix, 2.0: external attributes carry the mode */
#define ZIP_DOS_DATE 0x0021         /* 1980-01-01, 00:00: the same bytes on every run */
#define ZIP_MAX 0xfffffffeull       /* no zip64: sizes and offsets stay below 4 GiB */

#define NPZ_MEMBERS 2
static const char *const npz_names[NPZ_MEMBERS] = {"x.npy", "y.npy"};

/* Where a member lives in the archive. */
struct npz_member {
	uint64_t offset;       /* of its local header */
	uint64_t header_bytes; /* the .npy header */
	uint64_t data_bytes;   /* the array */
	uint32_t crc;
};

/* x: uint8 (n, len), the samples; y: int64 (n,) zeros, the labels (as
 * DLIO's np.savez(x=records, y=labels) writes them). Returns the total. */
static uint64_t npz_plan(uint64_t len, uint32_t n, struct npz_member m[NPZ_MEMBERS])
{
	uint64_t pos = 0;
	for (int i = 0; i < NPZ_MEMBERS; i++) {
		m[i].offset = pos;
		m[i].header_bytes = i == 0 ? npy_header(NULL, "|u1", n, len) : npy_header(NULL, "<i8", n, 0);
		m[i].data_bytes = i == 0 ? (uint64_t)n * len : (uint64_t)n * 8;
		m[i].crc = 0;
		pos += ZIP_LOCAL_BYTES + strlen(npz_names[i]) + m[i].header_bytes + m[i].data_bytes;
	}
	for (int i = 0; i < NPZ_MEMBERS; i++)
		pos += ZIP_CENTRAL_BYTES + strlen(npz_names[i]);
	return pos + ZIP_END_BYTES;
}

static uint64_t npz_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	struct npz_member m[NPZ_MEMBERS];
	uint64_t total = npz_plan(sizes[0], n, m);
	if (recs) {
		uint64_t x0 = ZIP_LOCAL_BYTES + strlen(npz_names[0]) + m[0].header_bytes;
		for (uint32_t i = 0; i < n; i++)
			recs[i].offset = x0 + (uint64_t)i * sizes[0];
		fs_gen_tile(recs, n, total);
	}
	return total;
}

/* A local header (crc 0 until patched) or, with central, a central
 * directory entry. Returns its length. */
static size_t zip_header(uint8_t *b, const char *name, const struct npz_member *m, bool central)
{
	size_t nl = strlen(name);
	uint32_t size = (uint32_t)(m->header_bytes + m->data_bytes);
	uint8_t *p = b;
	fs_put_le32(p, central ? ZIP_CENTRAL_SIG : ZIP_LOCAL_SIG);
	p += 4;
	if (central) {
		fs_put_le16(p, ZIP_MADE_BY);
		p += 2;
	}
	fs_put_le16(p, ZIP_VERSION);      /* needed to extract */
	fs_put_le16(p + 2, 0);            /* flags */
	fs_put_le16(p + 4, 0);            /* method: stored */
	fs_put_le16(p + 6, 0);            /* time */
	fs_put_le16(p + 8, ZIP_DOS_DATE); /* date */
	fs_put_le32(p + 10, m->crc);
	fs_put_le32(p + 14, size);        /* compressed */
	fs_put_le32(p + 18, size);        /* uncompressed */
	fs_put_le16(p + 22, (uint16_t)nl);
	fs_put_le16(p + 24, 0);           /* extra */
	p += 26;
	if (central) {
		fs_put_le16(p, 0);                      /* comment */
		fs_put_le16(p + 2, 0);                  /* disk */
		fs_put_le16(p + 4, 0);                  /* internal attributes */
		fs_put_le32(p + 6, 0100644u << 16);     /* external: a regular file, rw-r--r-- */
		fs_put_le32(p + 10, (uint32_t)m->offset);
		p += 14;
	}
	memcpy(p, name, nl);
	return (size_t)(p - b) + nl;
}

/* Overwrite 4 bytes at file offset off with v: in o's buffer when they are
 * still there, else on disk (pwrite). */
static void patch_u32(struct fs_gen_out *o, uint64_t off, uint32_t v)
{
	uint8_t b[4];
	fs_put_le32(b, v);
	uint64_t buf_start = o->pos - o->used;
	for (int i = 0; i < 4; i++) {
		uint64_t at = off + (uint64_t)i;
		if (at >= buf_start) {
			o->buf[at - buf_start] = b[i];
		} else if (!o->err && pwrite(o->fd, &b[i], 1, (off_t)at) != 1) {
			o->err = errno ? errno : EIO;
		}
	}
}

static int npz_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	struct npz_member m[NPZ_MEMBERS];
	npz_plan(sizes[0], n, m);
	uint8_t h[ZIP_CENTRAL_BYTES + 16 > NPY_HEADER_MAX ? ZIP_CENTRAL_BYTES + 16 : NPY_HEADER_MAX];
	for (int i = 0; i < NPZ_MEMBERS; i++) {
		fs_gen_out_bytes(o, h, zip_header(h, npz_names[i], &m[i], false));
		o->crc32 = 0;
		o->crc32_on = true;
		if (i == 0)
			npy_header(h, "|u1", n, sizes[0]);
		else
			npy_header(h, "<i8", n, 0);
		fs_gen_out_bytes(o, h, m[i].header_bytes);
		if (i == 0)
			fs_gen_out_random(o, m[i].data_bytes);
		else
			fs_gen_out_zeros(o, m[i].data_bytes);
		o->crc32_on = false;
		m[i].crc = o->crc32;
		patch_u32(o, m[i].offset + 14, m[i].crc);
	}
	uint64_t cd = o->pos, cd_bytes = 0;
	for (int i = 0; i < NPZ_MEMBERS; i++) {
		size_t l = zip_header(h, npz_names[i], &m[i], true);
		fs_gen_out_bytes(o, h, l);
		cd_bytes += l;
	}
	uint8_t e[ZIP_END_BYTES];
	fs_put_le32(e, ZIP_END_SIG);
	fs_put_le16(e + 4, 0);                /* this disk */
	fs_put_le16(e + 6, 0);                /* the disk of the central directory */
	fs_put_le16(e + 8, NPZ_MEMBERS);      /* entries on this disk */
	fs_put_le16(e + 10, NPZ_MEMBERS);     /* entries */
	fs_put_le32(e + 12, (uint32_t)cd_bytes);
	fs_put_le32(e + 16, (uint32_t)cd);
	fs_put_le16(e + 20, 0);               /* comment */
	fs_gen_out_bytes(o, e, sizeof e);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_npz = {
	.version = FS_GEN_FORMAT_VERSION, .per_file_length = true,
	.max_file_bytes = ZIP_MAX, .layout = npz_layout, .write = npz_write,
};
