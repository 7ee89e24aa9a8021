/* gen_formats.c - the record formats of `bench generate` (gen_int.h):
 * TFRecord (tf.train.Example records with masked CRC-32C framing), tar
 * (ustar shards, one member per sample), jpeg (a small decodable JPEG whose
 * comment segments carry the payload), raw (one sample per file) and
 * indexed (samples back to back plus an index file); and the layouts the
 * formats share. The table of all formats is formats.c. Layouts in
 * docs/bench-formats.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench/format/gen_int.h"

uint64_t fs_gen_layout_back_to_back(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	uint64_t pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (recs) {
			recs[i].offset = pos;
			recs[i].length = sizes[i];
		}
		pos += sizes[i];
	}
	return pos;
}

void fs_gen_tile(struct fs_dataset_rec *recs, uint32_t n, uint64_t total)
{
	if (n == 0)
		return;
	recs[0].offset = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t end = i + 1 < n ? recs[i + 1].offset : total;
		recs[i].length = end - recs[i].offset;
	}
}

/* One record per file: the whole file. */
static void whole(struct fs_dataset_rec *recs, uint64_t total)
{
	if (recs) {
		recs[0].offset = 0;
		recs[0].length = total;
	}
}

/* ---- TFRecord ----
 * record: uint64 length, uint32 masked crc32c(length), data[length],
 * uint32 masked crc32c(data); data is a serialized tf.train.Example with
 * features {"image": bytes_list [payload], "size": int64_list [len]}, the
 * record DLIO's generator writes. Protobuf wire format: a length-delimited
 * field is (tag, varint length, bytes); tag = field << 3 | 2. */

static unsigned varint_len(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A length-delimited field of body bytes: its size with tag and length. */
static uint64_t field_len(uint64_t body)
{
	return 1 + varint_len(body) + body;
}

/* The sizes of the nested messages of one Example. */
struct example {
	uint64_t image_list, image_feature, image_entry; /* BytesList, Feature, map entry */
	uint64_t size_list, size_feature, size_entry;
	uint64_t features, total;
};

static void example_sizes(uint64_t len, struct example *e)
{
	e->image_list = field_len(len);                       /* BytesList.value */
	e->image_feature = field_len(e->image_list);          /* Feature.bytes_list */
	e->image_entry = field_len(5) + field_len(e->image_feature); /* key "image", value */
	e->size_list = field_len(varint_len(len));            /* Int64List.value, packed */
	e->size_feature = field_len(e->size_list);            /* Feature.int64_list */
	e->size_entry = field_len(4) + field_len(e->size_feature);
	e->features = field_len(e->image_entry) + field_len(e->size_entry); /* Features.feature */
	e->total = field_len(e->features);                    /* Example.features */
}

static uint64_t tfrecord_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	uint64_t pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct example e;
		example_sizes(sizes[i], &e);
		if (recs)
			recs[i].offset = pos;
		pos += 8 + 4 + e.total + 4;
	}
	if (recs)
		fs_gen_tile(recs, n, pos);
	return pos;
}

/* Emit tag (field, length-delimited) and length. */
static void out_field(struct fs_gen_out *o, unsigned field, uint64_t len)
{
	uint8_t b[11];
	b[0] = (uint8_t)(field << 3 | 2);
	size_t k = 1 + put_varint(b + 1, len);
	fs_gen_out_bytes(o, b, k);
}

static int tfrecord_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	for (uint32_t i = 0; i < n && !o->err; i++) {
		uint64_t len = sizes[i];
		struct example e;
		example_sizes(len, &e);
		uint8_t b[12];
		fs_put_le64(b, e.total);
		fs_put_le32(b + 8, fs_crc32c_mask(fs_crc32c(0, b, 8)));
		fs_gen_out_bytes(o, b, 12);
		o->crc32c = 0;
		o->crc32c_on = true;
		out_field(o, 1, e.features);               /* Example.features */
		out_field(o, 1, e.image_entry);            /* Features.feature (map entry) */
		out_field(o, 1, 5);                        /*   key */
		fs_gen_out_bytes(o, "image", 5);
		out_field(o, 2, e.image_feature);          /*   value: Feature */
		out_field(o, 1, e.image_list);             /*     bytes_list */
		out_field(o, 1, len);                      /*       value */
		fs_gen_out_random(o, len);
		out_field(o, 1, e.size_entry);             /* Features.feature */
		out_field(o, 1, 4);                        /*   key */
		fs_gen_out_bytes(o, "size", 4);
		out_field(o, 2, e.size_feature);           /*   value: Feature */
		out_field(o, 3, e.size_list);              /*     int64_list */
		uint8_t v[10];
		size_t vl = put_varint(v, len);
		out_field(o, 1, vl);                       /*       value (packed) */
		fs_gen_out_bytes(o, v, vl);
		o->crc32c_on = false;
		fs_gen_out_u32le(o, fs_crc32c_mask(o->crc32c));
	}
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_tfrecord = {
	.version = FS_GEN_FORMAT_VERSION,
	.layout = tfrecord_layout, .write = tfrecord_write,
};

/* ---- tar: POSIX ustar, one regular-file member per sample ---- */

#define TAR_BLOCK 512u
#define TAR_MAX_SIZE 077777777777ull /* 11 octal digits: 8 GiB - 1 */

static uint64_t tar_pad(uint64_t n)
{
	return (TAR_BLOCK - n % TAR_BLOCK) % TAR_BLOCK;
}

static uint64_t tar_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	uint64_t pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (recs)
			recs[i].offset = pos;
		pos += TAR_BLOCK + sizes[i] + tar_pad(sizes[i]);
	}
	pos += 2 * TAR_BLOCK; /* the end: two zero blocks */
	if (recs)
		fs_gen_tile(recs, n, pos);
	return pos;
}

static void tar_header(uint8_t h[TAR_BLOCK], uint64_t sample, uint64_t size)
{
	memset(h, 0, TAR_BLOCK);
	snprintf((char *)h, 100, "sample_%09" PRIu64 ".bin", sample); /* name */
	memcpy(h + 100, "0000644", 8);                                  /* mode */
	memcpy(h + 108, "0000000", 8);                                  /* uid */
	memcpy(h + 116, "0000000", 8);                                  /* gid */
	snprintf((char *)h + 124, 12, "%011" PRIo64, size);              /* size */
	memcpy(h + 136, "00000000000", 12);                             /* mtime: 1970, reproducible */
	memset(h + 148, ' ', 8);                                        /* chksum, blank while summed */
	h[156] = '0';                                                   /* typeflag: regular file */
	memcpy(h + 257, "ustar", 6);                                    /* magic, NUL-terminated */
	memcpy(h + 263, "00", 2);                                       /* version */
	memcpy(h + 265, "root", 5);                                     /* uname */
	memcpy(h + 297, "root", 5);                                     /* gname */
	memcpy(h + 329, "0000000", 8);                                  /* devmajor */
	memcpy(h + 337, "0000000", 8);                                  /* devminor */
	unsigned sum = 0;
	for (unsigned i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum); /* six digits, NUL, then the blank left there */
	h[155] = ' ';
}

static int tar_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	uint8_t h[TAR_BLOCK];
	for (uint32_t i = 0; i < n && !o->err; i++) {
		tar_header(h, sample0 + i, sizes[i]);
		fs_gen_out_bytes(o, h, TAR_BLOCK);
		fs_gen_out_random(o, sizes[i]);
		fs_gen_out_zeros(o, tar_pad(sizes[i]));
	}
	fs_gen_out_zeros(o, 2 * TAR_BLOCK);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_tar = {
	.version = FS_GEN_FORMAT_VERSION,
	.max_sample_bytes = TAR_MAX_SIZE, .layout = tar_layout, .write = tar_write,
};

/* ---- jpeg: a valid baseline JPEG of one 8x8 grey block; the payload rides
 * in COM (comment) segments before the image, so the file has the sample's
 * size and still decodes. ---- */

#define JPEG_SEG_MAX 65535u  /* a segment's length field counts itself: data <= 65533 */
#define JPEG_COM_MIN 4u      /* marker + length */

/* Everything but the comments: SOI, APP0 (JFIF), DQT, SOF0, DHT x2, SOS,
 * one byte of entropy-coded data, EOI. */
static const uint8_t jpeg_head[] = {
	0xFF, 0xD8,                                                   /* SOI */
	0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, /* APP0 JFIF 1.01 */
	0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,                     /* no units, 1:1, no thumbnail */
};

/* After the comments and the quantization table (DQT, 64 ones): */
static const uint8_t jpeg_sof_dht_sos[] = {
	0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01,  /* SOF0: 8 bit, 8x8, 1 component */
	0x01, 0x11, 0x00,                                            /*   id 1, 1x1 sampling, table 0 */
	0xFF, 0xC4, 0x00, 0x14, 0x00,                                /* DHT: DC table 0 */
	0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00,     /*   one 1-bit code: category 0 */
	0xFF, 0xC4, 0x00, 0x14, 0x10,                                /* DHT: AC table 0 */
	0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00,     /*   one 1-bit code: end of block */
	0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00,  /* SOS: component 1, tables 0/0 */
	0x3F,                                                        /* DC diff 0, EOB, pad with ones */
	0xFF, 0xD9,                                                  /* EOI */
};

#define JPEG_DQT_BYTES (2 + 2 + 1 + 64)
#define JPEG_MIN_BYTES (sizeof jpeg_head + JPEG_DQT_BYTES + sizeof jpeg_sof_dht_sos)

/* The file size for a sample of len bytes: len, but at least the bare
 * image, and never 1-3 bytes over it (a comment takes 4 at least). */
static uint64_t jpeg_size(uint64_t len)
{
	if (len <= JPEG_MIN_BYTES)
		return JPEG_MIN_BYTES;
	if (len - JPEG_MIN_BYTES < JPEG_COM_MIN)
		return JPEG_MIN_BYTES + JPEG_COM_MIN;
	return len;
}

static uint64_t jpeg_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	(void)n;
	uint64_t total = jpeg_size(sizes[0]);
	whole(recs, total);
	return total;
}

static int jpeg_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)n;
	(void)sample0;
	fs_gen_out_bytes(o, jpeg_head, sizeof jpeg_head);
	uint64_t left = jpeg_size(sizes[0]) - JPEG_MIN_BYTES; /* 0 or >= 4 */
	while (left) {
		uint64_t seg = left > JPEG_SEG_MAX + 2 ? JPEG_SEG_MAX + 2 : left;
		/* never leave a remainder of 1-3 bytes: it could not be a segment */
		if (left - seg > 0 && left - seg < JPEG_COM_MIN)
			seg -= JPEG_COM_MIN;
		uint8_t m[4] = {0xFF, 0xFE, (uint8_t)((seg - 2) >> 8), (uint8_t)(seg - 2)};
		fs_gen_out_bytes(o, m, 4);
		fs_gen_out_random(o, seg - 4);
		left -= seg;
	}
	uint8_t dqt[JPEG_DQT_BYTES] = {0xFF, 0xDB, 0x00, 0x43, 0x00}; /* table 0, 8-bit */
	memset(dqt + 5, 1, 64);
	fs_gen_out_bytes(o, dqt, sizeof dqt);
	fs_gen_out_bytes(o, jpeg_sof_dht_sos, sizeof jpeg_sof_dht_sos);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_jpeg = {
	.version = FS_GEN_FORMAT_VERSION, .one_sample_per_file = true,
	.layout = jpeg_layout, .write = jpeg_write,
};

/* ---- raw: the sample's bytes, one sample per file ---- */

static uint64_t raw_layout(const uint64_t *sizes, uint32_t n, struct fs_dataset_rec *recs)
{
	(void)n;
	whole(recs, sizes[0]);
	return sizes[0];
}

static int raw_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)n;
	(void)sample0;
	fs_gen_out_random(o, sizes[0]);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_raw = {
	.version = FS_GEN_FORMAT_VERSION, .one_sample_per_file = true,
	.layout = raw_layout, .write = raw_write,
};

/* ---- indexed: samples back to back; the index file beside it ---- */

static int indexed_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n, uint64_t sample0)
{
	(void)sample0;
	for (uint32_t i = 0; i < n && !o->err; i++)
		fs_gen_out_random(o, sizes[i]);
	return o->err ? -1 : 0;
}

const struct fs_gen_ops fs_gen_indexed = {
	.version = FS_GEN_FORMAT_VERSION, .has_index = true,
	.layout = fs_gen_layout_back_to_back, .write = indexed_write,
};

uint64_t fs_gen_index_size(uint32_t n)
{
	return 16ull * n;
}

int fs_gen_index_write(struct fs_gen_out *o, const uint64_t *sizes, uint32_t n)
{
	uint64_t pos = 0;
	for (uint32_t i = 0; i < n && !o->err; i++) {
		fs_gen_out_u64le(o, pos);
		fs_gen_out_u64le(o, sizes[i]);
		pos += sizes[i];
	}
	return o->err ? -1 : 0;
}
