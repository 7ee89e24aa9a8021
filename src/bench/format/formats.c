/* formats.c - the one table of dataset formats (formats.h). A format is
 * named here and nowhere else: the manifest check, `bench generate
 * --format`, a workload's dataset.format, `bench clean` and every error
 * and help text that lists them read this table. */
#include "bench/format/formats.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench/format/gen_int.h"

static const char *const npz_dlio[] = {"dlio_npz", NULL};
static const char *const tfrecord_dlio[] = {"dlio_tfrecord", NULL};
static const char *const indexed_dlio[] = {"indexed_binary", "mmap_indexed_binary", NULL};

const struct fs_gen_format fs_gen_formats[] = {
	{"npz", npz_dlio, "npz", &fs_gen_npz},
	{"npy", NULL, "npy", &fs_gen_npy},
	{"tfrecord", tfrecord_dlio, "tfrecord", &fs_gen_tfrecord},
	{"tar", NULL, "tar", &fs_gen_tar},
	{"jpeg", NULL, "jpg", &fs_gen_jpeg},
	{"raw", NULL, "bin", &fs_gen_raw},
	{"indexed", indexed_dlio, "bin", &fs_gen_indexed},
	{"png", NULL, "png", &fs_gen_png},
	{"csv", NULL, "csv", &fs_gen_csv},
	{"hdf5", NULL, "h5", &fs_gen_hdf5},
};

const size_t fs_gen_nformats = sizeof fs_gen_formats / sizeof fs_gen_formats[0];

const struct fs_gen_format *fs_gen_format_find(const char *name)
{
	for (size_t i = 0; i < fs_gen_nformats; i++)
		if (fs_gen_formats[i].ops->version == FS_GEN_FORMAT_VERSION && !strcmp(fs_gen_formats[i].name, name))
			return &fs_gen_formats[i];
	return NULL;
}

const struct fs_gen_format *fs_gen_format_find_dlio(const char *name)
{
	for (size_t i = 0; i < fs_gen_nformats; i++) {
		const struct fs_gen_format *f = &fs_gen_formats[i];
		if (f->ops->version != FS_GEN_FORMAT_VERSION)
			continue;
		if (!strcasecmp(f->name, name))
			return f;
		for (const char *const *a = f->dlio_aliases; a && *a; a++)
			if (!strcasecmp(*a, name))
				return f;
	}
	return NULL;
}

static char names[256], dlio_names[256];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void make_names(void)
{
	size_t n = 0, d = 0;
	for (size_t i = 0; i < fs_gen_nformats; i++) {
		const struct fs_gen_format *f = &fs_gen_formats[i];
		n += (size_t)snprintf(n < sizeof names ? names + n : names, n < sizeof names ? sizeof names - n : 0,
				      "%s%s", i ? " " : "", f->name);
		for (const char *const *a = f->dlio_aliases; a && *a; a++)
			d += (size_t)snprintf(d < sizeof dlio_names ? dlio_names + d : dlio_names,
					      d < sizeof dlio_names ? sizeof dlio_names - d : 0,
					      "%s%s (%s)", d ? ", " : "", *a, f->name);
	}
}

const char *fs_gen_format_names(void)
{
	pthread_once(&names_once, make_names);
	return names;
}

const char *fs_gen_format_dlio_names(void)
{
	pthread_once(&names_once, make_names);
	return dlio_names;
}
