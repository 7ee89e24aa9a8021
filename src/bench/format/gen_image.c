/* gen_image.c - two more of DLIO's formats for `bench generate`
 * (gen_int.h): png (one image per file, a dim × dim 8-bit grey PNG of
 * random pixels, dim = round(sqrt(record_length)) as DLIO sizes its images;
 * the zlib stream uses stored deflate blocks, so no zlib is needed and the
 * file's size follows from dim alone) and csv (K text rows per file, one per
 * sample, each exactly the sample's size: random decimal fields separated by
 * commas, ending in a newline). Layouts in docs/bench-formats.md. */
#include <math.h>
#include <string.h>

#include "bench/format/gen_int.h"

/* ---- png ---- */

#define PNG_BLOCK 65535u          /* a stored deflate block holds at most this */
#define PNG_CHUNK_OVERHEAD 12u    /* length, type, CRC */
#define PNG_MAX_DIM 1000000u      /* 10^12 pixels: far beyond any sample */

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint64_t png_dim(uint64_t len)
{
	double d = floor(sqrt((double)len) + 0.5);
	return d < 1 ? 1 : d > PNG_MAX_DIM ? PNG_MAX_DIM : (uint64_t)d;
}

/* The filtered image: a filter byte (0: none) before each row. */
static uint64_t png_raw_bytes(uint64_t dim)
{
	return dim * (dim + 1);
}

static uint64_t png_blocks(uint64_t raw)
{
	return (raw + PNG_BLOCK - 1) / PNG_BLOCK;
}

static uint64_t png_size(uint64_t len)
{
	uint64_t raw = png_raw_bytes(png_dim(len)), blocks = png_blocks(raw);
	/* signature, IHDR, one IDAT per stored block (zlib header in the first,
	 * Adler-32 in the last), IEND */
	return 8 + (PNG_CHUNK_OVERHEAD + 13) + blocks * (PNG_CHUNK_OVERHEAD + 5) + 2 + raw + 4 + PNG_CHUNK_OVERHEAD;
}

static uint64_t png_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	(void)n;
	uint64_t total = png_size(sizes[0]);
	if (recs) {
		recs[0].offset = 0;
		recs[0].length = total;
	}
	return total;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A chunk's length and type; the CRC runs from the type on. */
static void chunk_start(struct fs_gen_out *o, uint32_t len, const char *type)
{
	uint8_t b[4];
	put_be32(b, len);
	fs_gen_out_bytes(o, b, 4);
	o->crc32 = 0;
	o->crc32_on = true;
	fs_gen_out_bytes(o, type, 4);
}

static void chunk_end(struct fs_gen_out *o)
{
	o->crc32_on = false;
	uint8_t b[4];
	put_be32(b, o->crc32);
	fs_gen_out_bytes(o, b, 4);
}

static int png_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)n;
	(void)sample0;
	uint64_t dim = png_dim(sizes[0]), raw = png_raw_bytes(dim), blocks = png_blocks(raw);
	fs_gen_out_bytes(o, png_signature, sizeof png_signature);
	uint8_t ihdr[13];
	put_be32(ihdr, (uint32_t)dim);
	put_be32(ihdr + 4, (uint32_t)dim);
	ihdr[8] = 8;  /* bit depth */
	ihdr[9] = 0;  /* colour type: grey */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering */
	ihdr[12] = 0; /* no interlace */
	chunk_start(o, 13, "IHDR");
	fs_gen_out_bytes(o, ihdr, 13);
	chunk_end(o);
	uint32_t a = 1, b = 0; /* Adler-32 of the raw image */
	uint64_t pos = 0;      /* in the raw image */
	uint8_t buf[4096];
	for (uint64_t k = 0; k < blocks && !o->err; k++) {
		uint32_t len = (uint32_t)(raw - pos < PNG_BLOCK ? raw - pos : PNG_BLOCK);
		bool first = k == 0, last = k + 1 == blocks;
		chunk_start(o, 5 + len + (first ? 2 : 0) + (last ? 4 : 0), "IDAT");
		if (first)
			fs_gen_out_bytes(o, "\x78\x01", 2); /* zlib: deflate, 32 KiB window, no dictionary */
		uint8_t h[5] = {last ? 1 : 0, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)~len, (uint8_t)(~len >> 8)};
		fs_gen_out_bytes(o, h, 5);
		for (uint32_t done = 0; done < len;) {
			uint32_t m = len - done < sizeof buf ? len - done : (uint32_t)sizeof buf;
			for (uint32_t i = 0; i < m; i += 8) {
				uint64_t v = fs_rng_next(&o->rng);
				memcpy(buf + i, &v, m - i < 8 ? m - i : 8);
			}
			for (uint32_t i = 0; i < m; i++) {
				if ((pos + i) % (dim + 1) == 0)
					buf[i] = 0; /* the row's filter byte */
				a = (a + buf[i]) % 65521;
				b = (b + a) % 65521;
			}
			fs_gen_out_bytes(o, buf, m);
			done += m;
			pos += m;
		}
		if (last) {
			uint8_t ad[4];
			put_be32(ad, b << 16 | a);
			fs_gen_out_bytes(o, ad, 4);
		}
		chunk_end(o);
	}
	chunk_start(o, 0, "IEND");
	chunk_end(o);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_png = {
	.version = FS_GEN_FORMAT_VERSION, .one_sample_per_file = true,
	.max_sample_bytes = (uint64_t)PNG_MAX_DIM * PNG_MAX_DIM, .layout = png_layout, .write = png_write,
};

/* ---- csv: one row per sample ---- */

/* A row of len bytes: fields of three digits and a comma ("123,"), the
 * last field cut short, then '\n' (a row never ends in a comma). */
static void csv_row(struct fs_gen_out *o, uint64_t len)
{
	uint8_t buf[4096];
	uint64_t j = 0;
	while (j < len && !o->err) {
		size_t m = len - j < sizeof buf ? (size_t)(len - j) : sizeof buf;
		for (size_t i = 0; i < m; i += 8) {
			uint64_t v = fs_rng_next(&o->rng);
			for (size_t k = 0; k < 8 && i + k < m; k++, v >>= 8) {
				uint64_t at = j + i + k;
				buf[i + k] = at == len - 1 ? '\n'
					   : (at % 4 == 3 && at != len - 2) ? ','
					   : (uint8_t)('0' + (v & 0xff) % 10);
			}
		}
		fs_gen_out_bytes(o, buf, m);
		j += m;
	}
}

static int csv_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	for (uint32_t i = 0; i < n && !o->err; i++)
		csv_row(o, sizes[i]);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_csv = {
	.version = FS_GEN_FORMAT_VERSION,
	.layout = fs_gen_layout_back_to_back, .write = csv_write,
};
