/* formats.h - the one list of dataset formats (formats.c): each format's
 * name (as in the manifest, --format and a workload's dataset.format), the
 * other names DLIO gives it, the extension of its data files, and its
 * generator (gen_int.h's ops: layout and writer). There is no reader per
 * format: `bench` reads the byte ranges the manifest lists (dataset.h),
 * whatever the format, as DLIO's readers read whole samples. */
#ifndef FS_BENCH_FORMATS_H
#define FS_BENCH_FORMATS_H

#include <stddef.h>

struct fs_gen_ops;

struct fs_gen_format {
	const char *name;                /* feedscope's name: manifest, --format */
	const char *const *dlio_aliases; /* DLIO's other names for it (NULL-terminated; NULL: none) */
	const char *ext;                 /* of the data files */
	const struct fs_gen_ops *ops;    /* the generator (gen_int.h) */
};

/* The formats, in the order they are listed (fs_gen_format_names). */
extern const struct fs_gen_format fs_gen_formats[];
extern const size_t fs_gen_nformats;

/* The format called name exactly, or NULL. */
const struct fs_gen_format *fs_gen_format_find(const char *name);

/* The same for a DLIO workload's dataset.format: case-insensitive, and
 * DLIO's other names too (indexed_binary, mmap_indexed_binary: indexed;
 * dlio_npz, dlio_tfrecord: npz, tfrecord, as older DLIO configs write). */
const struct fs_gen_format *fs_gen_format_find_dlio(const char *name);

/* The names of all formats, space-separated, in table order (for errors
 * and --help); and DLIO's other names as "ALIAS (NAME), ..." . Both are
 * made from the table once and kept. */
const char *fs_gen_format_names(void);
const char *fs_gen_format_dlio_names(void);

#endif
